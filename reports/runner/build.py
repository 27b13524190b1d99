"""Assemble a certify run's bundle (docs/certify.md) from what its pytest child left in ``out``.

Inputs: checks.jsonl (verdicts), junit.xml, allure-results/, spec/*.json, captures/*/
(events, manifest, markers, verdict), logs/, deployment.json, e2e.log. Outputs: report.html
(reports/view/report_page.py), summary.json, PRODUCT.yaml (reports/runner/product.py), reproduce.md,
findings.md/findings.html (the findings it cites, reports/bundle/bundle_findings.py), requirements.junit.xml
(reports/bundle/junit.py), allure categories and environment, each allure result labelled with the
requirements its test judged (reports/bundle/contents.py); then the manifest and the archive beside the
folder (reports/bundle/archive.py). It sits in the runner layer: it reads the request and the child's
identity and timings, which the bundle and view layers below know nothing of.
"""
from __future__ import annotations

import json
import shlex
from datetime import UTC, datetime
from pathlib import Path

import yaml

from pulsar_conformance import invocation
from pulsar_conformance.output import progress
from pulsar_conformance.protocols import protocol_options

from ..bundle import archive, bundle_findings, contents, events
from ..bundle.junit import read_junit, write_requirements_junit
from ..bundle.verdicts import load_checks, load_requirements, requirement_rows, run_context, run_verdict
from ..view import failover, report_page, values
from . import identity, product, timings
from .request import configuration, spark_context, spark_flags


def command_line(request) -> str:
    """The command that repeats this one run (a series' run: its own seed and release)."""
    parts = ["pulsar-conformance", "certify", "--profile", request.profile.name]
    for rid in request.exclude:
        parts += ["--exclude", rid]
    if request.select:
        parts += ["--select", request.select]
    for flag, value in (("--deployment", request.deployment_option), ("--pulsar-version", request.pulsar_version),
                        ("--client-version", request.client_version),
                        *((o.flag, request.option(o.field)) for o in protocol_options()),
                        ("--out", request.out_option), ("--vendor", request.vendor), ("--product", request.product)):
        if value:
            parts += [flag, value]
    if request.deployment.topology != "standalone":
        parts += ["--topology", request.deployment.topology]
    if request.deployment.proxy:
        parts.append("--proxy")
    if request.allow_irreversible:
        parts.append("--allow-irreversible")
    if request.keep:
        parts.append("--keep")
    parts += spark_flags(request)  # where the capture checks ran (--spark-master, $MASTER), userinfo masked
    parts += ["--seed", str(request.seed)]
    return shlex.join(parts)


def build_bundle(out: Path, request, *, pytest_exit: int, seconds: float) -> dict:
    """The bundle of one run of ``request`` (reports/runner/request.CertifyRequest) from what its tests left in ``out``."""
    profile, deployment, run_id = request.profile, request.deployment, request.run_id
    left_out = archive.prune(out)
    checks = load_checks(out)
    requirements = load_requirements()
    versions = identity.versions(out)
    versions["suite_commit"] = contents.suite_commit()
    topology = "external" if request.deployment.backend == "external" else request.deployment.topology
    # each row links only the findings whose scope holds for this run, and the bundle carries their text
    rows = requirement_rows(requirements, checks,
                            context=run_context(profile.name, versions, topology, request.deployment.backend))
    bundle_findings.write(out, rows, versions["suite_commit"])
    tests = read_junit(out / "junit.xml")
    declared = profile.declared(requirements)
    excluded = sorted(request.exclude)
    selected = request.select
    failing = events.summary_counts(checks, requirements)
    verdict, reasons = run_verdict(rows, tests, pytest_exit, declared=declared, excluded=excluded,
                                   selected=selected, failing=failing)
    described, product_missing = product.describe(request, versions["pulsar"],
                                                  identity._deployment_document(deployment))
    described["pulsar_client"] = {"language": "python", "version": versions["pulsar_client_python"],
                                  "cpp_version": versions["pulsar_client_cpp"]}
    captures = contents._captures(out)
    spec = contents._spec_results(out)
    counts = {"requirements": contents._count(rows), "tests": {k: v for k, v in tests.items() if k != "cases"},
              "failing": failing}
    summary = {
        "format": "pulsar-conformance-certification/1", "run_id": run_id, "profile": profile.name,
        "verdict": verdict, "reasons": reasons, "seconds": round(seconds, 1), "interrupted": pytest_exit == 130,
        "declared": declared,
        "narrowed": ({"excluded": excluded, "selected": selected} if excluded or selected else None),
        "finished": datetime.now(UTC).isoformat(timespec="seconds"),
        "product": described, "product_missing": product_missing,
        "versions": versions, "deployment": deployment.backend, "seed": request.seed,
        # what ran per cluster (issue 31): standalone or cluster where the run started it; an external deployment's
        # clusters are whatever their operator runs
        "topology": topology,
        "configuration": configuration(request),  # the profile's protocols' options (reports/runner/request.py)
        # where the capture checks ran: {"master", "driver_host"} (userinfo masked), None for local[*]
        "spark": spark_context(request),
        "command": command_line(request), "counts": counts, "requirements": rows, "checks": checks,
        "tests": tests["cases"],
        "anomalies": {c["name"]: c["verdict"] for c in captures},
        "spec": spec,
        "timings": timings.breakdown(out),  # where the time went (reports/runner/timings.py)
        # an exploration (explore --live): its schedules, candidates with their replay counts, coverage
        "explore": contents._explore_digest(out),
        "cleanup": contents.cleanup_digest(out),  # an external deployment: what the run left on the clusters
        "bundle": {"archive": archive.archive_path(out).name, "manifest": archive.MANIFEST, "left_out": left_out},
    }
    (out / "summary.json").write_text(json.dumps(summary, indent=2, default=str))
    (out / "PRODUCT.yaml").write_text(yaml.safe_dump(described, sort_keys=False))
    (out / "reproduce.md").write_text(contents._reproduce(summary, profile))
    write_requirements_junit(out, summary)
    contents._allure_extras(out, summary)
    (out / "report.html").write_text(report_page.render(summary, rows, checks, captures, spec, values.scenarios(out),
                                             failover.scenarios(out), out=out))
    touched = identity.redact_tree(out, identity.secrets(deployment))
    if touched:
        # Redaction succeeded, but a credential reaching a file is itself a suite defect to fix.
        summary["redacted_files"] = touched
        (out / "summary.json").write_text(json.dumps(summary, indent=2, default=str))
    # last: the manifest must hash the files as they stay (redacted, pruned)
    sealed = archive.seal(out)
    progress(f"certify: archive {sealed['archive']} ({sealed['files']} files, SHA-256 manifest "
             f"{archive.MANIFEST}; check it with: {invocation.me()} verify {sealed['archive']})")
    return summary
