"""The verdicts can fail: a real capture with deliveries removed is judged invalid, and a
failing check turns the requirement and the whole run to fail; unknown never passes."""
import json
import shutil
from argparse import Namespace

import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

from pulsar_conformance.reports.bundle.verdicts import combine, requirement_rows, run_verdict


def _build(out, *, run_id: str, profile: str, pytest_exit: int, exclude=(), select=None) -> dict:
    """build_bundle of a hand-made run, whichever of its two signatures the checkout has (H2 moves
    it from argparse's namespace to reports/runner/request.CertifyRequest)."""
    import inspect

    from pulsar_conformance.conformance.profiles import get_profile
    from pulsar_conformance.reports.runner.build import build_bundle

    if "request" in inspect.signature(build_bundle).parameters:
        from pulsar_conformance.reports.runner.request import CertifyRequest

        request = CertifyRequest(profile=get_profile(profile), out=out, run_id=run_id, exclude=tuple(exclude),
                                 select=select)
        return build_bundle(out, request, pytest_exit=pytest_exit, seconds=1)
    args = Namespace(profile=profile, deployment=None, pulsar_version=None, client_version=None, out=None,
                     vendor=None, product=None, seed=1, exclude=list(exclude), select=select)
    return build_bundle(out, run_id=run_id, profile=get_profile(profile), args=args,
                        deployment={"backend": "local", "file": None}, pytest_exit=pytest_exit, seconds=1)


def test_combine_is_three_valued():
    assert combine(["pass", "pass"]) == "pass"
    assert combine(["pass", "unknown"]) == "unknown"
    assert combine(["unknown", "fail", "pass"]) == "fail"
    assert combine([]) == "unknown"  # no evidence is never a pass


def test_not_applicable_is_a_verdict_only_where_the_release_lacks_the_feature_everywhere():
    from pulsar_conformance.reports.bundle.verdicts import load_requirements

    req = next(r for r in load_requirements() if r.id == "PIP188-R06")
    check = {"check": "namespace-migration/x", "kind": "deployment", "requirements": ["PIP188-R06"], "evidence": "e"}
    rows = requirement_rows([req], [check | {"verdict": "not applicable"}])
    assert rows[0]["verdict"] == "not applicable"
    # an observed verdict of the same requirement wins: a lacking scenario excuses no failure
    rows = requirement_rows([req], [check | {"verdict": "not applicable"}, check | {"verdict": "fail"}])
    assert rows[0]["verdict"] == "fail"
    declared = ["X-R01", "X-R02"]
    lacking = [{"id": "X-R01", "strength": "MUST", "verdict": "pass"},
               {"id": "X-R02", "strength": "MUST", "verdict": "not applicable"}]
    verdict, reasons = run_verdict(lacking, {"total": 2, "passed": 2}, 0, declared=declared)
    assert verdict == "pass" and "not applicable to this release: X-R02" in reasons, reasons
    # nothing but features the release lacks: nothing was seen, never a pass
    verdict, reasons = run_verdict(lacking[1:], {"total": 1, "passed": 1}, 0, declared=declared[1:])
    assert verdict == "unknown" and "no requirement was checked on the deployment" in reasons


def test_run_with_nothing_checked_is_unknown():
    verdict, reasons = run_verdict([{"verdict": "not run"}], {"total": 3, "passed": 3}, 0)
    assert verdict == "unknown" and "no requirement was checked on the deployment" in reasons


@pytest.mark.pulsar
@pytest.mark.spark
def test_a_capture_with_lost_deliveries_fails_the_run(vendor_run, tmp_path):
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
    # The fail row comes from the scenario's own judging code, as the live test records it.
    from pulsar_conformance.conformance.protocols.geo_replication import judge, observe
    from pulsar_conformance.conformance.protocols.geo_replication.checks import CHECKS
    from pulsar_conformance.conformance.protocols.geo_replication.outcome import Outage, Outcome
    from pulsar_conformance.conformance.run import CertifyRun, record, verdict_of

    kept = [line for line in (broken / "checks.jsonl").read_text().splitlines()
            if not json.loads(line)["check"].startswith("geo-replication/")]
    (broken / "checks.jsonl").write_text("".join(line + "\n" for line in kept))
    markers = json.loads((run_dir / "markers.json").read_text()) if (run_dir / "markers.json").exists() else []
    outcome = Outcome(run_dir, verdict, Outage(False, "no outage in this recording"), [], markers,
                      observe.deliveries(run_dir))
    rows = [{"check": r.check, "kind": "deployment", "requirements": CHECKS.requirements(r.check),
             "verdict": verdict_of(r.ok), "evidence": r.evidence,
             "details": {"capture": f"captures/{run_dir.name}", **r.details}} for r in judge.judge(outcome)]
    assert rows[0]["verdict"] == "fail" and "lost=10" in rows[0]["evidence"], rows[0]
    for row in rows:
        record(CertifyRun(out=broken, profile="smoke", seed=1), test="corrupted capture", **row)
    summary = _build(broken, run_id="broken", profile="smoke", pytest_exit=1)
    assert summary["verdict"] == "fail"
    assert {r["id"]: r["verdict"] for r in summary["requirements"]}["GEO-R01"] == "fail"
    assert "Verdict: FAIL" in (broken / "report.html").read_text()


def test_requirement_without_a_check_is_uncovered_not_passed():
    from pulsar_conformance.reports.bundle.verdicts import load_requirements

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


# Issue 11, item 1: a profile declares what it certifies; a declared requirement without a
# verdict (an external deployment without a `remote` skips PIP188-R07/R08) is never a PASS.
def _declared_rows(missing: str = "not run"):
    from pulsar_conformance.conformance.profiles import get_profile
    from pulsar_conformance.reports.bundle.verdicts import load_requirements

    declared = get_profile("cluster-migration").declared(load_requirements())
    rows = [{"id": rid, "strength": "MUST", "verdict": missing if rid in ("PIP188-R07", "PIP188-R08") else "pass"}
            for rid in declared]
    return declared, rows


def test_a_declared_requirement_that_did_not_run_makes_the_run_unknown():
    declared, rows = _declared_rows()
    assert {"PIP188-R07", "PIP188-R08"} <= set(declared)
    verdict, reasons = run_verdict(rows, {"total": 10, "passed": 8, "skipped": 2}, 0, declared=declared)
    assert verdict == "unknown", reasons
    assert any("PIP188-R07 (not run)" in r and "PIP188-R08 (not run)" in r for r in reasons), reasons
    assert any("2 test(s) skipped" in r for r in reasons), reasons


def test_uncovered_or_missing_declared_requirements_are_unknown_too():
    declared, rows = _declared_rows("uncovered")
    verdict, reasons = run_verdict(rows, {"total": 10, "passed": 10}, 0, declared=declared)
    assert verdict == "unknown" and any("PIP188-R07 (uncovered)" in r for r in reasons), reasons
    verdict, reasons = run_verdict(rows[:2], {"total": 2, "passed": 2}, 0, declared=declared[:3])
    assert verdict == "unknown" and any("not in the catalog" in r for r in reasons), reasons


def test_a_skipped_test_alone_keeps_a_certification_from_passing():
    rows = [{"id": "X-R01", "strength": "MUST", "verdict": "pass"}]
    verdict, reasons = run_verdict(rows, {"total": 2, "passed": 1, "skipped": 1}, 0, declared=["X-R01"])
    assert verdict == "unknown" and any("skipped" in r for r in reasons), reasons


def test_the_user_may_narrow_the_profile_and_the_run_says_so():
    declared, rows = _declared_rows()
    excluded = ["PIP188-R07", "PIP188-R08"]
    verdict, reasons = run_verdict(rows, {"total": 10, "passed": 8, "skipped": 2}, 0, declared=declared, excluded=excluded)
    assert verdict == "pass", reasons
    assert "narrowed: certified without PIP188-R07, PIP188-R08" in reasons
    # narrowing excuses absence, never an observed failure
    rows[0]["verdict"] = "fail"
    assert run_verdict(rows, {"total": 10, "passed": 8}, 1, declared=declared, excluded=excluded)[0] == "fail"


def test_profiles_declare_only_what_they_check():
    from pulsar_conformance.conformance.profiles import PROFILES
    from pulsar_conformance.reports.bundle.verdicts import load_requirements

    requirements = load_requirements()
    # smoke: geo-replication's requirements and those of each protocol's smoke scenario (descriptors);
    # elsewhere than on the local backend, geo-replication's only (Profile.on)
    smoke = PROFILES["smoke"].declared(requirements)
    assert {"GEO-R01", "GEO-R02"} <= set(smoke)
    assert {rid.split("-")[0] for rid in smoke} == {"GEO", "PIP121", "PIP136", "PIP188", "PIP454", "TM"}
    assert PROFILES["smoke"].on("external").declared(requirements) == ["GEO-R01", "GEO-R02"]
    assert PROFILES["smoke"].on("containers").declared(requirements) == ["GEO-R01", "GEO-R02"]
    assert PROFILES["smoke"].on("local") is PROFILES["smoke"]
    migration = PROFILES["cluster-migration"].declared(requirements)
    assert migration and all(rid.startswith("PIP188-") for rid in migration)
    assert "PIP188-R14" not in migration  # uncovered in the catalog: never certified, always shown
    full = set(PROFILES["full"].declared(requirements))
    assert set(migration) | {"GEO-R01", "GEO-R02"} <= full


def test_a_bundle_without_the_regions_verdicts_is_unknown_and_lists_them(tmp_path):
    """The whole path: checks.jsonl and junit.xml as an external run without `remote` leaves them."""
    declared, rows = _declared_rows()
    with open(tmp_path / "checks.jsonl", "w") as handle:
        for row in rows:
            if row["verdict"] == "pass":
                handle.write(json.dumps({"check": f"c/{row['id']}", "kind": "deployment", "requirements": [row["id"]],
                                         "verdict": "pass", "evidence": "seen", "test": "t", "details": {}}) + "\n")
    (tmp_path / "junit.xml").write_text(
        '<testsuites><testsuite><testcase classname="c" name="a"/>'
        '<testcase classname="r" name="regions"><skipped message="no remote cluster"/></testcase>'
        '</testsuite></testsuites>')
    summary = _build(tmp_path, run_id="no-remote", profile="cluster-migration", pytest_exit=0)
    assert summary["verdict"] == "unknown", summary["reasons"]
    assert any("PIP188-R07" in r and "PIP188-R08" in r for r in summary["reasons"]), summary["reasons"]
    excluded = ["PIP188-R07", "PIP188-R08"]
    summary = _build(tmp_path, run_id="narrowed", profile="cluster-migration", pytest_exit=0, exclude=excluded)
    assert summary["verdict"] == "pass" and summary["narrowed"] == {"excluded": excluded, "selected": None}
    assert "NARROWED PROFILE" in (tmp_path / "report.html").read_text()
    assert "--exclude PIP188-R07" in summary["command"]
    # a selection of tests is a narrowing too, recorded and shown the same way
    summary = _build(tmp_path, run_id="selected", profile="cluster-migration", pytest_exit=0, select="not regions")
    assert summary["verdict"] == "unknown" and summary["narrowed"]["selected"] == "not regions"
    assert "narrowed: only the tests matching -k 'not regions' ran" in summary["reasons"]
    assert "--select 'not regions'" in summary["command"] and "--select" in (tmp_path / "report.html").read_text()


def test_a_mistyped_requirement_id_is_refused_not_dropped(tmp_path):
    """The old record() wrote any id; the report, which knows only the catalog's, dropped the row
    and the requirement looked "not run". Now the check that names it cannot be recorded."""
    from pulsar_conformance.conformance.run import CertifyRun, record

    run = CertifyRun(out=tmp_path, profile="smoke", seed=1)
    with pytest.raises(ValueError, match=r"PIP188-R3'\].*no catalog has.*spec catalog"):
        record(run, check="typo", kind="deployment", requirements=["PIP188-R3"], verdict="pass", evidence="e", test="t")
    with pytest.raises(ValueError, match="no catalog has"):
        record(run, check="judges nothing", kind="deployment", requirements=[], verdict="pass", evidence="e", test="t")
    assert not (tmp_path / "checks.jsonl").exists()
    record(run, check="control", kind="deployment", requirements=["PIP188-R03"], verdict="pass", evidence="e", test="t")
    assert len((tmp_path / "checks.jsonl").read_text().splitlines()) == 1


# Issue 28: a requirement not taken from the PIP never fails a client it was not taken from; each
# verdict shows its source; a failing requirement links to its finding; a configuration hazard is
# said, with its fix, instead of a failure.
def _req(rid: str):
    from pulsar_conformance.reports.bundle.verdicts import load_requirements

    return next(r for r in load_requirements() if r.id == rid)


def _row(check: str, rid: str, verdict: str, client: str | None = None, **details) -> dict:
    return {"check": check, "kind": "deployment", "requirements": [rid], "verdict": verdict,
            "evidence": "seen", "test": "t", "details": details | ({"client": client} if client else {})}


def test_a_cpp_rule_failed_by_the_java_client_differs_and_is_no_failure():
    r08 = _req("PIP121-R08")
    java = _row("client-failover/java-stale-failure/left-dead-secondary", "PIP121-R08", "fail", "java")
    row, = requirement_rows([r08], [java])
    assert row["verdict"] == "differs" and row["source_kind"] == "implementation"
    assert row["source"] == "the C++ client does"
    assert "is what the C++ client does, not a PIP requirement" in row["evidence"][0]
    assert [f["id"] for f in row["findings"]] == ["F-121-2"]
    # the client it was taken from (and a row that names none) still fails it
    for client in ("cpp", None):
        python = _row("client-failover/secondary-dies/left-dead-secondary", "PIP121-R08", "fail", client)
        assert requirement_rows([r08], [python, java])[0]["verdict"] == "fail"
    # the C++ client passing and the Java client differing: a pass, the difference in the evidence
    python = _row("client-failover/secondary-dies/left-dead-secondary", "PIP121-R08", "pass")
    row, = requirement_rows([r08], [python, java])
    assert row["verdict"] == "pass" and any(e.startswith(java["check"] + ": differs") for e in row["evidence"])
    # the Java client's own rule (the fix of AutoClusterFailover.java) does fail it
    assert requirement_rows([_req("PIP121-R10")], [_row("c/x", "PIP121-R10", "fail", "java")])[0]["verdict"] == "fail"
    # the suite's own expectation fails no client, but stands for the broker
    r15 = _req("PIP188-R15")
    assert requirement_rows([r15], [_row("c/x", "PIP188-R15", "fail", "cpp")])[0]["verdict"] == "differs"
    assert requirement_rows([r15], [_row("c/x", "PIP188-R15", "fail")])[0]["verdict"] == "fail"
    assert requirement_rows([r15], [])[0]["source"] == "operators expect"
    assert requirement_rows([_req("PIP188-R03")], [])[0]["source"] == "the PIP says"


def test_a_run_whose_only_miss_differs_passes_and_says_so():
    rows = [{"id": "X-R01", "strength": "MUST", "verdict": "pass"},
            {"id": "PIP121-R08", "strength": "SHOULD", "verdict": "differs"}]
    verdict, reasons = run_verdict(rows, {"total": 2, "passed": 2}, 0, declared=["X-R01", "PIP121-R08"])
    assert verdict == "pass", reasons
    assert any(r.startswith("observations, no conformance failure: PIP121-R08") for r in reasons), reasons


HAZARD = {"name": "--migration-tls on-no-tls-url", "requirements": ["PIP188-R16"], "says": "TLS clients stranded",
          "fix": "advertise green's brokerServiceUrlTls", "keeps": []}


def test_a_hazard_is_listed_on_its_requirements_and_in_the_run_reasons():
    row, = requirement_rows([_req("PIP188-R16")], [_row("c/m/p/client-follows-redirect", "PIP188-R16", "unknown",
                                                         hazard=[HAZARD])])
    assert row["verdict"] == "unknown" and row["hazards"] == [HAZARD]
    verdict, reasons = run_verdict([row], {"total": 1, "passed": 1}, 0)
    assert verdict == "unknown"
    assert any("configuration hazard (--migration-tls on-no-tls-url, PIP188-R16 unknown where it failed)" in r
               and "fix: advertise green's brokerServiceUrlTls" in r for r in reasons), reasons


def test_the_report_and_junit_show_sources_findings_and_hazards(tmp_path):
    """The whole path, from checks.jsonl and junit.xml to report.html and summary.json."""
    rows = [_row("client-failover/java-stale-failure/left-dead-secondary", "PIP121-R08", "fail", "java"),
            _row("cluster-migration/m/p/redirected", "PIP188-R03", "fail"),
            _row("cluster-migration/m/p/client-follows-redirect", "PIP188-R16", "unknown", hazard=[HAZARD])]
    (tmp_path / "checks.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (tmp_path / "junit.xml").write_text(
        '<testsuites><testsuite><testcase classname="c" name="java"><properties>'
        '<property name="PIP121-R08" value="differs (x); source: the C++ client does; findings: F-121-2"/>'
        '</properties></testcase></testsuite></testsuites>')
    (tmp_path / "deployment.json").write_text(json.dumps({"status": {"pulsar_version": "4.2.4"}}))
    summary = _build(tmp_path, run_id="fair", profile="cluster-migration", pytest_exit=1)
    by_id = {r["id"]: r for r in summary["requirements"]}
    assert by_id["PIP121-R08"]["verdict"] == "differs" and by_id["PIP188-R03"]["verdict"] == "fail"
    assert summary["tests"][0]["requirements"] == [
        {"id": "PIP121-R08", "said": "differs (x); source: the C++ client does; findings: F-121-2"}]
    html = (tmp_path / "report.html").read_text()
    assert '<td class="source source-implementation" data-source-kind="implementation">the C++ client does</td>' in html
    assert '<td class="source source-seed" data-source-kind="seed">the PIP says</td>' in html
    assert '<span class="v v-differs">differs</span>' in html
    # the links point into the bundle's own copy of the findings it cites (issue 51: they work offline)
    assert 'href="findings.html#f-188-4-' in html and 'href="findings.html#f-121-2-' in html
    page = (tmp_path / "findings.html").read_text()
    assert 'id="f-188-4-' in page and 'id="f-121-2-' in page and "ManagedLedgerImpl.ledgerClosed" in page
    assert 'id="hazards"' in html and "advertise green&#39;s brokerServiceUrlTls" in html
