"""The seed's steps 2 (replication switched on over existing data) and 5 (the clean-up of A) judged
offline on hand-made outcomes, saved and loaded as the live scenarios leave them; each check is
shown failing on a mutant of a passing outcome."""
from __future__ import annotations

import dataclasses

from pulsar_conformance.conformance.harness import outcome as saved
from pulsar_conformance.conformance.protocols.tenant_migration import judge
from pulsar_conformance.conformance.protocols.tenant_migration.outcome import (
    CleanupOutcome,
    CleanupPlan,
    StartOutcome,
    StartPlan,
    UnloadOutcome,
    UnloadPlan,
)

T = "persistent://t/ns/orders"
NAMES = ("kind", "topic", "cluster", "uid", "msg_id", "ts_ns", "seq")
CLEAN = {"valid": True, "events": 20, "anomalies": {"lost": {"count": 0}}}
ADDED = 100  # B added to A's replication clusters at ts 100: p/1..p/6 before, p/7..p/9 after


def _columns(rows):
    return {n: [r[i] for r in rows] for i, n in enumerate(NAMES)}


def _start(tmp_path, start_at="earliest", effective="earliest", on_b=range(1, 10), delivered=range(3, 10),
           present=True, caught_up=1.2) -> StartOutcome:
    """Six messages on A before B was added (p/1, p/2 acknowledged on A), three after."""
    rows = [("send_ok", T, "blue", f"p/{i}", f"7:{i}:-1:-1", i if i <= 6 else ADDED + i, i) for i in range(1, 10)]
    rows += [("ack", T, "blue", f"p/{i}", f"7:{i}:-1:-1", 20 + i, i) for i in (1, 2)]
    rows += [("receive", T, "green", f"p/{i}", f"9:{i}:-1:-1", 200 + i, i) for i in delivered]
    setting = {"asked": start_at, "present": present, "effective": effective if present else None,
               "refused": None if present else "412: Cannot update non-dynamic config"}
    return StartOutcome("existing-data-x", tmp_path, T, StartPlan(start_at=start_at, before=6, acked_before=2, after=3),
                        CLEAN, [], setting, ADDED, {"lastConfirmedEntry": "7:6"}, {"markDeletePosition": "7:0"},
                        caught_up, {"connected": True, "replicationBacklog": 0},
                        {f"p/{i}": f"9:{i}:-1:-1" for i in on_b}, _columns(rows))


def _verdicts(out):
    return {r.check.rsplit("/", 1)[-1]: (r.ok if r.verdict is None else r.verdict) for r in judge.judge_start(out)}


def test_a_start_outcome_round_trips_and_judges_the_same_loaded(tmp_path):
    out = _start(tmp_path)
    saved.save(out, tmp_path)
    loaded = saved.load(StartOutcome, tmp_path, columns=out.columns)
    assert loaded == out and judge.judge_start(loaded) == judge.judge_start(out)


def test_earliest_passes_when_b_gets_everything_and_the_consumer_on_b_all_a_had_not_consumed(tmp_path):
    out = _start(tmp_path)
    assert _verdicts(out) == {"start-as-configured": True, "existing-backlog-on-b": True}
    f = judge.start_figures(out)
    assert (f["reached"], f["unconsumed_before"], f["acked_delivered_again_on_b"]) == ("all", 4, 0)


def test_earliest_that_starts_at_latest_fails_both(tmp_path):
    """4.0.1's bug: 'earliest' asked and reported, B gets only what came after."""
    out = _start(tmp_path, on_b=range(7, 10), delivered=range(7, 10))
    assert _verdicts(out) == {"start-as-configured": False, "existing-backlog-on-b": False}
    assert judge.start_figures(out)["unconsumed_missed_on_b"] == 4


def test_default_judges_only_later_and_not_the_seed_promise(tmp_path):
    """The default starts at latest, as documented: only the setting's check, which fails if old data came."""
    out = _start(tmp_path, start_at="", effective="latest", on_b=range(7, 10), delivered=range(7, 10))
    assert _verdicts(out) == {"start-as-configured": True}
    assert judge.start_figures(out)["reached"] == "only later"
    mutant = _start(tmp_path, start_at="", effective="latest", on_b=range(5, 10), delivered=range(7, 10))
    assert _verdicts(mutant) == {"start-as-configured": False}


def test_a_consumer_on_b_missing_an_unconsumed_message_fails_though_b_stored_it(tmp_path):
    out = _start(tmp_path, delivered=[3, 4, 6, 7, 8, 9])  # p/5 stored on B, never delivered there
    assert _verdicts(out) == {"start-as-configured": True, "existing-backlog-on-b": False}


def test_messageid_earliest_is_judged_as_earliest_and_an_unnamed_value_is_unknown(tmp_path):
    assert _verdicts(_start(tmp_path, start_at="-1:-1:-1", effective="-1:-1:-1"))["start-as-configured"] is True
    assert _verdicts(_start(tmp_path, start_at="x", effective="3:4"))["start-as-configured"] is None


def test_a_release_without_the_setting_is_not_applicable_and_no_catch_up_is_unknown(tmp_path):
    assert set(_verdicts(_start(tmp_path, present=False)).values()) == {"not applicable"}
    assert set(_verdicts(_start(tmp_path, caught_up=None)).values()) == {None}


def _cleanup(tmp_path, gone=True, after=None, cursor_after=None, delivered=(7, 8, 9, 10)) -> CleanupOutcome:
    """Ten messages on A, the first six acknowledged; B holds all ten at 9:1..9:10, markDelete 9:6."""
    rows = [("send_ok", T, "blue", f"p/{i}", f"7:{i}:-1:-1", i, i) for i in range(1, 11)]
    rows += [("ack", T, "blue", f"p/{i}", f"7:{i}:-1:-1", 20 + i, i) for i in range(1, 7)]
    rows += [("receive", T, "green", f"p/{i}", f"9:{i}:-1:-1", 200 + i, i) for i in delivered]
    before = {f"p/{i}": f"9:{i}:-1:-1" for i in range(1, 11)}
    cursor = {"markDeletePosition": "9:6", "individuallyDeletedMessages": "[]"}
    steps = [{"step": "B: replication clusters [B]", "ts_ns": 50, "answer": "ok"},
             {"step": "A: topic deleted (force)", "ts_ns": 60, "answer": "ok"}]
    return CleanupOutcome("clean-up", tmp_path, T, CleanupPlan(messages=10, acked=6), CLEAN, [], steps, gone,
                          cursor, cursor_after or dict(cursor), before, before if after is None else after,
                          _columns(rows))


def _cleaned(out):
    return {r.check.rsplit("/", 1)[-1]: r.ok for r in judge.judge_cleanup(out)}


def test_a_cleanup_outcome_round_trips_and_a_clean_one_passes(tmp_path):
    out = _cleanup(tmp_path)
    saved.save(out, tmp_path)
    loaded = saved.load(CleanupOutcome, tmp_path, columns=out.columns)
    assert loaded == out and judge.judge_cleanup(loaded) == judge.judge_cleanup(out)
    assert _cleaned(out) == {"nothing-lost": True, "b-keeps-every-message": True, "b-cursor-kept": True,
                             "unacked-delivered-after-cleanup": True}


def test_each_cleanup_check_fails_on_its_mutant(tmp_path):
    out = _cleanup(tmp_path)
    lost = dataclasses.replace(out, b_after={u: p for u, p in out.b_after.items() if u != "p/3"})
    assert _cleaned(lost)["b-keeps-every-message"] is False
    moved = dataclasses.replace(out, b_after=out.b_after | {"p/3": "11:0:-1:-1"})
    assert _cleaned(moved)["b-keeps-every-message"] is False
    rewound = dataclasses.replace(out, b_cursor_after={"markDeletePosition": "9:-1", "individuallyDeletedMessages": "[]"})
    assert _cleaned(rewound)["b-cursor-kept"] is False
    skipped = _cleanup(tmp_path, delivered=(7, 8, 10))
    assert _cleaned(skipped)["unacked-delivered-after-cleanup"] is False


def test_a_cleanup_that_did_not_complete_judges_nothing(tmp_path):
    assert set(_cleaned(_cleanup(tmp_path, gone=False)).values()) == {None}


def _unloaded(tmp_path, dedup=True, stored=None, answers=("ok", "ok"), caught_up=2.5) -> UnloadOutcome:
    """Five sends acknowledged on A; B holds ``stored`` (uids, in B's order; default each once)."""
    rows = [("send_ok", T, "blue", f"p/{i}", f"7:{i}:-1:-1", i, i) for i in range(1, 6)]
    stored = [f"p/{i}" for i in range(1, 6)] if stored is None else stored
    unload_rows = [{"cluster": c, "ts_ns": 3, "answer": a, "backlog": 40} for c, a in zip(("blue", "green"), answers, strict=True)]
    return UnloadOutcome("unloads", tmp_path, T, UnloadPlan(producers=3, dedup=dedup), CLEAN, [], unload_rows,
                         {"replicationProducerQueueSize": "2"}, caught_up, {"replicationBacklog": 0},
                         [[u, f"9:{n}:-1:-1"] for n, u in enumerate(stored)], _columns(rows))


def _unload_verdicts(out):
    return {r.check.rsplit("/", 1)[-1]: r.ok for r in judge.judge_unloads(out)}


def test_an_unload_outcome_round_trips_and_a_clean_one_passes(tmp_path):
    out = _unloaded(tmp_path)
    saved.save(out, tmp_path)
    loaded = saved.load(UnloadOutcome, tmp_path, columns=out.columns)
    assert loaded == out and judge.judge_unloads(loaded) == judge.judge_unloads(out)
    assert _unload_verdicts(out) == {"nothing-lost": True, "acked-on-a-stored-on-b": True, "stored-once-on-b": True}
    # Spark found an acknowledged send the subscription on B never received
    spark = dataclasses.replace(out, verdict={"valid": False, "events": 9, "anomalies": {"lost": {"count": 1}}})
    assert _unload_verdicts(spark)["nothing-lost"] is False


def test_each_unload_check_fails_on_its_mutant(tmp_path):
    # a send A acknowledged that B never got (the V1 deduplication loss of PR #23697)
    assert _unload_verdicts(_unloaded(tmp_path, stored=["p/1", "p/2", "p/4", "p/5"]))["acked-on-a-stored-on-b"] is False
    # stored twice with deduplication on: over the bound (0)
    twice = _unloaded(tmp_path, stored=["p/1", "p/2", "p/3", "p/3", "p/4", "p/5"])
    assert _unload_verdicts(twice)["stored-once-on-b"] is False
    # without deduplication the bound is the queue size (2 here) per unload (2): 4 extra copies pass, 5 fail
    extra4 = ["p/1", "p/2", "p/3", "p/4", "p/5", "p/2", "p/3", "p/4", "p/5"]
    assert _unload_verdicts(_unloaded(tmp_path, dedup=False, stored=extra4))["stored-once-on-b"] is True
    assert _unload_verdicts(_unloaded(tmp_path, dedup=False, stored=extra4 + ["p/1"]))["stored-once-on-b"] is False


def test_a_refused_unload_or_no_catch_up_judges_nothing(tmp_path):
    assert set(_unload_verdicts(_unloaded(tmp_path, answers=("ok", "refused 403: x"))).values()) == {None}
    assert set(_unload_verdicts(_unloaded(tmp_path, caught_up=None)).values()) == {None}
