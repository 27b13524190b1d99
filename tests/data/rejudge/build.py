"""Builds the small recorded bundles of tests/data/rejudge/ (README.md there) from the recorded runs the
repository keeps: each scenario's capture folder copied whole, its rows' verdicts those the live run
recorded, and a summary, junit.xml and manifest around them. Run once, from the checkout:

    .tox/protocols/bin/python tests/data/rejudge/build.py

It refuses to write a bundle whose recorded verdicts today's judges do not give (that is what
tests/reports/test_rejudge.py asserts; a bundle that disagreed from the start would test nothing).
"""
from __future__ import annotations

import json
import shutil
import sys
import tempfile
import xml.etree.ElementTree as ET
from datetime import UTC, datetime
from pathlib import Path

from pulsar_conformance.conformance.harness import rejudge as harness
from pulsar_conformance.conformance.profiles import PROFILES
from pulsar_conformance.conformance.run import CertifyRun
from pulsar_conformance.reports.bundle import archive
from pulsar_conformance.reports.bundle import contents as bundle
from pulsar_conformance.reports.bundle.junit import read_junit, write_requirements_junit
from pulsar_conformance.reports.bundle.verdicts import load_requirements, requirement_rows, run_verdict
from pulsar_conformance.reports.runner.rejudge import junit_name, registry

HERE = Path(__file__).resolve().parent
DATA = HERE.parent
EVIDENCE = ("evidence not kept: the live run's record kept in the repository holds each check's verdict only "
            "(tests/data/rejudge/README.md)")
CF = "conformance/protocols/client_failover/"
CM = "conformance/protocols/cluster_migration/"

# (profile, the run it comes from, its captures: (folder in the recorded run, capture name, its test's node id),
# the recorded verdicts {check: verdict}, versions, configuration)
BUNDLES = {
    "client-failover": dict(
        run=DATA / "failover" / "certify-4.2.4",
        captures=[("java-controlled", "java-controlled", CF + "test_java_client_failover.py::test_java_controlled_failover"),
                  ("java-stale-failure", "java-stale-failure",
                   CF + "test_java_client_failover.py::test_java_stale_failure_and_dead_secondary"),
                  ("secondary-dies", "secondary-dies", CF + "test_client_failover.py::test_secondary_dies_in_use")],
        verdicts=lambda run: json.loads((run / "verdicts.json").read_text()),
        leave_out=(),
        versions={"pulsar": "4.2.4", "pulsar_client_python": "3.13.0", "pulsar_client_cpp": "4.2.0",
                  "pulsar_client_java": "4.2.4", "spark": "4.3.0", "python": "3.11.7",
                  "suite_commit": "1f727b2 (before its commit)"},
        configuration={}, finished="2026-11-29T00:00:00+00:00"),
    "cluster-migration": dict(
        run=DATA / "migration",
        captures=[("cluster-migration-java-4.2.4", "cluster-migration-java",
                   CM + "test_java_cluster_migration.py::test_java_client_through_a_cluster_level_migration")],
        verdicts=lambda run: {json.loads(line)["check"]: json.loads(line)["verdict"] for line in
                              (run / "cluster-migration-java-4.2.4" / "checks.jsonl").read_text().splitlines()},
        # beside the capture in the recorded run, not of it: the row record and a log excerpt a test reads
        leave_out=("checks.jsonl", "green-refusals.log"),
        versions={"pulsar": "4.2.4", "pulsar_client_java": "4.2.4", "spark": "4.3.0"},
        configuration={"migration_tls": "off"}, finished="2026-11-28T00:00:00+00:00"),
}


def build(profile: str, spec: dict, out: Path) -> None:
    if out.exists():
        shutil.rmtree(out)
    (out / "captures").mkdir(parents=True)
    recorded = spec["verdicts"](spec["run"])
    entries = registry()
    rows: list[dict] = []
    checks_of: dict = {}  # test -> the checks declaration its recorder used
    with tempfile.TemporaryDirectory() as scratch:
        run = CertifyRun(out=Path(scratch), profile=profile, seed=1)
        for folder, name, test in spec["captures"]:
            target = Path(scratch) / "captures" / name
            shutil.copytree(spec["run"] / folder, target, ignore=shutil.ignore_patterns(*spec["leave_out"]))
            shutil.copytree(target, out / "captures" / name)
            doc = json.loads((target / "outcome.json").read_text())
            _, entry = next((a, e) for a, e in entries if e.matches(doc["type"]))
            made = harness.judge_saved(entry, run, entry.load(target), test).rows
            checks_of[test] = entry.checks
            theirs = {c: v for c, v in recorded.items() if c.startswith(f"{name}/") or f"/{name}/" in c}
            if theirs != {r["check"]: r["verdict"] for r in made}:
                sys.exit(f"{profile}/{name}: today's judges give {[(r['check'], r['verdict']) for r in made]}, the "
                         f"recorded run {sorted(theirs.items())}: not building a bundle that disagrees")
            # the row as the live recorder wrote it, its verdict the recorded one and its evidence not kept; the
            # live runs saved no ITF file of their traces (details.itf, written into the scratch copy here), so
            # the rows name none: `judge BUNDLE` writes them (tests/reports/test_rejudge.py)
            rows += [dict(r, verdict=recorded[r["check"]], evidence=EVIDENCE,
                          details={k: v for k, v in r["details"].items() if k != "itf"}) for r in made]
    (out / "checks.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    _junit(out, rows, checks_of)
    tests = read_junit(out / "junit.xml")
    requirements = load_requirements()
    requirement = requirement_rows(requirements, rows)
    declared = PROFILES[profile].declared(requirements)
    judged_ids = {q for r in rows for q in r["requirements"]}
    # the bundle keeps some scenarios of the run: the requirements only the others judged are left out
    excluded = [rid for rid in declared if rid not in judged_ids]
    verdict, reasons = run_verdict(requirement, tests, 1 if tests["failed"] or tests["errors"] else 0,
                                   declared=declared, excluded=excluded)
    summary = {
        "format": "pulsar-conformance-certification/1", "run_id": f"recorded-{profile}-{spec['versions']['pulsar']}",
        "profile": profile, "verdict": verdict, "reasons": reasons, "seconds": 0.0, "interrupted": False,
        "declared": declared, "narrowed": {"excluded": excluded, "selected": None}, "finished": spec["finished"],
        "product": {"vendor": "Apache Software Foundation", "name": "Apache Pulsar",
                    "version": spec["versions"]["pulsar"], "type": "distribution"},
        "product_missing": [], "versions": spec["versions"], "deployment": "local", "seed": 1,
        "topology": "standalone", "configuration": spec["configuration"],
        "command": f"pulsar-conformance certify --profile {profile} --seed 1 (kept in part: tests/data/rejudge/README.md)",
        "counts": {"requirements": bundle._count(requirement), "tests": {k: v for k, v in tests.items() if k != "cases"}},
        "requirements": requirement, "checks": rows, "tests": tests["cases"],
        "anomalies": {name: json.loads((out / "captures" / name / "verdict.json").read_text())
                      for _, name, _ in spec["captures"] if (out / "captures" / name / "verdict.json").exists()},
        "spec": {"checks": [], "mutants": []}, "timings": None, "cleanup": None,
        "bundle": {"archive": f"{out.name}{archive.SUFFIX}", "manifest": archive.MANIFEST, "left_out": []},
        "built": f"tests/data/rejudge/build.py on {datetime.now(UTC).date()}",
    }
    (out / "summary.json").write_text(json.dumps(summary, indent=2, default=str))
    write_requirements_junit(out, summary)
    archive.write_manifest(out)  # the manifest only: the archive would hold the same files twice
    print(f"{out}: {verdict} ({len(rows)} rows, {sum(f.stat().st_size for f in out.rglob('*') if f.is_file())} bytes)")


def _junit(out: Path, rows: list[dict], checks_of: dict) -> None:
    """junit.xml as pytest writes it, each test's outcome and properties as its recorder finished it."""
    suite = ET.Element("testsuite", name="pytest", errors="0", failures="0", skipped="0", tests="0", time="0")
    for test in dict.fromkeys(r["test"] for r in rows):
        mine = [r for r in rows if r["test"] == test]
        outcome, message, properties = harness.outcome_of_test(mine, test, checks_of[test])
        classname, name = junit_name(test).split("::")
        case = ET.SubElement(suite, "testcase", classname=classname, name=name, time="0")
        if properties:
            props = ET.SubElement(case, "properties")
            for rid, said in properties:
                ET.SubElement(props, "property", name=rid, value=said)
        tag = {"failed": "failure", "errors": "error"}.get(outcome)
        if tag:
            ET.SubElement(case, tag, message=message).text = message
    cases = list(suite.iter("testcase"))
    suite.set("tests", str(len(cases)))
    suite.set("failures", str(sum(1 for c in cases if c.find("failure") is not None)))
    suite.set("errors", str(sum(1 for c in cases if c.find("error") is not None)))
    root = ET.Element("testsuites")
    root.append(suite)
    ET.indent(root)
    ET.ElementTree(root).write(out / "junit.xml", encoding="utf-8", xml_declaration=True)


if __name__ == "__main__":
    for profile, spec in BUNDLES.items():
        build(profile, spec, HERE / profile)
