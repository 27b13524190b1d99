"""The adapter of ``explore --live policy-sync`` offline (conformance/protocols/policy_sync/explore.py): which
tester steps the spec lets it take, how a schedule is closed out, the Outcome it builds from what a
schedule saw and the real judge's rows over it, and its Session driven through every step on a fake
deployment. The fake's "sync" lets the last event delivered win, so a held link makes it diverge: a
defect put there on purpose, so that a schedule is seen failing as well as passing. No verdict on
Pulsar comes from here; the live run is the lead's (`explore --live policy-sync`)."""
from __future__ import annotations

import time
from dataclasses import replace
from pathlib import Path

import pytest

from pulsar_conformance.conformance.explore import results
from pulsar_conformance.conformance.explore.machine import Explorer, Settings
from pulsar_conformance.conformance.explore.model import Tracker
from pulsar_conformance.conformance.explore.schedule import Step
from pulsar_conformance.conformance.protocols.policy_sync import explore, judge
from pulsar_conformance.conformance.protocols.policy_sync.outcome import Event, Policy
from pulsar_conformance.conformance.protocols.policy_sync.outcome import Step as Done
from pulsar_conformance.fixtures.deploy import clocks
from pulsar_conformance.fixtures.deploy.admin import Admin, AdminError
from pulsar_conformance.fixtures.deploy.metadata_sync import SUBSCRIPTION, TOPIC

ROLES = ["alpha", "bravo", "charlie"]
EVERYTHING = frozenset({"cut-one-way", "clock", "restart"})


def _tracker(capabilities=EVERYTHING) -> Tracker:
    return Tracker(explore.spec(), explore.VOCABULARY.usable(capabilities))


def _labels(tracker) -> list[str]:
    return [s.label() for s in tracker.choices()]


def _take(tracker, *labels) -> None:
    for label in labels:
        step = next(s for s in tracker.choices() if s.label() == label)
        tracker.take(step)


# ----- the vocabulary, from the spec
def test_the_tester_performs_the_specs_writes_and_pulsar_delivers():
    spec = explore.spec()
    actions = {g.decl.name for g in spec.ground_actions}
    assert set(explore.VOCABULARY.operations) == {"put", "delete", "clock_tick"} <= actions
    assert explore.VOCABULARY.eventually == ("deliver",) and "deliver" not in explore.VOCABULARY.operations
    assert spec.variant == "as-proposed-raw-clock" and spec.CLUSTERS == 3
    # at the start: a write at any cluster, and every fault that can be taken with nothing moved yet
    assert _labels(_tracker()) == ["put(c=0)", "put(c=1)", "put(c=2)", "hold-a", "hold-b", "hold-c", "freeze",
                                   "skew-a", "skew-b", "skew-c", "restart-a", "restart-b", "restart-c", "settle"]


def test_a_delete_only_where_the_spec_allows_and_pulsar_can():
    t = _tracker()
    assert not any(s.action == "delete" for s in t.choices())  # nothing to delete yet (the spec's guard)
    _take(t, "put(c=1)")
    # the spec would let b delete (it holds a value, and a and c once the event is delivered), but Pulsar
    # deletes a namespace only at its one replication cluster: a
    assert [s.label() for s in t.choices() if s.action == "delete"] == ["delete(c=0)"]


def test_clock_ticks_only_while_the_clocks_stand_still():
    t = _tracker()
    assert not any(s.action == "clock_tick" for s in t.choices())
    _take(t, "freeze")
    assert {"clock_tick(c=0)", "clock_tick(c=1)", "clock_tick(c=2)", "thaw"} <= set(_labels(t))
    assert not {"freeze", "skew-a"} & set(_labels(t))  # one clock fault at a time
    _take(t, "clock_tick(c=0)", "clock_tick(c=0)")
    assert t.state.clock[0] == explore.MAX_CLOCK and "clock_tick(c=0)" not in _labels(t)  # the spec's bound
    _take(t, "thaw")
    assert "clock_tick(c=1)" not in _labels(t) and "freeze" in _labels(t)


def test_holds_releases_restarts_and_settles():
    t = _tracker()
    _take(t, "hold-a")
    assert "release-a" in _labels(t) and "hold-a" not in _labels(t)
    assert "settle" not in _labels(t)  # it would wait for what the held link holds back
    # a held link holds Pulsar's deliveries back: a's write stays at a in the spec's state
    _take(t, "put(c=0)")
    assert t.saturated().value == (1, 0, 0)
    _take(t, "release-a")
    assert t.saturated().value == (1, 1, 1) and "settle" in _labels(t)
    _take(t, "restart-b")
    assert not any(s.action.startswith("restart-") for s in t.choices())  # one restart per schedule


def test_without_a_capability_its_faults_are_not_generated_and_are_said():
    local_without_clocks = frozenset({"kill", "stop", "start", "restart", "pause", "resume", "cut", "cut-one-way",
                                      "cut-client"})
    labels = _labels(_tracker(local_without_clocks))
    assert not {"freeze", "skew-a", "thaw"} & set(labels) and "hold-a" in labels and "restart-a" in labels
    assert explore.VOCABULARY.missing(local_without_clocks) == [
        "freeze (needs clock)", "skew-a (needs clock)", "skew-b (needs clock)", "skew-c (needs clock)",
        "thaw (needs clock)"]
    # an external deployment that declares nothing: writes, deletes and settles alone
    assert _labels(_tracker(frozenset())) == ["put(c=0)", "put(c=1)", "put(c=2)", "settle"]


# ----- the closing steps
def test_closing_releases_every_held_link_thaws_the_clocks_and_settles():
    assert explore.closing_steps(frozenset()) == [Step("settle", "fault")]
    assert explore.closing_steps(frozenset({"hold-c", "hold-a", "skew-b", "restarted"})) == [
        Step("release-a", "fault"), Step("release-c", "fault"), Step("thaw", "fault"), Step("settle", "fault")]
    t = _tracker()
    _take(t, "hold-b", "freeze", "put(c=1)", "clock_tick(c=2)")
    for step in explore.closing_steps(t.active):
        t.take(step)
    assert t.active == frozenset()  # nothing left held or frozen


# ----- the outcome from what a schedule saw, judged by the real judge
def _event(value, ts, source, kind="Modified", index=0):
    return Event(index=index, path="/admin/policies/t/pol", kind=kind, value=value, ts=ts, source=source,
                 expected_version=None)


def _seen(final, consumed, steps=(), results_=(), quiesced=True, froze=False) -> explore.Observed:
    return explore.Observed(steps=list(steps), results=list(results_), final=dict(final), quiesced=quiesced,
                            events=consumed, series={c: [(1, v)] for c, v in final.items()}, froze=froze)


def _rows(seen) -> dict[str, object]:
    out = explore.outcome_of("x0001", Path("/tmp/x0001"), ROLES, {r: r for r in ROLES}, Policy("t", "pol"), seen,
                             [{"ts_ns": 0, "label": "namespace on every cluster"}])
    return {r.check.rsplit("/", 1)[1]: r for r in judge.judge(out)}


A1, A2 = _event(1, 100, "alpha"), _event(2, 200, "alpha")
WRITES = [Done("write", cluster="alpha", value=1), Done("write", cluster="alpha", value=2)]
OK = [{"step": "w", "ok": True, "at_ns": 1}, {"step": "w", "ok": True, "at_ns": 2}]


def test_a_held_link_that_splits_the_clusters_fails_r01_and_r02():
    # alpha wrote 1 then 2 while its links were held; bravo and charlie kept 1 (F-136-5's shape)
    rows = _rows(_seen({"alpha": 2, "bravo": 1, "charlie": 1},
                       {"alpha": [A1, A2], "bravo": [A1, A2], "charlie": [A1, A2]}, WRITES, OK))
    assert set(rows) == {"converged", "newest-wins"}  # no freeze: no tie to judge
    assert rows["converged"].ok is False and "alpha=2, bravo=1, charlie=1" in rows["converged"].evidence
    assert rows["newest-wins"].ok is False
    assert rows["converged"].check == "policy-sync/x0001/converged"  # the schedule's name in the check


def test_every_cluster_holding_the_newest_passes():
    rows = _rows(_seen(dict.fromkeys(ROLES, 2), {c: [A1, A2] for c in ROLES}, WRITES, OK))
    assert rows["converged"].ok is True and rows["newest-wins"].ok is True


def test_a_schedule_that_did_not_settle_or_whose_write_was_refused_is_unknown():
    split = {"alpha": 2, "bravo": 1, "charlie": 1}
    consumed = {c: [A1, A2] for c in ROLES}
    unsettled = _rows(_seen(split, consumed, WRITES, OK, quiesced=False))
    assert all(r.ok is None for r in unsettled.values()) and "did not settle" in unsettled["converged"].evidence
    refused = [OK[0], {"step": "write 2 at alpha", "ok": False, "at_ns": 2, "error": "500", "status": 500}]
    rows = _rows(_seen(split, consumed, WRITES, refused))
    assert all(r.ok is None for r in rows.values()) and "refused" in rows["converged"].evidence


def test_with_frozen_clocks_the_tie_is_judged_too():
    tie = [_event(1, 500, "bravo"), _event(2, 500, "charlie")]
    rows = _rows(_seen(dict.fromkeys(ROLES, 2), {c: tie for c in ROLES}, WRITES, OK, froze=True))
    assert rows["tie-to-smaller-source"].ok is False and "LARGER" in rows["tie-to-smaller-source"].evidence
    assert rows["converged"].ok is True and rows["newest-wins"].ok is None  # a tie is R03's


# ----- the Session on a fake deployment
class _Clock(clocks.Clock):
    def __init__(self):
        self.text = None

    def _set(self, text):
        self.text = text

    def _current(self):
        return self.text


class _Cluster:
    def __init__(self, name):
        self.name = name


class _Admin:
    def __init__(self, world, role):
        self.world, self.role = world, role

    def put_tenant(self, tenant, clusters):
        pass

    def topic_stats(self, topic):
        return self.request("GET", Admin.topic_path(topic) + "/stats")

    def request(self, method, path, *, json=None, params=None, ok=(200, 204), timeout=None):
        w, here = self.world, self.role
        if path == Admin.topic_path(TOPIC) + "/stats":
            return {"replication": {p: {"replicationBacklog": len(w.queue.get((here, p), []))} for p in ROLES if p != here},
                    "subscriptions": {SUBSCRIPTION: {"msgBacklog": w.stuck[here], "unackedMessages": 0}}}
        if path.endswith("/retention"):
            if not w.exists[here]:
                raise AdminError(method, path, 404, "Namespace does not exist")
            if method == "GET":
                return {"retentionTimeInMinutes": w.value[here]} if w.value[here] else {}
            w.publish(here, "Modified", json["retentionTimeInMinutes"])
            return None
        if method == "PUT":  # the namespace: the fake syncs its creation at once
            w.exists.update(dict.fromkeys(ROLES, True))
            return None
        if method == "DELETE":
            w.publish(here, "Deleted", 0)
            return None
        if not w.exists[here]:
            raise AdminError(method, path, 404, "Namespace does not exist")
        return {}


class _World:
    """Three "clusters" whose sync delivers at once unless a link is held, the last delivered event
    winning (the defect), and where a delete leaves an event its synchronizer never acknowledges
    (F-136-10's shape); one event before the first schedule is stuck already at alpha."""

    backend = "fake"

    def __init__(self):
        self.clusters = {r: _Cluster(r) for r in ROLES}
        self.clocks = {r: _Clock() for r in ROLES}
        self.exists = dict.fromkeys(ROLES, False)
        self.value = dict.fromkeys(ROLES, 0)
        self.consumed = {r: [] for r in ROLES}
        self.queue: dict[tuple[str, str], list] = {}
        self.held: set[tuple[str, str]] = set()
        self.stuck = {"alpha": 1, "bravo": 0, "charlie": 0}
        self.restarts: list[str] = []

    def __getitem__(self, role):
        return self.clusters[role]

    def admin(self, role):
        return _Admin(self, role)

    @property
    def faults(self):  # the fake is its own fault verbs (a deployment's are deployment.faults)
        return self

    def clock(self, role):
        return self.clocks[role]

    def capabilities(self):
        return EVERYTHING

    def publish(self, here, kind, value):
        time.sleep(0.002)  # an admin call takes milliseconds: two writes never share one running millisecond
        event = _event(value, self.clocks[here].shows(), here, kind)
        self._apply(here, event)
        for other in ROLES:
            if other != here:
                if (here, other) in self.held:
                    self.queue.setdefault((here, other), []).append(event)
                else:
                    self._apply(other, event)

    def _apply(self, role, event):
        self.consumed[role].append(replace(event, index=len(self.consumed[role])))
        if event.kind == "Deleted":
            self.exists[role], self.value[role] = False, 0
            self.stuck[role] += 1  # the echo of a delete of a node already gone: never acknowledged
        else:
            self.value[role] = event.value

    def cut(self, a, b, mode="reset", *, one_way=False):
        assert one_way
        self.held.add((a, b))

    def heal(self, a, b, *, one_way=False):
        self.held.discard((a, b))
        for event in self.queue.pop((a, b), []):
            self._apply(b, event)

    def restart(self, role, broker_config=None):
        self.restarts.append(role)


@pytest.fixture
def world(monkeypatch):
    monkeypatch.setattr(clocks, "settle", lambda: None)
    monkeypatch.setattr(explore.observe, "events", lambda d, c, path=None: list(d.consumed[c]))
    for name, seconds in (("QUIET_S", 0.3), ("SETTLE_S", 5.0), ("STUCK_S", 0.6), ("STEADY_S", 0.1),
                          ("STEADY_WITHIN_S", 1.0)):
        monkeypatch.setattr(explore, name, seconds)
    return _World()


def _failing(_outcome, rows):
    return [f"{r.check} ({q}): {r.evidence}" for r in rows for q in r.requirements or ["PIP136-R01"] if r.ok is False]


def _run(world, tmp_path, *labels):
    adapter = explore.Adapter(world, tmp_path, world.capabilities())
    explorer = Explorer(adapter, Settings(), _failing)
    tracker = Tracker(adapter.spec, adapter.vocabulary)
    steps = []
    for label in labels:  # each step as the spec enables it there
        step = next(s for s in tracker.choices() if s.label() == label)
        tracker.take(step)
        steps.append(step)
    run = explorer.run_steps(steps)
    assert run.error == "", run.error
    return run


def test_a_schedule_with_a_held_link_is_closed_out_judged_and_healed(world, tmp_path):
    run = _run(world, tmp_path, "hold-a", "put(c=0)", "put(c=1)")
    # closing: the release, then the settle
    assert [(e.step.action, e.closing) for e in run.schedule.history] == [
        ("hold-a", False), ("put", False), ("put", False), ("release-a", True), ("settle", True)]
    assert run.schedule.history[-1].result == "ok"  # settled, above alpha's event stuck before the schedule
    # alpha's 1 reached bravo and charlie after bravo's 2: the fake's last-delivered-wins splits them
    assert run.outcome.final == {"alpha": 2, "bravo": 1, "charlie": 1} and run.outcome.quiesced
    rows = {r.check.rsplit("/", 1)[1]: r for r in run.rows}
    assert rows["converged"].ok is False and rows["newest-wins"].ok is False and run.verdict == "fail"
    assert run.outcome.policy.name.startswith("psx-") and world.held == set()
    # the Outcome the scenarios leave, saved beside the schedule's history (judge BUNDLE reads it back)
    saved = tmp_path / run.schedule.name
    assert {"outcome.json", "schedule.json", "policy-sync.json", "markers.json"} <= {p.name for p in saved.iterdir()}
    assert [s.op for s in run.outcome.steps] == ["hold", "hold", "write", "write", "release", "release", "settle"]


def test_a_settled_schedule_passes(world, tmp_path):
    run = _run(world, tmp_path, "put(c=0)", "settle", "put(c=2)")
    assert run.outcome.final == dict.fromkeys(ROLES, 2) and run.verdict == "pass"


def test_clocks_frozen_ticked_skewed_and_thawed_and_a_restart(world, tmp_path):
    run = _run(world, tmp_path, "freeze", "put(c=1)", "clock_tick(c=2)", "put(c=2)", "restart-b")
    assert world.restarts == ["bravo"]
    assert [e.step.action for e in run.schedule.history if e.closing] == ["thaw", "settle"]
    written = {e.source: e.ts for e in run.outcome.written()}
    assert written["charlie"] == written["bravo"] + 1  # charlie's clock ticked once past the frozen base
    assert written["bravo"] == run.outcome.base_ms
    assert not any((c.text or "").startswith("=") for c in world.clocks.values())  # running again
    assert "tie-to-smaller-source" in {r.check.rsplit("/", 1)[1] for r in run.rows}
    run = _run(world, tmp_path, "skew-c", "put(c=0)")
    assert [e.step.action for e in run.schedule.history if e.closing] == ["thaw", "settle"]


def test_a_delete_that_leaves_events_never_acknowledged_is_not_settled(world, tmp_path):
    began = time.monotonic()
    run = _run(world, tmp_path, "put(c=0)", "delete(c=0)")
    settle = run.schedule.history[-1]
    assert settle.result == "not-reached" and "F-136-10" in settle.said
    assert time.monotonic() - began < explore.SETTLE_S  # said once it stood still, not at the timeout
    assert run.verdict == "unknown" and all(r.ok is None for r in run.rows)
    # the next schedule counts above what the delete left: it settles
    assert _run(world, tmp_path, "put(c=1)").schedule.history[-1].result == "ok"


def test_a_refused_write_makes_the_schedule_unknown(world, tmp_path):
    run = _run(world, tmp_path, "put(c=0)", "delete(c=0)", "settle", "put(c=1)")
    put = run.schedule.history[3]
    assert put.result == "error" and "404" in put.said
    assert all(r.ok is None for r in run.rows) and run.verdict == "unknown"


def test_a_short_search_over_the_fake(world, tmp_path):
    adapter = explore.Adapter(world, tmp_path, world.capabilities())
    explorer = Explorer(adapter, Settings(budget_s=2.0, max_steps=5, seed=2, shrink_share=0.5, replays=0), _failing)
    explorer.explore()
    assert explorer.runs and all(r.error == "" for r in explorer.runs), [r.error for r in explorer.runs]
    assert all(r.rows for r in explorer.runs)
    assert world.held == set() and not any((c.text or "").startswith("=") for c in world.clocks.values())
    doc = results.itf(explorer, explorer.runs[0])  # the spec's state at each step, as an ITF trace
    assert doc["states"][0]["mbt::actionTaken"] == "init" and len(doc["states"]) == len(explorer.runs[0].schedule.steps) + 1


# ----- the scenarios' run on the same fake deployment
def test_the_scenario_reads_a_store_after_a_restart_and_judges_nothing(world, tmp_path, monkeypatch):
    """scenario.run with ``read_after_restart``: the cluster restarted once the run settled and its value read
    again, in the outcome it saves (the live test mutated the outcome after scenario.run returned, and a
    deployment's restart was probed with hasattr, always true); the scenario calls no judge (judged after it,
    by record.py: judge.judge raising here shows it is not called)."""
    from pulsar_conformance.conformance.harness import outcome as saved
    from pulsar_conformance.conformance.protocols.policy_sync import scenario
    from pulsar_conformance.conformance.protocols.policy_sync.outcome import Outcome

    monkeypatch.setattr(judge, "judge", lambda out: pytest.fail("the scenario judged its own outcome"))
    monkeypatch.setattr(scenario.observe, "events", lambda d, c, path=None: list(d.consumed[c]))
    world.stuck["alpha"] = 0  # nothing left from before: the run settles
    out = scenario.run(world, tmp_path / "unpublishable", "unpublishable", ROLES,
                       [Done("write", cluster="alpha", value=1), Done("write", cluster="alpha", value=2)],
                       quiet=0.3, timeout=5.0, read_after_restart="alpha")
    assert world.restarts == ["alpha"] and out.quiesced
    back = saved.load(Outcome, tmp_path / "unpublishable")
    assert back.stored_after_restart == 2 == out.stored_after_restart
    assert scenario.run(world, tmp_path / "plain", "plain", ROLES, [Done("write", cluster="bravo", value=3)],
                        quiet=0.3, timeout=5.0).stored_after_restart is None and world.restarts == ["alpha"]
