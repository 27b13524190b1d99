"""A bundle built offline by the real bundle code from every recorded capture the repository keeps
(tests/data/rejudge/ and tests/data/migration/, READMEs there), for the report's layout tests
(issue 51 point 8): 59 checks of two profiles' live runs with their recorded verdicts, three
client-failover captures whose faults overlap, two cluster-level migrations (one with outcome.json,
one recorded before it) and a namespace-level one (stranded-restart)."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

DATA = Path(__file__).parents[1] / "data"
CAPTURES = {
    "java-controlled": DATA / "rejudge" / "client-failover" / "captures" / "java-controlled",
    "java-stale-failure": DATA / "rejudge" / "client-failover" / "captures" / "java-stale-failure",
    "secondary-dies": DATA / "rejudge" / "client-failover" / "captures" / "secondary-dies",
    "cluster-migration-java": DATA / "rejudge" / "cluster-migration" / "captures" / "cluster-migration-java",
    "cluster-migration": DATA / "migration" / "cluster-migration-3.13.0",
    "stranded-restart": DATA / "migration" / "stranded-restart-3.13.0",
}
CHECKS = [DATA / "rejudge" / "client-failover" / "checks.jsonl", DATA / "rejudge" / "cluster-migration" / "checks.jsonl"]


def checks() -> list[dict]:
    return [json.loads(line) for path in CHECKS for line in path.read_text().splitlines() if line.strip()]


def build(out: Path, captures: dict[str, Path] | None = None, rows: list[dict] | None = None) -> Path:
    """The bundle in ``out`` (the cluster-migration profile's, so the client-failover rows are
    "checked, not certified"): ``captures`` and check ``rows`` default to all recorded ones."""
    from pulsar_conformance.conformance.profiles import get_profile
    from pulsar_conformance.reports.runner.build import build_bundle
    from pulsar_conformance.reports.runner.request import CertifyRequest

    for name, path in (CAPTURES if captures is None else captures).items():
        shutil.copytree(path, out / "captures" / name)
    (out / "checks.jsonl").write_text("".join(json.dumps(c) + "\n" for c in (checks() if rows is None else rows)))
    (out / "junit.xml").write_text('<testsuites><testsuite><testcase classname="c" name="a"/></testsuite></testsuites>')
    (out / "deployment.json").write_text(json.dumps({"status": {"pulsar_version": "4.2.4"}}))
    request = CertifyRequest(profile=get_profile("cluster-migration"), out=out, run_id="recorded-report",
                             pulsar_version="4.2.4")
    build_bundle(out, request, pytest_exit=1, seconds=1)
    return out
