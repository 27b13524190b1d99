"""The tenant-migration outcome saved and loaded by the harness, and judged offline from the loaded
copy exactly as from the live one (every row the scenario records)."""
from __future__ import annotations

from pulsar_conformance.conformance.harness import outcome as saved
from pulsar_conformance.conformance.protocols.tenant_migration import judge
from pulsar_conformance.conformance.protocols.tenant_migration.outcome import Outcome, Plan

from .made_outcomes import holes

CLEAN = {"valid": True, "events": 20, "anomalies": {"lost": {"count": 0}, "redelivered_after_ack": {"count": 0}}}


def _outcome(run_dir, delivered_on_b=(3,)) -> Outcome:
    """Five messages on A, 3 a hole; B's markDeletePosition covers 1-2 and delivers ``delivered_on_b``."""
    return holes(run_dir, delivered_on_b, Plan(messages=5, delayed=(3,)), CLEAN)


def test_the_outcome_round_trips(tmp_path):
    out = _outcome(tmp_path)
    saved.save(out, tmp_path)
    assert saved.load(Outcome, tmp_path, columns=out.columns) == out
    assert saved.load(Outcome, tmp_path).columns["kind"] == []  # no capture files here: no rows


def test_the_judge_runs_on_a_loaded_outcome(tmp_path):
    live = _outcome(tmp_path, delivered_on_b=(3, 4, 5))
    saved.save(live, tmp_path)
    rows = judge.judge(saved.load(Outcome, tmp_path, columns=live.columns))
    assert rows == judge.judge(live)
    verdicts = {r.check.rsplit("/", 1)[-1]: r.ok for r in rows}
    assert verdicts == {"nothing-lost": True, "unacked-delivered-on-b": True, "duplicates-after-switch": False,
                        "duplicates-within-spec-bound": True, "markdelete-within-replicated": True, "trace": True}


def test_a_hole_b_never_delivered_fails_on_the_loaded_outcome(tmp_path):
    live = _outcome(tmp_path, delivered_on_b=(4, 5))
    saved.save(live, tmp_path)
    rows = {r.check.rsplit("/", 1)[-1]: r.ok for r in judge.judge(saved.load(Outcome, tmp_path, columns=live.columns))}
    assert rows["unacked-delivered-on-b"] is False
