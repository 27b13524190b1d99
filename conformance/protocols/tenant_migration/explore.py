"""Tenant migration explored live (``explore --live tenant-migration``): the spec's tester actions
performed on blue = A and green = B in any order the spec allows, with the link cut and healed and
topics unloaded between them; each schedule judged by the judge the switch scenarios use (judge.judge).

The spec (``tenant-migration``, markdelete-only) has ``MESSAGES`` messages; live, each is a burst of
``BURST`` sends, so ``publish`` sends a burst on A, ``ack(m)`` acknowledges burst m on A individually
(holes where a burst is never acknowledged), ``sync_progress`` waits, bounded, until A's replicator has
nothing left for B and gives cursor snapshots a moment, and ``switch`` moves the consumer to B and
drains it. The spec's ``retire`` is not performed: A is kept for the evidence, as in the switch
scenarios. Replication, snapshots and the markDelete sync are Pulsar's: observed, not chosen.

Faults the spec does not model: ``cut`` (A -> B one-way, the deployment's ``cut`` capability; it holds
back ``replicate``) and ``heal``, and ``unload-a``/``unload-b`` (the topic unloaded on A or B: an admin
call any deployment takes). A schedule ends with the link healed, progress synced and the switch made
(the closing steps), so every schedule reaches the state the judges are about."""
from __future__ import annotations

import json
import time
import uuid
from contextlib import ExitStack
from pathlib import Path

import pulsar

from pulsar_conformance.files import write_atomic
from pulsar_conformance.fixtures.capture import Capture
from pulsar_conformance.fixtures.capture.schema import make_uid
from pulsar_conformance.spec.protocols.tenant_migration import SWITCHED, SYNCED, TenantMigration
from pulsar_conformance.wait import wait_until

from ...explore.model import AdapterBase, Vocabulary
from ...explore.schedule import Entry, Schedule, Step, history_json
from ...explore.steps import LINK_AND_UNLOAD_FAULTS, UnloadSteps
from ...harness import evidence, timeline
from ...harness import outcome as saved
from ...harness.deadline import CLIENT_CALL_DEADLINE_S, within
from . import judge, observe
from .checks import CHECKS
from .existing_data import RETENTION
from .observe import SUBSCRIPTION
from .outcome import Outcome, Plan
from .scenario import drain

PROTOCOL = "tenant-migration"
MESSAGES = 4  # the spec's messages: four bursts
BURST = 5  # sends per spec message
DELIVERED_S = 10.0  # ack(m) waits this long for burst m's deliveries on A
CAUGHT_UP_S = 60.0  # sync_progress waits this long for A's replicator to B to have no backlog
SNAPSHOTS_S = 2.5  # ... then polls both cursors this long (replicated-subscription snapshots come every second)
DRAIN_QUIET_S, DRAIN_S = 3.0, 30.0  # B drained once nothing came for 3 s, at most 30 s
ACK_SETTLE_S, CURSOR_SETTLE_S = 0.5, 5.0  # A's cursor read at the switch once two reads 0.5 s apart agree


VOCABULARY = Vocabulary(
    operations=("publish", "ack", "sync_progress", "switch"),
    faults=LINK_AND_UNLOAD_FAULTS,
    eventually=("replicate",),
    visible=("pub", "ack_a", "phase"),
    # waiting for B to catch up while the link is cut waits for nothing, and B's drain after the switch waits for
    # what A still has to replicate: heal first (a switch under the cut left sends to arrive after B's consumer
    # had gone, which Spark then counted lost: the adapter's doing, not Pulsar's)
    allows=lambda step, active: not (step.action in ("sync_progress", "switch") and "cut" in active))


def _deletes(cursor: dict) -> tuple:
    """What a cursor says is acknowledged (markDelete and the individually deleted ranges)."""
    return cursor.get("markDeletePosition"), cursor.get("individuallyDeletedMessages")


def spec() -> TenantMigration:
    return TenantMigration("markdelete-only", MESSAGES=MESSAGES)


# the saved outcome's judge (what the recorded verdicts come from) and its checks; its capture is checked by Spark
JUDGE, CHECKS, SPARK = judge.judge, CHECKS, True


class Adapter(AdapterBase, protocol=PROTOCOL, vocabulary=VOCABULARY, spec=spec):
    def __init__(self, deployment, run_dir: Path, capabilities: frozenset):
        super().__init__(deployment, run_dir, capabilities)
        self.a, self.b = deployment.clusters["blue"], deployment.clusters["green"]
        self.client_a = self.a.client(operation_timeout_seconds=10)
        self.client_b = self.b.client(operation_timeout_seconds=10)

    def begin(self, name: str) -> Session:
        ns = self.deployment.replicated_namespace(f"tmx-{uuid.uuid4().hex[:6]}", "explore", ["blue", "green"])
        # B keeps the ledgers its consumer drained (retention changes no cursor and no redelivery), so the reader
        # after the switch lists where B stored every message: without it B trimmed its first ledger after the
        # drain and the spec's bound was counted over what was left (a TM-R04 candidate, the suite's)
        admin = self.deployment.admin("green")
        admin.request("POST", admin.retention_path(ns), json=RETENTION)
        return Session(self, name, f"persistent://{ns}/orders")

    def close(self) -> None:
        for client in (self.client_a, self.client_b):
            within(CLIENT_CALL_DEADLINE_S, "close a client", client.close)


OPTIONS = {"consumer_type": pulsar.ConsumerType.Shared, "replicate_subscription_state_enabled": True,
           "initial_position": pulsar.InitialPosition.Earliest}


class Session(UnloadSteps):
    """One schedule: its namespace and topic, its capture, A's consumer and producer, what it saw."""

    def __init__(self, adapter: Adapter, name: str, topic: str):
        self.adapter, self.name, self.topic = adapter, name, topic
        self.sides = (adapter.a, adapter.b)
        self.dir = adapter.run_dir / name
        self.line = timeline.Timeline(name)
        self.stack = ExitStack()
        self.capture = self.stack.enter_context(Capture(self.dir, allowed=["redelivered_after_ack", "duplicate"],
                                                        scenario={"name": name, "explore": True}))
        self.capture.must_see(topic, SUBSCRIPTION)
        # the replicated subscription exists on B before any message, as the migration sets it up
        within(CLIENT_CALL_DEADLINE_S, "subscribe on B",
               lambda: adapter.client_b.subscribe(topic, SUBSCRIPTION, **OPTIONS)).close()
        self.on_a = self.capture.consumer(adapter.client_a, topic, SUBSCRIPTION, name="c-a", cluster="blue", **OPTIONS)
        self.producer = self.capture.producer(adapter.client_a, topic, name="p-a", cluster="blue", batching_enabled=False)
        self.bursts: list[list[str]] = []
        self.sent = 0
        self.received: dict[str, object] = {}
        self.progress: list[dict] = []
        self.a_cursor: dict = {}
        self.b_cursor: dict = {}
        self.b_positions: dict[str, str] = {}
        self.caught_up_s: float | None = None
        self.cut = False

    # ----- the steps
    def perform(self, step: Step, entry: Entry) -> None:
        getattr(self, "_" + step.action.replace("-", "_"))(step, entry)
        self.line.mark(f"{step.label()}: {entry.result}" + (f" ({entry.said})" if entry.said else ""), entry.invoke_ns)

    def _publish(self, step: Step, entry: Entry) -> None:
        burst, failed = len(self.bursts), []
        uids = []
        for i in range(BURST):
            self.sent += 1
            try:
                self.producer.send(b"m" * 64, key=f"k{burst}-{i}")
                uids.append(make_uid("p-a", self.sent))  # the capture's uid of that send (its seq counts from 1)
            except Exception as error:  # noqa: BLE001 - the capture recorded the failed send; the judges read it
                failed.append(type(error).__name__)
        self.bursts.append(uids)
        entry.said = f"burst {burst}: {len(uids)} sends acknowledged" + (f", {len(failed)} failed ({failed[0]})" if failed else "")

    def _receive_until(self, wanted: set[str], seconds: float) -> set[str]:
        def have() -> bool:
            try:
                message = self.on_a.receive(200)
            except pulsar.Timeout:
                return wanted <= set(self.received)
            uid = message.properties().get("uid", "")
            self.received[uid] = message
            return wanted <= set(self.received)
        wait_until(have, timeout=seconds, interval=0.0)
        return wanted - set(self.received)

    def _ack(self, step: Step, entry: Entry) -> None:
        burst = set(self.bursts[step.arg("m")])
        missing = self._receive_until(burst, DELIVERED_S)
        before = observe.cursor(self.adapter.a, self.topic)
        for uid in sorted(burst - missing):
            self.on_a.acknowledge(self.received[uid])
        # the step completes when A's broker has the acks: the client sends them grouped and unreceipted, so an
        # unload of A right after could drop them, and the spec's ack(m) (and the judges) would count acks Pulsar
        # was never sent (a schedule found that: ack, cut, unload-a left A's markDelete where it was)
        changed = wait_until(lambda: _deletes(observe.cursor(self.adapter.a, self.topic)) != _deletes(before),
                             timeout=CURSOR_SETTLE_S, interval=0.1) if len(burst) > len(missing) else True
        after = self._settled_a()
        # what A's broker showed of these acks, so a later schedule's triage can tell acks the broker had (and an
        # unload then lost) from acks it was never sent
        entry.said = (f"burst {step.arg('m')}: {len(burst) - len(missing)} acknowledged; A's cursor "
                      + (f"markDelete {after.get('markDeletePosition')}, deleted {after.get('individuallyDeletedMessages')}"
                         if changed else f"did not change within {CURSOR_SETTLE_S:.0f} s"))
        if missing:
            entry.result, entry.said = "not-reached", entry.said + f"; {len(missing)} never delivered on A in {DELIVERED_S:.0f} s"

    def _sync_progress(self, step: Step, entry: Entry) -> None:
        began = time.time_ns()
        a, b = self.adapter.a, self.adapter.b
        caught = observe.poll(self.progress, a, b, self.topic, until_ns=began + int(CAUGHT_UP_S * 1e9),
                              done=lambda _: observe.replicated(a, b, self.topic))
        self.caught_up_s = round((time.time_ns() - began) / 1e9, 2) if caught else None
        observe.poll(self.progress, a, b, self.topic, until_ns=time.time_ns() + int(SNAPSHOTS_S * 1e9))
        if caught:
            entry.said = f"B had every entry A had after {self.caught_up_s} s"
        else:
            entry.result = "not-reached"
            entry.said = f"B did not catch up within {CAUGHT_UP_S:.0f} s: {observe.replicator(a, b, self.topic)}"

    def _settled_a(self) -> dict:
        """A's cursor once it stopped moving: the client sends acknowledgements in groups (every 100 ms by
        default), so a cursor read right after the last ack misses some, and the spec's replay would hold
        Pulsar to acks A's broker had not yet been sent (a schedule found exactly that: the suite's, not
        Pulsar's). Read until two reads ACK_SETTLE_S apart agree, at most CURSOR_SETTLE_S."""
        a = self.adapter.a
        seen = [observe.cursor(a, self.topic)]

        def still() -> bool:
            seen.append(observe.cursor(a, self.topic))
            return seen[-1] == seen[-2]
        wait_until(still, timeout=CURSOR_SETTLE_S, interval=ACK_SETTLE_S)
        return seen[-1]

    def _switch(self, step: Step, entry: Entry) -> None:
        a, b = self.adapter.a, self.adapter.b
        self.a_cursor, self.b_cursor = self._settled_a(), observe.cursor(b, self.topic)
        # the cursors, as the switch scenarios record them (judge.figures reads them). Caught up means B held
        # every entry A had *at the switch*: a sync earlier in the schedule says nothing of what was published after
        # it (a schedule that switched with the link cut was once judged as if B had caught up: the adapter's fault)
        caught = self.caught_up_s if observe.replicated(a, b, self.topic) else None
        self.b_cursor.update(caught_up_s=caught, replicator=observe.replicator(a, b, self.topic))
        within(CLIENT_CALL_DEADLINE_S, "close the consumer on A", self.on_a.close)
        on_b = self.capture.consumer(self.adapter.client_b, self.topic, SUBSCRIPTION, name="c-b", cluster="green",
                                     **OPTIONS)
        got = drain(on_b, quiet=DRAIN_QUIET_S, timeout=DRAIN_S)
        # what A had not yet replicated reaches B after the switch (the spec lets the switch come before B has it):
        # B's consumer stays until A's replicator has nothing left for B, then drains once more, so what arrives
        # late is delivered rather than counted lost (bounded: a replicator that never catches up is said)
        late = wait_until(lambda: observe.replicated(a, b, self.topic), timeout=CAUGHT_UP_S, interval=0.5)
        got += drain(on_b, quiet=DRAIN_QUIET_S, timeout=DRAIN_S)
        within(CLIENT_CALL_DEADLINE_S, "close the consumer on B", on_b.close)
        self.b_positions = observe.stored_on(self.adapter.client_b, self.topic)
        entry.said = (f"B delivered {got} (drained: nothing more for {DRAIN_QUIET_S:.0f} s, at most {DRAIN_S:.0f} s)"
                      + ("" if late else f"; A's replicator to B still had a backlog {CAUGHT_UP_S:.0f} s after the switch"))

    def _cut(self, step: Step, entry: Entry) -> None:
        self.adapter.deployment.faults.cut("blue", "green", one_way=True)
        self.cut = True

    def _heal(self, step: Step, entry: Entry) -> None:
        self.adapter.deployment.faults.heal("blue", "green", one_way=True)
        self.cut = False

    # ----- the end of a schedule
    def closing(self, tracker) -> list[Step]:
        """What reaches the judged state from where the schedule stopped: the link healed, progress
        synced (B caught up), the switch made."""
        steps = [Step("heal", "fault")] if "cut" in tracker.active else []
        phase = tracker.state.phase
        if phase < SYNCED:
            steps.append(Step("sync_progress"))
        if phase < SWITCHED:
            steps.append(Step("switch"))
        return steps

    def judge(self, schedule: Schedule) -> tuple[Outcome, list]:
        """The schedule's history and outcome saved beside its capture, and judge.judge's rows over it. The
        capture's anomaly classes come from the in-process engine here, for the search's next decision;
        the recorded verdicts are Spark's, over every schedule at the end (``JUDGE`` on the saved outcome)."""
        self.stack.close()  # the capture is complete before it is read
        columns = evidence.read_capture(self.dir)
        verdict = evidence.spark_verdict(self.dir, columns, engine="duckdb")
        plan = Plan(messages=sum(len(b) for b in self.bursts), hole_every=0, holes_from=0, settle_s=SNAPSHOTS_S)
        out = Outcome(self.name, self.dir, self.topic, plan, verdict, self.line.markers, self.a_cursor, self.b_cursor,
                      self.progress, self.b_positions, columns)
        f = judge.figures_of(out)  # the record's figures, as judge.judge computes them
        saved.save(out, self.dir)
        write_atomic(self.dir / "schedule.json", json.dumps({**schedule.to_json(), "history": history_json(schedule)},
                                                             indent=1))
        timeline.save(self.dir, PROTOCOL, {"figures": vars(f), "a_cursor": self.a_cursor, "b_cursor": self.b_cursor},
                      self.line.markers, verdict)
        return out, judge.judge(out)

    def close(self) -> None:
        """Whatever the schedule left: the link healed (a schedule never leaves a fault behind), the clients'
        consumer and producer closed with the capture."""
        if self.cut:
            self.adapter.deployment.faults.heal("blue", "green", one_way=True)
            self.cut = False
        self.stack.close()
