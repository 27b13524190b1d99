"""The adapter of ``explore --live cluster-migration`` offline (conformance/protocols/cluster_migration/explore.py):
which tester steps the spec lets it take (never a cluster-level migration), how a schedule is closed out
(replayable: each closing step one the spec allows where it comes), the Outcome a schedule's recorded
history builds and the real judge's rows over it (names the checks declare, a pass, a planted drain
violation failing, a switch never observed unknown), and the search on a planted defect over this
vocabulary (found, shrunk, replayed). No verdict on Pulsar comes from here; the live run is the lead's
(`explore --live cluster-migration`)."""
from __future__ import annotations

from pathlib import Path

from pulsar_conformance.conformance.explore.machine import Explorer, Settings
from pulsar_conformance.conformance.explore.model import Tracker
from pulsar_conformance.conformance.explore.schedule import Step
from pulsar_conformance.conformance.harness.handles import HandleInfo
from pulsar_conformance.conformance.harness.rows import row
from pulsar_conformance.conformance.protocols.cluster_migration import explore, judge
from pulsar_conformance.conformance.protocols.cluster_migration.checks import CHECKS
from pulsar_conformance.conformance.protocols.cluster_migration.outcome import (
    NamespaceMigrationAnswer,
    TopicOutcome,
    TopicState,
    place_sends,
)
from pulsar_conformance.fixtures.capture.schema import COLUMN_NAMES

LOCAL = frozenset({"kill", "stop", "start", "restart", "pause", "resume", "cut", "cut-one-way", "cut-client"})


def _tracker(capabilities=LOCAL) -> Tracker:
    return Tracker(explore.spec(), explore.VOCABULARY.usable(capabilities))


def _labels(tracker) -> list[str]:
    return [s.label() for s in tracker.choices()]


def _take(tracker, *labels) -> None:
    for label in labels:
        tracker.take(next(s for s in tracker.choices() if s.label() == label))


# ----- the vocabulary, from the spec
def test_the_tester_publishes_consumes_and_migrates_and_pulsar_redirects():
    spec = explore.spec()
    actions = {g.decl.name for g in spec.ground_actions}
    assert set(explore.VOCABULARY.operations) == {"publish", "consume", "admin_migrate"} <= actions
    # Pulsar's own steps are observed, never chosen
    assert set(explore.VOCABULARY.eventually) == {"migration_task", "producer_redirect", "consumer_redirect", "replicate"}
    assert not set(explore.VOCABULARY.eventually) & set(explore.VOCABULARY.operations)
    assert spec.variant == "auto-create" and spec.REMOTE == 0 and spec.MESSAGES == explore.MESSAGES
    # nothing can migrate the cluster (irreversible on a shared deployment): only the namespace's call
    assert not any("cluster" in name for name in [*explore.VOCABULARY.operations,
                                                    *(f.name for f in explore.VOCABULARY.faults)])
    # at the start nothing can be read: consume is not offered until something was published
    assert _labels(_tracker()) == ["publish", "admin_migrate", "add-producer", "subscribe-exclusive",
                                   "subscribe-shared", "subscribe-failover", "subscribe-key-shared", "reader",
                                   "unload-blue", "restart-blue", "burst", "drain", "wait"]


def test_the_spec_tracks_the_migration_and_the_backlog():
    t = _tracker()
    _take(t, "publish", "publish")
    assert "consume" in _labels(t)
    _take(t, "admin_migrate")
    assert "admin_migrate" not in _labels(t)  # once a schedule
    s = t.saturated()  # Pulsar's steps taken as done: the topic terminated, the producer on green
    assert s.terminated and s.pside == 1 and s.sside == 0  # the subscription still has blue's backlog: on blue
    _take(t, "consume", "consume")
    assert t.saturated().sside == 1  # drained blue: redirected
    _take(t, "publish")
    assert t.saturated().green_len == 1


def test_each_client_fault_once_producers_at_most_twice_restart_once_and_only_where_possible():
    t = _tracker()
    _take(t, "subscribe-shared", "reader", "add-producer", "add-producer", "restart-blue")
    labels = _labels(t)
    assert not {"subscribe-shared", "reader", "add-producer", "restart-blue"} & set(labels)
    assert {"subscribe-exclusive", "unload-blue", "burst", "drain"} <= set(labels)
    # an external deployment that declares nothing: no restart generated, and said
    assert "restart-blue" not in _labels(_tracker(frozenset()))
    assert explore.VOCABULARY.missing(frozenset()) == ["restart-blue (needs restart)"]


# ----- the closing steps
def test_closing_migrates_then_bursts_and_drains_and_a_replay_of_it_adds_nothing():
    t = _tracker()
    _take(t, "publish", "subscribe-failover")
    closing = explore.closing_steps(t)
    assert closing == [Step("admin_migrate"), Step("burst", "fault"), Step("drain", "fault")]
    for step in closing:
        assert step in t.choices()  # a replayed schedule carries them: each must be allowed where it comes
        t.take(step)
    assert explore.closing_steps(t) == []
    # migrated during the schedule: every producer still bursts after it, and every consumer drains
    t = _tracker()
    _take(t, "admin_migrate", "publish", "drain")
    assert explore.closing_steps(t) == [Step("burst", "fault"), Step("drain", "fault")]


# ----- the outcome a schedule's history builds, judged by the real judge
MOVING, STAYING = "persistent://mig/cmx-abc/x0001", "persistent://mig/cmx-abc-beside/x0001-beside"
P, C, PB, CB = "p-x0001-0", "c-x0001-base", "p-x0001-beside", "c-x0001-beside"
TRIGGER = 1_000_000


def _columns(rows: list[tuple]) -> dict[str, list]:
    out = {name: [] for name in COLUMN_NAMES}
    for ts, client, topic, subscription, kind, producer, seq, msg_id in rows:
        values = {"run_id": "r1", "ts_ns": ts, "client": client, "cluster": "blue", "topic": topic,
                  "subscription": subscription, "kind": kind, "uid": f"{producer}/{seq}", "producer": producer,
                  "seq": seq, "key": "k0", "msg_id": msg_id, "redelivery_count": 0 if kind == "receive" else None}
        for name in COLUMN_NAMES:
            out[name].append(values[name])
    return out


def _history(green_first_at: int | None = None, read_green: bool = True) -> list[tuple]:
    """p sends 1..5 (blue, ledger 10) before the trigger and 6..10 (green, ledger 20) after it; the base
    subscription reads blue's five, then green's (``green_first_at``: green's first delivered before blue's
    message of that seq, the planted drain violation; ``read_green``: whether it reached green at all). Beside it
    one producer and one subscription stay on blue (ledger 30)."""
    rows, ts = [], 0
    for seq in range(1, 11):
        ts = seq * 1000 + (TRIGGER if seq > 5 else 0)
        rows.append((ts, P, MOVING, None, "send_ok", P, seq, f"{10 if seq <= 5 else 20}:{(seq - 1) % 5}:-1:-1"))
    for seq in range(1, 6):
        rows.append((seq * 1000, PB, STAYING, None, "send_ok", PB, seq, f"30:{seq - 1}:-1:-1"))
    order = list(range(1, 11)) if read_green else list(range(1, 6))
    if green_first_at is not None:
        order.remove(6)
        order.insert(order.index(green_first_at), 6)
    at = 3 * TRIGGER
    for seq in order:
        at += 10
        msg_id = f"{10 if seq <= 5 else 20}:{(seq - 1) % 5}:-1:-1"
        rows += [(at, C, MOVING, "base", "receive", P, seq, msg_id), (at + 1, C, MOVING, "base", "ack", P, seq, msg_id)]
    for seq in range(1, 6):
        at += 10
        msg_id = f"30:{seq - 1}:-1:-1"
        rows += [(at, CB, STAYING, "beside", "receive", PB, seq, msg_id),
                 (at + 1, CB, STAYING, "beside", "ack", PB, seq, msg_id)]
    return sorted(rows)


def _outcome(history: list[tuple]):
    columns = _columns(history)
    states = {MOVING: (TopicState("blue", MOVING, {10}, "Terminated", "true", 5),
                       TopicState("green", MOVING, {20}, "LedgerOpened", None, 5)),
              STAYING: (TopicState("blue", STAYING, {30}, "LedgerOpened", None, 5),
                        TopicState("green", STAYING, error="HTTP 404: Topic not found"))}
    topics = {}
    for topic, (blue, green) in states.items():
        sends = [r for r in _rows(columns) if r["kind"] == "send_ok" and r["topic"] == topic]
        topics[topic] = TopicOutcome(topic, blue, green, place_sends(topic, sends, blue, green))
    handles = [HandleInfo(C, "consumer", MOVING, "base", "blue", 1), HandleInfo(P, "producer", MOVING, None, "blue", 2),
               HandleInfo(CB, "consumer", STAYING, "beside", "blue", 3),
               HandleInfo(PB, "producer", STAYING, None, "blue", 4)]
    answer = NamespaceMigrationAnswer("mig/cmx-abc", "loaded", True, None, "", "/admin/v2/namespaces/mig/cmx-abc/migration")
    verdict = {"valid": True, "anomalies": {}, "events": len(columns["kind"])}
    return explore.outcome_of(Path("/tmp/x0001"), TRIGGER, topics, verdict, [], handles, [],
                              {(MOVING, "base"): "Exclusive", (STAYING, "beside"): "Exclusive"},
                              f"INFO redirect migrated producer to topic {MOVING}: producerName = {P}, ...", answer,
                              {"blue:policies": {"migrated": True}, "green:policies": {"migrated": False}},
                              {"moving": MOVING, "staying": STAYING, "namespace": "mig/cmx-abc", "tls": ""}, columns)


def _rows(columns: dict) -> list[dict]:
    return [dict(zip(columns, values, strict=True)) for values in zip(*columns.values(), strict=True)]


def _judged(history) -> dict:
    rows = judge.judge(_outcome(history))
    for r in rows:
        CHECKS.find(r.check)  # every row's name is one the protocol declares: the recorder takes it
    return {r.check.removeprefix("namespace-explore/"): r for r in rows}


def test_a_schedule_that_drained_blue_before_green_passes_under_its_own_scenario_name():
    rows = _judged(_history())
    assert rows["namespace-level-migration"].ok is True
    assert rows[f"x0001/{P}/redirected"].ok is True and rows[f"x0001/{P}/order"].ok is True
    assert rows["x0001/base/drained-before-green"].ok is True
    assert rows[f"x0001-beside/{PB}/stayed"].ok is True and rows["x0001-beside/beside/stayed"].ok is True
    assert rows[f"x0001/{P}/base/trace"].ok is True
    assert rows["state-local"].ok is True and rows[f"x0001/{P}/client-follows-redirect"].ok is True
    assert all(not r.check.startswith("namespace-migration/") for r in rows.values())


def test_a_subscription_that_read_green_before_draining_blue_fails():
    rows = _judged(_history(green_first_at=4))  # green's first message delivered before blue's 4 and 5
    assert rows["x0001/base/drained-before-green"].ok is False
    assert rows[f"x0001/{P}/base/trace"].ok is False


def test_a_subscription_that_never_reached_green_is_unknown_not_passed():
    rows = _judged(_history(read_green=False))
    assert rows["x0001/base/drained-before-green"].ok is None
    assert "switch was not observed" in rows["x0001/base/drained-before-green"].evidence


# ----- the search over this vocabulary on a planted defect
class _Session:
    """A "Pulsar" that loses a subscription's backlog on blue when blue is unloaded after the migration while
    that backlog is unread: the defect, planted (nothing in Pulsar is claimed by it)."""

    def __init__(self):
        self.published = self.consumed = 0
        self.migrated = self.lost = False

    def perform(self, step, entry):
        if step.action == "publish":
            self.published += 1
        elif step.action == "consume":
            self.consumed += 1
        elif step.action == "admin_migrate":
            self.migrated = True
        elif step.action == "unload-blue" and self.migrated and self.consumed < self.published:
            self.lost = True

    def closing(self, tracker):
        return explore.closing_steps(tracker)

    def judge(self, schedule):
        return None, [row(f"namespace-explore/{schedule.name}/base/drained-before-green", not self.lost,
                          "blue's backlog lost" if self.lost else "drained", requirements=["PIP188-R02"])]

    def close(self):
        pass


class _Adapter:
    protocol = explore.PROTOCOL

    def __init__(self):
        self.spec, self.vocabulary = explore.spec(), explore.VOCABULARY.usable(LOCAL)

    def begin(self, name):
        return _Session()


def _failing(_outcome, rows):
    return [f"{r.check} ({q}): {r.evidence}" for r in rows for q in r.requirements if r.ok is False]


def test_the_planted_defect_is_found_shrunk_and_its_smallest_schedule_replays_with_its_closing_steps():
    for seed in (1, 2):
        explorer = Explorer(_Adapter(), Settings(budget_s=120.0, max_steps=12, seed=seed, shrink_share=0.05, max_schedules=80), _failing)
        found = explorer.explore()
        assert found, f"seed {seed}: the planted defect was not found in {len(explorer.runs)} schedules"
        smallest = found[0]
        steps = [s.action for s in smallest.schedule.steps]
        assert {"publish", "admin_migrate", "unload-blue"} <= set(steps), steps
        assert len(smallest.schedule.steps) <= len(smallest.original.schedule.steps)
        # the file keeps the closing steps too: a replay runs them as chosen steps, each allowed where it comes
        replays = explorer.replay(smallest.schedule.steps, 2)
        assert [r.verdict for r in replays] == ["fail", "fail"] and not any(r.error for r in replays)


def test_an_acknowledge_stuck_in_the_client_is_abandoned_and_the_receive_goes_on(monkeypatch):
    # the 20-minute run of 2026-12-02 hung for two hours inside the C++ client (F-188-18's deadlock) where an
    # unbounded call met it; a stuck acknowledge now gives its handle up, as a stuck receive does
    import threading
    from types import SimpleNamespace

    from pulsar_conformance.conformance.harness.traffic import Traffic

    monkeypatch.setattr(explore, "RECEIVE_DEADLINE_S", 0.2)
    release = threading.Event()
    message = SimpleNamespace(properties=lambda: {})
    stuck = SimpleNamespace(receive=lambda _ms: message, acknowledge=lambda _m: release.wait(5))
    handle = SimpleNamespace(name="c-1", topic="t", subscription="s", wrapped=stuck, errors=[])
    traffic = SimpleNamespace(hung=[])
    traffic._bounded = lambda s, what, fn: Traffic._bounded(traffic, s, what, fn)
    session = SimpleNamespace(_live=lambda kind: [handle], traffic=traffic, readers=set(), seen={})
    try:
        got = explore.Session._receive(session, {"c-1": 5}, limit_s=2.0)
    finally:
        release.set()
    assert got["c-1"] == 1 and handle.wrapped is None
    assert handle.errors == ["acknowledge() did not return within 0.2 s (abandoned)"] and len(traffic.hung) == 1
