"""The geo-replication outcome saved and loaded by the harness, and judged offline from the
loaded copy exactly as from the live one."""
from __future__ import annotations

from pathlib import Path

from pulsar_conformance.conformance.harness import outcome as saved
from pulsar_conformance.conformance.protocols.geo_replication import judge
from pulsar_conformance.conformance.protocols.geo_replication.outcome import Outage, Outcome


def _outcome(run_dir: Path, *, valid=True, lost=0, reached=True) -> Outcome:
    verdict = {"valid": valid, "events": 36, "anomalies": {"lost": {"count": lost, "examples": []},
                                                           "duplicate": {"count": 0, "examples": []}}}
    return Outcome(run_dir, verdict, Outage(reached, "green received nothing while the link was cut"),
                   ["Timeout"], [{"ts_ns": 1, "label": "replication cut blue<->green"}],
                   {"audit-blue": 18, "billing-green": 18 - lost})


def test_the_outcome_round_trips(tmp_path):
    out = _outcome(tmp_path)
    saved.save(out, tmp_path)
    assert saved.load(Outcome, tmp_path, columns=out.columns) == out
    assert saved.load(Outcome, tmp_path).columns["kind"] == []  # no capture files here: no rows


def test_the_judge_runs_on_a_loaded_outcome(tmp_path):
    saved.save(_outcome(tmp_path, valid=False, lost=10), tmp_path)
    blue_to_green, after_outage = judge.judge(saved.load(Outcome, tmp_path))
    assert blue_to_green.check == "geo-replication/blue-to-green" and blue_to_green.ok is False
    assert "lost=10" in blue_to_green.evidence and "billing-green 8" in blue_to_green.evidence
    assert after_outage.ok is False and blue_to_green.details["send_failures"] == ["Timeout"]


def test_an_outage_not_reached_judges_nothing_after_it(tmp_path):
    blue_to_green, after_outage = judge.judge(_outcome(tmp_path, reached=False))
    assert blue_to_green.ok is True and after_outage.ok is None


def test_an_explored_schedules_rows_carry_its_name_so_a_bundles_schedules_stay_apart(tmp_path):
    from pulsar_conformance.conformance.protocols.geo_replication.checks import CHECKS
    from pulsar_conformance.reports.bundle.events import count_failing_events

    rows = [r for name in ("x0001", "x0002") for r in judge.judge(
        saved.load(Outcome, _saved(tmp_path / name, name)))]
    assert [r.check for r in rows] == ["geo-replication/x0001/blue-to-green", "geo-replication/x0001/after-outage",
                                       "geo-replication/x0002/blue-to-green", "geo-replication/x0002/after-outage"]
    assert [CHECKS.requirements(r.check) for r in rows] == [["GEO-R01"], ["GEO-R02"]] * 2
    # two schedules that failed are two failing events, not one (before, both were geo-replication/blue-to-green)
    failing = [{"check": r.check, "verdict": "fail", "requirements": CHECKS.requirements(r.check)} for r in rows]
    assert count_failing_events(failing) == 4


def _saved(run_dir: Path, name: str) -> Path:
    run_dir.mkdir()
    out = _outcome(run_dir, valid=False, lost=1)
    out.name = name
    saved.save(out, run_dir)
    return run_dir


def test_a_send_acknowledged_as_a_duplicate_is_named_in_the_evidence(tmp_path):
    """F-GEO-1: the C++ client reused a sequence id after a reconnect, and deduplication acked a new send -1:-1."""
    out = _outcome(tmp_path, valid=False, lost=1)
    out.columns = {"kind": ["send_ok", "send_ok", "receive"], "msg_id": ["6:0:-1:-1", "-1:-1:-1:-1", "6:0:-1:-1"]}
    blue_to_green, _ = judge.judge(out)
    assert blue_to_green.ok is False and blue_to_green.details["duplicate_acks"] == 1
    assert "1 send(s) acknowledged as a duplicate (message id -1:-1)" in blue_to_green.evidence
    assert judge.judge(_outcome(tmp_path))[0].details["duplicate_acks"] == 0
