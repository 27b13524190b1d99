"""A certification bundle built offline from hand-made checks, as certify leaves it (tests of the bundle,
results, archive, PRODUCT.yaml and the requirements junit)."""
from __future__ import annotations

import json
from pathlib import Path

TEST = "conformance/protocols/cluster_migration/test_cluster_migration.py::test_namespace_level_migration"


def row(check: str, rid: str, verdict: str, evidence: str = "seen") -> dict:
    return {"check": check, "kind": "deployment", "requirements": [rid], "verdict": verdict,
            "evidence": evidence, "test": TEST, "details": {}}


def make_bundle(where: Path, rows=None, *, pytest_exit: int = 1, failed_test: bool = True,
                profile: str = "cluster-migration", **request) -> dict:
    """A bundle as certify leaves it, from hand-made checks: checks.jsonl, junit.xml, an allure result of
    the test, a local deployment's logs with the proxy's control port and pid files; then build_bundle."""
    from pulsar_conformance.conformance.profiles import get_profile
    from pulsar_conformance.reports.runner.build import build_bundle
    from pulsar_conformance.reports.runner.request import CertifyRequest

    if rows is None:
        rows = [row("m/p/redirected", "PIP188-R03", "fail", "0 sends stored on green"),
                row("m/p/order", "PIP188-R01", "pass", "seq order kept"),
                row("m/p/drained", "PIP188-R02", "unknown", "nothing read from green"),
                row("m/ns-level", "PIP188-R06", "not applicable", "HTTP 405"),
                row("m/once", "PIP188-R15", "fail", "2 duplicates")]
    where.mkdir(parents=True, exist_ok=True)
    (where / "checks.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (where / "junit.xml").write_text(
        '<testsuites><testsuite><testcase classname="conformance.protocols.cluster_migration.test_cluster_migration" '
        'name="test_namespace_level_migration">'
        + ('<failure message="AssertionError: product defect: m/p/redirected"/>' if failed_test else "")
        + '</testcase></testsuite></testsuites>')
    allure = where / "allure-results"
    allure.mkdir(exist_ok=True)
    (allure / "0f-result.json").write_text(json.dumps({
        "name": "test_namespace_level_migration", "status": "failed",
        "fullName": "conformance.protocols.cluster_migration.test_cluster_migration#test_namespace_level_migration",
        "labels": [{"name": "tag", "value": "cluster_migration"}, {"name": "framework", "value": "pytest"}]}))
    (allure / "1a-result.json").write_text(json.dumps({
        "name": "test_other", "status": "passed", "fullName": "conformance.protocols.x.test_x#test_other",
        "labels": []}))
    proxy = where / "logs" / "cluster-migration" / "logs" / "proxy"
    proxy.mkdir(parents=True, exist_ok=True)
    (proxy / "control.port").write_text("41234")
    (proxy / "pid.json").write_text('{"pid": 4242}')
    (proxy / "proxy.log").write_text("proxy up\n")
    (where / "logs" / "cluster-migration" / "logs" / "blue").mkdir(parents=True, exist_ok=True)
    (where / "logs" / "cluster-migration" / "logs" / "blue" / "pulsar.log").write_text("broker log\n")
    (where / "e2e.log").write_text("== 1 failed in 3.0s ==\n")
    (where / "deployment.json").write_text(json.dumps({"status": {"pulsar_version": "4.2.4"}}))
    request = CertifyRequest(profile=get_profile(profile), out=where, run_id="hand-made", **request)
    return build_bundle(where, request, pytest_exit=pytest_exit, seconds=3)
