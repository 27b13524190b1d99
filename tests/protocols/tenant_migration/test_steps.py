"""The seed's steps 2 (replication switched on over existing data), 4 (unloads or restarts at the
switch; a message TTL while B is unreachable) and 5 (the clean-up of A) judged offline on hand-made
outcomes, saved and loaded as the live scenarios leave them; each check is
shown failing on a mutant of a passing outcome."""
from __future__ import annotations

import dataclasses
from types import SimpleNamespace

from pulsar_conformance.conformance.harness import outcome as saved
from pulsar_conformance.conformance.protocols.tenant_migration import judge
from pulsar_conformance.conformance.protocols.tenant_migration.outcome import (
    CleanupOutcome,
    CleanupPlan,
    StartOutcome,
    StartPlan,
    TtlOutcome,
    TtlPlan,
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


def test_earliest_that_starts_at_latest_fails_r08_and_leaves_r07_to_the_value_the_release_takes(tmp_path):
    """4.0.1's bug: 'earliest' asked and reported, B gets only what came after. Issue 47: that is TM-R08's
    failure (the documented value), one event; TM-R07 asks for the setting the release provides, which there
    is -1:-1:-1, judged by its own run: this run's TM-R07 row is not applicable (it was a second fail)."""
    out = _start(tmp_path, on_b=range(7, 10), delivered=range(7, 10))
    assert _verdicts(out) == {"start-as-configured": False, "existing-backlog-on-b": "not applicable"}
    assert judge.start_figures(out)["unconsumed_missed_on_b"] == 4
    configured, existing = judge.judge_start(out)
    assert configured.details["event"] == existing.details["event"] == (
        "tenant-migration/existing-data-x/documented-earliest-started-at-latest")
    assert existing.details["same_event_as"] == "tenant-migration/existing-data-x/start-as-configured (TM-R08)"
    assert existing.evidence.startswith("the same event as tenant-migration/existing-data-x/start-as-configured (TM-R08)")
    assert "here -1:-1:-1" in existing.evidence and "judged by the run that sets it" in existing.evidence
    # the value the release takes failing the same way is TM-R07's own failure
    accepted = _start(tmp_path, start_at="-1:-1:-1", effective="-1:-1:-1", on_b=range(7, 10), delivered=range(7, 10))
    assert _verdicts(accepted) == {"start-as-configured": False, "existing-backlog-on-b": False}
    # 'earliest' that brought part of the existing data is no value taken as latest: both judged
    partial = _start(tmp_path, on_b=[5, 6, 7, 8, 9], delivered=[5, 6, 7, 8, 9])
    assert _verdicts(partial) == {"start-as-configured": False, "existing-backlog-on-b": False}


def test_tm_r07_passes_on_a_release_that_takes_only_messageid_earliest(tmp_path):
    """3.0.7, 3.3.2, 4.0.0-4.0.1 as the sweeps recorded them: `earliest` starts at latest, -1:-1:-1 migrates
    everything. Recorded through the recorder and read as the report does, TM-R07 passes by the run with the
    value the release takes (it failed, by the `earliest` run, before issue 47) and TM-R08 fails."""
    from pulsar_conformance.conformance.harness.recorder import Recorder
    from pulsar_conformance.conformance.protocols.tenant_migration.checks import CHECKS
    from pulsar_conformance.conformance.run import CertifyRun
    from pulsar_conformance.reports.bundle.verdicts import load_checks, load_requirements, requirement_rows

    run = CertifyRun(out=tmp_path, profile="tenant-migration", seed=1)
    node = SimpleNamespace(nodeid="t::test", user_properties=[])
    for name, start_at, on_b in (("existing-data-earliest", "earliest", range(7, 10)),
                                 ("existing-data-messageid-earliest", "-1:-1:-1", range(1, 10))):
        out = dataclasses.replace(_start(tmp_path / name, start_at=start_at, effective=start_at, on_b=on_b,
                                         delivered=[i for i in on_b if i > 2]), name=name)
        Recorder(run, SimpleNamespace(node=node), out, CHECKS).record(judge.judge_start(out))
    rows = {r["id"]: r for r in requirement_rows(load_requirements(), load_checks(tmp_path))}
    assert rows["TM-R07"]["verdict"] == "pass", rows["TM-R07"]["evidence"]
    assert rows["TM-R08"]["verdict"] == "fail"


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
    # A refused to show its configuration: that says nothing of the setting, so nothing is judged
    assert set(_verdicts(_start(tmp_path, present=None)).values()) == {None}
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


def _restarted(tmp_path, stored, a_stored, answers=("ok", "ok")) -> UnloadOutcome:
    out = _unloaded(tmp_path, stored=stored, answers=answers)
    plan = UnloadPlan(producers=3, dedup=True, switch="restart", retain_on_a=True)
    restarts = [dict(u, took_s=21.5) for u in out.unloads]
    return dataclasses.replace(out, name="restarts", plan=plan, unloads=restarts,
                               a_stored=None if a_stored is None else [[u, f"7:{n}:-1:-1"] for n, u in enumerate(a_stored)])


def test_a_restart_outcome_round_trips_and_a_copy_a_stored_itself_is_not_charged_to_replication(tmp_path):
    five = [f"p/{i}" for i in range(1, 6)]
    out = _restarted(tmp_path, five, five)
    saved.save(out, tmp_path)
    loaded = saved.load(UnloadOutcome, tmp_path, columns=out.columns)
    assert loaded == out and loaded.a_stored == out.a_stored and loaded.plan.switch == "restart"
    assert _unload_verdicts(out) == {"nothing-lost": True, "acked-on-a-stored-on-b": True, "stored-once-on-b": True}
    # p/3 twice on B, and twice on A: the producer's resend over A's restart, replicated as A stored it
    both = _restarted(tmp_path, five + ["p/3"], five + ["p/3"])
    assert _unload_verdicts(both)["stored-once-on-b"] is True
    assert "1 of the extra copies A itself stored twice" in judge.judge_unloads(both)[-1].evidence
    # twice on B but once on A: a copy replication made, over the bound (0) with deduplication on
    assert _unload_verdicts(_restarted(tmp_path, five + ["p/3"], five))["stored-once-on-b"] is False
    # A not read (an unload outcome of before): every extra copy is replication's, as it was judged then
    assert _unload_verdicts(_restarted(tmp_path, five + ["p/3"], None))["stored-once-on-b"] is False


def test_a_failed_restart_judges_nothing_and_says_so(tmp_path):
    five = [f"p/{i}" for i in range(1, 6)]
    rows = judge.judge_unloads(_restarted(tmp_path, five, five, answers=("ok", "failed: RuntimeError: not ready")))
    assert {r.ok for r in rows} == {None} and all("a restart failed" in r.evidence for r in rows)


def test_a_plan_refuses_an_unknown_switch():
    try:
        UnloadPlan(switch="reboot")
    except ValueError as error:
        assert "unload, restart" in str(error)
    else:
        raise AssertionError("an unknown switch was accepted")


CUT, HEALED, CAUGHT_UP = 1_000 * 10**9, 1_012 * 10**9, 1_014 * 10**9  # the outage 12 s, B caught up 2 s later


def _ttl(tmp_path, on_b=None, effective=8, caught_up=CAUGHT_UP) -> TtlOutcome:
    """p/1..p/3 sent right after the cut (older than the 8 s TTL at the heal), p/4..p/6 in the outage's
    last second (younger than it when B caught up); A's consumer received them all."""
    times = {1: CUT + 10**8, 2: CUT + 2 * 10**8, 3: CUT + 3 * 10**8,
             4: HEALED - 3 * 10**8, 5: HEALED - 2 * 10**8, 6: HEALED - 10**8}
    rows = [("send_ok", T, "blue", f"p/{i}", f"7:{i}:-1:-1", t, i) for i, t in times.items()]
    rows += [("receive", T, "blue", f"p/{i}", f"7:{i}:-1:-1", t + 10**6, i) for i, t in times.items()]
    on_b = range(1, 7) if on_b is None else on_b
    return TtlOutcome("message-ttl-b-unreachable", tmp_path, T, TtlPlan(ttl_s=8), CLEAN, [],
                      {"asked": 8, "effective": effective}, CUT, HEALED, caught_up,
                      {"connected": True, "replicationBacklog": 0},
                      [[f"p/{i}", f"9:{i}:-1:-1"] for i in on_b], _columns(rows))


def _ttl_verdicts(out):
    return {r.check.rsplit("/", 1)[-1]: r.ok for r in judge.judge_ttl(out)}


def test_a_ttl_outcome_round_trips_and_everything_on_b_passes(tmp_path):
    out = _ttl(tmp_path)
    saved.save(out, tmp_path)
    loaded = saved.load(TtlOutcome, tmp_path, columns=out.columns)
    assert loaded == out and judge.judge_ttl(loaded) == judge.judge_ttl(out)
    assert _ttl_verdicts(out) == {"nothing-lost": True, "unexpired-on-b": True}
    f = judge.ttl_figures(out)
    assert (f["old"], f["young"], f["neither"], f["outage_s"], f["caught_up_s"]) == (3, 3, 0, 12.0, 2.0)


def test_the_ttl_expiring_the_old_batch_is_a_configuration_hazard_with_its_cost_not_a_verdict(tmp_path):
    """What Pulsar's TTL does to a replication backlog by design (apache/pulsar#23975): the old batch never
    reaches B. Issue 47: TM-R11 failed it (and passed the releases with the #21865 regression); now no row judges
    those sends, every row of the scenario carries the hazard with its fix and how many the TTL dropped."""
    from pulsar_conformance.conformance.protocols.tenant_migration.checks import CHECKS

    rows = judge.judge_ttl(_ttl(tmp_path, on_b=range(4, 7)))
    assert {r.check.rsplit("/", 1)[-1]: r.ok for r in rows} == {"nothing-lost": True, "unexpired-on-b": True}
    assert all("TM-R11" not in CHECKS.requirements(r.check) for r in rows)
    for r in rows:
        (hazard,) = r.details["hazard"]
        assert hazard["name"] == judge.TTL_HAZARD.name and "TTL off, or above the longest outage" in hazard["fix"]
        assert "B holds 0 of them, 3 dropped from A's replication backlog to B" in hazard["observed"]
    # a release whose TTL left the backlog alone (3.0.3-3.3.5, 4.0.0-4.0.3) is not ranked above it: same rows
    kept = judge.judge_ttl(_ttl(tmp_path))
    assert [r.ok for r in kept] == [r.ok for r in rows]
    assert "0 dropped" in kept[-1].details["hazard"][0]["observed"]


def test_the_ttl_hazard_reaches_the_report_and_tm_r11_is_judged_by_nothing(tmp_path):
    """Recorded and read as the report does: TM-R11 gets no verdict (it failed on 4.2.4 before issue 47),
    TM-R01 keeps its pass, and the hazard with its fix is listed for the run."""
    from pulsar_conformance.conformance.harness.recorder import Recorder
    from pulsar_conformance.conformance.protocols.tenant_migration.checks import CHECKS
    from pulsar_conformance.conformance.run import CertifyRun
    from pulsar_conformance.reports.bundle.verdicts import (
        load_checks,
        load_requirements,
        requirement_rows,
        run_hazards,
    )

    run = CertifyRun(out=tmp_path, profile="tenant-migration", seed=1)
    node = SimpleNamespace(nodeid="t::test", user_properties=[])
    out = _ttl(tmp_path / "ttl", on_b=range(4, 7))
    rec = Recorder(run, SimpleNamespace(node=node), out, CHECKS)
    rec.record(judge.judge_ttl(out))
    rec.finish()  # nothing failed, nothing unknown
    rows = {r["id"]: r for r in requirement_rows(load_requirements(), load_checks(tmp_path))}
    assert rows["TM-R11"]["verdict"] == "uncovered" and "Retired (issue 47)" in rows["TM-R11"]["uncovered_reason"]
    assert rows["TM-R01"]["verdict"] == "pass"
    (hazard,) = run_hazards(list(rows.values()))
    assert hazard["name"] == judge.TTL_HAZARD.name and hazard["touched"] == ["TM-R01"]


def test_a_young_send_missing_on_b_fails_the_must(tmp_path):
    # a send younger than the TTL all along: nothing the TTL does explains its absence
    assert _ttl_verdicts(_ttl(tmp_path, on_b=(1, 2, 3, 4, 6)))["unexpired-on-b"] is False


def test_a_ttl_not_taken_or_no_catch_up_judges_nothing(tmp_path):
    assert set(_ttl_verdicts(_ttl(tmp_path, effective=None)).values()) == {None}
    assert set(_ttl_verdicts(_ttl(tmp_path, caught_up=None)).values()) == {None}


def test_sends_the_ttl_boundary_leaves_open_are_judged_by_neither(tmp_path):
    # B caught up 9 s after the heal: the last batch was then older than the TTL too (within the send
    # latency allowed), so no send is young, and the MUST is not judged on this run
    late = _ttl(tmp_path, on_b=range(4, 7), caught_up=HEALED + 9 * 10**9)
    rows = {r.check.rsplit("/", 1)[-1]: r for r in judge.judge_ttl(late)}
    assert rows["unexpired-on-b"].ok is None and "no send was younger" in rows["unexpired-on-b"].evidence
    assert judge.ttl_figures(late)["neither"] == 3
