"""The tenant-migration verdicts on hand-made histories: a clean switch, the duplicates split by
cause, and a run in which B lost an unacknowledged message (it must fail)."""
from __future__ import annotations

from pulsar_conformance.conformance.protocols.tenant_migration import judge

T = "persistent://t/ns/orders"
NAMES = ("kind", "topic", "cluster", "uid", "msg_id", "ts_ns")
CLEAN = {"valid": True, "events": 1, "anomalies": {"lost": {"count": 0}, "redelivered_after_ack": {"count": 0}}}


def _columns(rows):
    return {n: [r[i] for r in rows] for i, n in enumerate(NAMES)}


def _history(acked_on_a, delivered_on_b):
    """Five messages p/1..p/5 on A at entries 1..5 of ledger 7; B delivers ``delivered_on_b``."""
    rows = [("send_ok", T, "blue", f"p/{i}", f"7:{i}:-1:-1", i) for i in range(1, 6)]
    rows += [("receive", T, "blue", f"p/{i}", f"7:{i}:-1:-1", 10 + i) for i in range(1, 6)]
    rows += [("ack", T, "blue", f"p/{i}", f"7:{i}:-1:-1", 20 + i) for i in acked_on_a]
    rows += [("receive", T, "green", f"p/{i}", f"9:{i}:-1:-1", 30 + i) for i in delivered_on_b]
    return _columns(rows)


def _verdicts(columns, a_md, b_md):
    f = judge.figures(columns, T, {"markDeletePosition": a_md}, {"markDeletePosition": b_md})
    return f, {check: ok for check, ok, _ in judge.judge(f, CLEAN)}


def test_duplicates_split_into_ack_holes_and_snapshot_lag():
    # acked 1, 2, 4, 5 (a hole at 3): A's markDelete 7:2; B's lagged at 7:1's counterpart
    f, v = _verdicts(_history([1, 2, 4, 5], [2, 3, 4, 5]), "7:2", "9:1")
    assert (f.holes, f.duplicates, f.past_a_markdelete, f.snapshot_lag, f.unacked_missing_on_b) == (1, 3, 2, 1, 0)
    assert v == {"nothing-lost": True, "unacked-delivered-on-b": True, "duplicates-after-switch": False}


def test_a_clean_switch_passes_and_a_switch_without_holes_leaves_r02_unknown():
    f, v = _verdicts(_history([1, 2, 4, 5], [3]), "7:2", "9:5")
    assert f.duplicates == 0 and all(v.values())
    # nothing left unacknowledged and nothing delivered on B: R02 was not exercised
    _, v = _verdicts(_history([1, 2, 3, 4, 5], []), "7:5", "9:5")
    assert v["unacked-delivered-on-b"] is None and v["duplicates-after-switch"] is True


def test_b_losing_an_unacknowledged_message_fails():
    # the hole at 3 is never delivered on B (skipped): lost to the application
    f, v = _verdicts(_history([1, 2, 4, 5], [4, 5]), "7:2", "9:2")
    assert f.unacked_missing_on_b == 1 and v["unacked-delivered-on-b"] is False


def test_when_b_settled_is_the_first_time_it_reached_its_final_position_for_good():
    from pulsar_conformance.conformance.protocols.tenant_migration.scenario import _settled_after

    series = [{"ts_ns": t * 10**9, "b": b} for t, b in [(1, "5:-1"), (2, "5:40"), (3, "5:-1"), (4, "5:80"), (5, "5:80")]]
    assert _settled_after(series, "b", "5:80", 0) == 4.0
    assert _settled_after(series, "b", "5:99", 0) is None
