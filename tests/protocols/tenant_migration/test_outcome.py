"""The tenant-migration outcome saved and loaded by the harness, and judged offline from the loaded
copy exactly as from the live one (every row the scenario records)."""
from __future__ import annotations

from pulsar_conformance.conformance.harness import outcome as saved
from pulsar_conformance.conformance.protocols.tenant_migration import judge
from pulsar_conformance.conformance.protocols.tenant_migration.outcome import Outcome, Plan

T = "persistent://t/ns/orders"
NAMES = ("kind", "topic", "cluster", "uid", "msg_id", "ts_ns", "seq")
CLEAN = {"valid": True, "events": 20, "anomalies": {"lost": {"count": 0}, "redelivered_after_ack": {"count": 0}}}


def _outcome(run_dir, delivered_on_b=(3,)) -> Outcome:
    """Five messages on A, 3 a hole; B's markDeletePosition covers 1-2 and delivers ``delivered_on_b``."""
    rows = [("send_ok", T, "blue", f"p/{i}", f"7:{i}:-1:-1", i, i) for i in range(1, 6)]
    rows += [("receive", T, "blue", f"p/{i}", f"7:{i}:-1:-1", 10 + i, i) for i in range(1, 6)]
    rows += [("ack", T, "blue", f"p/{i}", f"7:{i}:-1:-1", 20 + i, i) for i in (1, 2, 4, 5)]
    rows += [("receive", T, "green", f"p/{i}", f"9:{i}:-1:-1", 30 + i, i) for i in delivered_on_b]
    columns = {n: [r[i] for r in rows] for i, n in enumerate(NAMES)}
    a_cursor, b_cursor = {"markDeletePosition": "7:2"}, {"markDeletePosition": "9:2", "caught_up_s": 1.5}
    positions = {f"p/{i}": f"9:{i}:-1:-1" for i in range(1, 6)}
    figures = judge.figures(columns, T, a_cursor, b_cursor, positions)
    progress = [{"ts_ns": 1, "a": "7:2", "b": "9:2", "b_has": "9:5"}]
    return Outcome("holes", run_dir, T, Plan(messages=5, delayed=(3,)), CLEAN, [{"ts_ns": 1, "label": "switch"}],
                   a_cursor, b_cursor, figures, progress, positions, columns)


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
