"""The verdicts can fail: a real capture with deliveries removed is judged invalid, and a
failing check turns the requirement and the whole run to fail; unknown never passes."""
import json
import shutil
from argparse import Namespace

import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

from pulsar_conformance.reports.verdicts import combine, requirement_rows, run_verdict


def test_combine_is_three_valued():
    assert combine(["pass", "pass"]) == "pass"
    assert combine(["pass", "unknown"]) == "unknown"
    assert combine(["unknown", "fail", "pass"]) == "fail"
    assert combine([]) == "unknown"  # no evidence is never a pass


def test_run_with_nothing_checked_is_unknown():
    verdict, reasons = run_verdict([{"verdict": "not run"}], {"total": 3, "passed": 3}, 0)
    assert verdict == "unknown" and "no requirement was checked on the deployment" in reasons


@pytest.mark.pulsar
@pytest.mark.spark
def test_a_capture_with_lost_deliveries_fails_the_run(vendor_run, tmp_path):
    from pulsar_conformance.reports.bundle import build_bundle
    from pulsar_conformance.reports.profiles import get_profile
    from pulsar_conformance.spark_checks.check import check_capture

    out, _, _ = vendor_run
    broken = tmp_path / "bundle"
    shutil.copytree(out, broken)
    run_dir = broken / "captures" / "geo-replication"
    # Drop green's deliveries of the first ten messages from every file: a replication loss.
    for path in sorted((run_dir / "events").glob("*.parquet")):
        table = pq.read_table(path)
        lost = pc.and_(pc.and_(pc.equal(table["cluster"], "green"), pc.equal(table["kind"], "receive")),
                       pc.less_equal(table["seq"], 10))
        pq.write_table(table.filter(pc.invert(lost)), path)
    verdict = check_capture(run_dir, engine="spark")
    assert verdict["valid"] is False and verdict["anomalies"]["lost"]["count"] == 10, verdict
    with open(broken / "checks.jsonl", "a") as handle:
        handle.write(json.dumps({"check": "geo-replication/blue-to-green", "kind": "deployment",
                                 "requirements": ["GEO-R01"], "verdict": "fail", "evidence": "10 lost",
                                 "test": "broken", "details": {}}) + "\n")
    args = Namespace(profile="smoke", deployment=None, pulsar_version=None, client_version=None, out=None,
                     vendor=None, product=None, seed=1)
    summary = build_bundle(broken, run_id="broken", profile=get_profile("smoke"), args=args,
                           deployment={"backend": "local", "file": None}, pytest_exit=1, seconds=1)
    assert summary["verdict"] == "fail"
    assert {r["id"]: r["verdict"] for r in summary["requirements"]}["GEO-R01"] == "fail"
    assert "Verdict: FAIL" in (broken / "report.html").read_text()


def test_requirement_without_a_check_is_uncovered_not_passed():
    from pulsar_conformance.reports.verdicts import load_requirements

    rows = requirement_rows(load_requirements(), [])
    assert rows and all(r["verdict"] in ("uncovered", "not run") for r in rows)


def test_only_a_failed_must_fails_the_run():
    tests = {"total": 2, "passed": 2}
    should = [{"id": "X-R01", "strength": "MUST", "verdict": "pass"}, {"id": "X-R02", "strength": "SHOULD", "verdict": "fail"}]
    verdict, reasons = run_verdict(should, tests, 0)
    assert verdict == "pass" and any("X-R02" in r for r in reasons), reasons
    must = [{"id": "X-R01", "strength": "MUST", "verdict": "fail"}, {"id": "X-R02", "strength": "SHOULD", "verdict": "pass"}]
    verdict, reasons = run_verdict(must, tests, 1)
    assert verdict == "fail" and any("X-R01" in r for r in reasons), reasons
