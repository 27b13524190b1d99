"""Geo-replication explored live (``explore --live geo-replication``): bursts published on blue, the
blue -> green link cut and healed, topics unloaded on either side, in any order, each schedule judged by
the judge the certify scenario uses (judge.judge: GEO-R01, GEO-R02) over its capture.

**The model.** Geo-replication has no spec of its own (its catalog names none); the tenant-migration spec
models exactly the part these requirements are about, A's messages replicated to B in order while B may
lag (its ``publish``, ``replicate`` and ``sync_progress``; the consumers' acks and the switch are that
spec's migration, not performed here). The tracker follows that spec's state from the tester's steps, so
``sync_progress`` is generated only where the spec lets B catch up (never under the cut) and coverage is
counted against that spec's abstract states.

**The tester's steps.** ``publish`` sends a burst of ``BURST`` messages on blue (the spec's next
message), ``sync_progress`` waits, bounded, until blue's replicator to green has nothing left and green's
subscription has every acknowledged send. Faults the spec does not model: ``cut`` (blue -> green one-way,
the deployment's ``cut`` capability; it holds back ``replicate``) and ``heal``, ``cut-both`` and ``heal-both``
(the link cut both ways), ``unload-a`` and ``unload-b`` (the topic unloaded on blue or green, an admin call),
``dedup-a`` and ``dedup-b`` (deduplication switched on for the namespace on blue or on green while traffic
runs: the target deduplicating what the replicator sends is where Pulsar's replication and deduplication
meet) and ``second-producer`` (a second producer on blue: each later burst is sent by both). Replication is
Pulsar's: observed, never chosen.

**A schedule** has a fresh namespace replicated between blue and green, a subscription on each (made
before any message and any cut: creating a topic in a namespace replicated to an unreachable peer hangs,
docs/deployments.md) acknowledging whatever it gets, and a producer on blue. It ends (``closing``) with
the link healed and a final ``sync_progress``, so every schedule reaches the state GEO-R01 is about.
GEO-R02 ("what was published during a replication outage arrives once it is back") is judged only where
the outage was reached: a burst published under a cut while green received nothing more."""
from __future__ import annotations

import json
import time
import uuid
from contextlib import ExitStack
from pathlib import Path

from pulsar_conformance.files import write_atomic
from pulsar_conformance.fixtures.capture import Capture
from pulsar_conformance.fixtures.deploy.admin import or_refusal
from pulsar_conformance.spec.protocols.tenant_migration import TenantMigration
from pulsar_conformance.wait import wait_until

from ...explore.model import AdapterBase, Fault, Vocabulary
from ...explore.schedule import Entry, Schedule, Step, history_json
from ...explore.steps import LINK_AND_UNLOAD_FAULTS, UnloadSteps
from ...harness import evidence, timeline
from ...harness import outcome as saved
from ...harness.deadline import CLIENT_CALL_DEADLINE_S, within
from ...harness.replication import replicated, replicator
from . import judge, observe
from .checks import CHECKS
from .outcome import Outage, Outcome

PROTOCOL = "geo-replication"
MESSAGES = 4  # the spec's messages: four bursts
BURST = 5  # sends per spec message
CAUGHT_UP_S = 60.0  # sync_progress waits this long for blue's replicator and green's subscription
CUT_SETTLE_S = 1.0  # after a cut, what was in flight lands before green's count is taken (as the scenario)
SUBSCRIPTIONS = {"blue": "audit-blue", "green": "billing-green"}
SAID = ("connected", "replicationBacklog", "msgRateOut")  # of blue's replicator stats, when green did not catch up


CUTS = ("cut", "cut-both")  # the active faults of a cut link, one way or both


def _once(name: str) -> Fault:
    """A switch the schedule turns on once (its namespace and producers are its own): enabled until it is on."""
    return Fault(name, None, lambda a: name not in a, lambda a: a | {name})


VOCABULARY = Vocabulary(
    operations=("publish", "sync_progress"),
    faults=(*LINK_AND_UNLOAD_FAULTS,
            Fault("cut-both", "cut", lambda a: not (set(CUTS) & a), lambda a: a | {"cut-both"}, blocks=("replicate",)),
            Fault("heal-both", "cut", lambda a: "cut-both" in a, lambda a: a - {"cut-both"}),
            _once("dedup-a"), _once("dedup-b"), _once("second-producer")),
    eventually=("replicate",),
    visible=("pub", "phase"),
    # waiting for green to catch up while the link is cut waits for nothing
    allows=lambda step, active: not (step.action == "sync_progress" and set(CUTS) & active))


def spec() -> TenantMigration:
    return TenantMigration("markdelete-only", MESSAGES=MESSAGES)


def outage(windows: list[dict]) -> Outage:
    """GEO-R02's state from the schedule's cuts: reached by a cut during which at least one burst was
    acknowledged on blue and green received nothing more (what was in flight at the cut excepted); a cut
    green kept receiving through did not stop replication, and one with nothing published tests nothing."""
    tested = [w for w in windows if w["published"] > 0]
    if not tested:
        return Outage(False, "no burst was published while the link was cut" if windows else "the schedule made no cut")
    silent = [w for w in tested if w["green_at_heal"] == w["green_at_cut"]]
    if silent:
        w = silent[0]
        return Outage(True, f"green received nothing while the link was cut ({w['published']} sends acknowledged on "
                            f"blue during the cut)")
    w = tested[0]
    return Outage(False, f"green kept receiving during the cut ({w['green_at_heal'] - w['green_at_cut']} messages): "
                         "the cut did not stop replication")


# the saved outcome's judge (what the recorded verdicts come from) and its checks; its capture is checked by Spark
JUDGE, CHECKS, SPARK = judge.judge, CHECKS, True


class Adapter(AdapterBase, protocol=PROTOCOL, vocabulary=VOCABULARY, spec=spec):
    def __init__(self, deployment, run_dir: Path, capabilities: frozenset):
        super().__init__(deployment, run_dir, capabilities)
        self.blue, self.green = deployment.clusters["blue"], deployment.clusters["green"]
        self.clients = {"blue": self.blue.client(operation_timeout_seconds=10),
                        "green": self.green.client(operation_timeout_seconds=10)}

    def begin(self, name: str) -> Session:
        ns = self.deployment.replicated_namespace(f"geox-{uuid.uuid4().hex[:6]}", "explore", ["blue", "green"])
        return Session(self, name, f"persistent://{ns}/geo")

    def close(self) -> None:
        for client in self.clients.values():
            within(CLIENT_CALL_DEADLINE_S, "close a client", client.close)


class Session(UnloadSteps):
    """One schedule: its namespace and topic, its capture, the two subscriptions and blue's producer."""

    def __init__(self, adapter: Adapter, name: str, topic: str):
        self.adapter, self.name, self.topic = adapter, name, topic
        self.sides = (adapter.blue, adapter.green)
        self.dir = adapter.run_dir / name
        self.line = timeline.Timeline(name)
        self.stack = ExitStack()
        # a delivery after its ack is allowed here (the certify scenario, which never unloads, allows none): the
        # listeners' acks go out grouped and unreceipted, so an unload right after them loses them and the broker
        # delivers those messages again, Pulsar's at-least-once delivery to a consumer, not replication's doing (a
        # first schedule, x0005: blue's subscription got its 5 messages twice after unload-a, green each once)
        self.capture = self.stack.enter_context(Capture(
            self.dir, must_see=[(topic, sub) for sub in SUBSCRIPTIONS.values()],
            allowed=["recovered", "redelivered_after_ack"], scenario={"name": name, "explore": True}))
        self.counts = {cluster: 0 for cluster in SUBSCRIPTIONS}
        for cluster in ("green", "blue"):  # both subscriptions before the producer and before any cut
            self.capture.consumer(adapter.clients[cluster], topic, SUBSCRIPTIONS[cluster], name=f"c-{cluster}",
                                  cluster=cluster, message_listener=self._listener(cluster))
        self.producers = [self._producer("p-blue")]
        self.acknowledged = 0
        self.failures: list[str] = []
        self.windows: list[dict] = []  # one per cut: green's count at the cut and at the heal, sends during it
        self.cut: str | None = None  # the cut in force: "cut" (one way) or "cut-both"

    def _producer(self, name: str):
        return self.capture.producer(self.adapter.clients["blue"], self.topic, name=name, cluster="blue",
                                     batching_enabled=False)

    def _listener(self, cluster: str):
        def listener(consumer, message):
            self.counts[cluster] += 1
            consumer.acknowledge(message)
        return listener

    # ----- the steps
    def perform(self, step: Step, entry: Entry) -> None:
        getattr(self, "_" + step.action.replace("-", "_"))(step, entry)
        self.line.mark(f"{step.label()}: {entry.result}" + (f" ({entry.said})" if entry.said else ""), entry.invoke_ns)

    def _publish(self, step: Step, entry: Entry) -> None:
        ok, failed = 0, []
        for producer in self.producers:
            for i in range(BURST):
                try:
                    producer.send(b"g" * 64, key=f"k{i}")
                    ok += 1
                except Exception as error:  # noqa: BLE001 - the capture recorded the failed send; the judges read it
                    failed.append(type(error).__name__)
        self.acknowledged += ok
        self.failures += failed
        if self.cut:
            self.windows[-1]["published"] += ok
        entry.said = f"{ok} sends acknowledged" + (f", {len(failed)} failed ({failed[0]})" if failed else "")

    def _sync_progress(self, step: Step, entry: Entry) -> None:
        began = time.monotonic()
        blue, green = self.adapter.blue, self.adapter.green

        def caught_up() -> bool:
            return replicated(blue, green, self.topic) and min(self.counts.values()) >= self.acknowledged
        if wait_until(caught_up, timeout=CAUGHT_UP_S, interval=0.3):
            entry.said = f"green had every acknowledged send after {time.monotonic() - began:.1f} s"
        else:
            stats = replicator(blue, green, self.topic)
            entry.result = "not-reached"
            entry.said = (f"not caught up within {CAUGHT_UP_S:.0f} s: {self.acknowledged} acknowledged on blue, "
                          f"received blue {self.counts['blue']}, green {self.counts['green']}; blue's replicator: "
                          f"{ {k: stats.get(k) for k in SAID} }")

    def _cut(self, step: Step, entry: Entry) -> None:
        self._cut_link(step.action, entry)

    def _cut_both(self, step: Step, entry: Entry) -> None:
        self._cut_link(step.action, entry)

    def _cut_link(self, kind: str, entry: Entry) -> None:
        self.adapter.deployment.faults.cut("blue", "green", one_way=kind == "cut")
        self.cut = kind
        time.sleep(CUT_SETTLE_S)
        self.windows.append({"green_at_cut": self.counts["green"], "published": 0, "green_at_heal": None, "kind": kind})
        entry.said = f"green had {self.counts['green']} {CUT_SETTLE_S:.0f} s after the cut"

    def _heal(self, step: Step, entry: Entry) -> None:
        self._heal_link()

    def _heal_both(self, step: Step, entry: Entry) -> None:
        self._heal_link()

    def _heal_link(self) -> None:
        self.windows[-1]["green_at_heal"] = self.counts["green"]
        self.adapter.deployment.faults.heal("blue", "green", one_way=self.cut == "cut")
        self.cut = None

    def _dedup_a(self, step: Step, entry: Entry) -> None:
        self._dedup(self.adapter.blue, entry)

    def _dedup_b(self, step: Step, entry: Entry) -> None:
        self._dedup(self.adapter.green, entry)

    def _dedup(self, cluster, entry: Entry) -> None:
        """Deduplication on for the schedule's namespace on ``cluster`` (a namespace policy, while traffic runs)."""
        admin = cluster.admin()
        namespace = self.topic.removeprefix("persistent://").rsplit("/", 1)[0]
        answer = or_refusal(admin.request, "POST", admin.namespace_path(namespace) + "/deduplication", json=True)
        if isinstance(answer, dict) and "error" in answer:
            entry.result, entry.said = "error", f"refused: {answer}"
        else:
            entry.said = f"deduplication on for {namespace} on {cluster.name}"

    def _second_producer(self, step: Step, entry: Entry) -> None:
        self.producers.append(self._producer("p-blue-2"))
        entry.said = "a second producer on blue: each burst from now on is sent by both"

    # ----- the end of a schedule
    def closing(self, tracker) -> list[Step]:
        """The link healed and green caught up: the state GEO-R01 is judged in."""
        heals = [Step({"cut": "heal", "cut-both": "heal-both"}[c], "fault") for c in CUTS if c in tracker.active]
        return [*heals, Step("sync_progress")]

    def judge(self, schedule: Schedule) -> tuple[Outcome, list]:
        """The schedule's history and outcome saved beside its capture, and judge.judge's rows over it (the
        in-process engine's verdict for the search; the recorded verdicts are Spark's, at the end)."""
        self.stack.close()  # the capture is complete before it is read
        columns = evidence.read_capture(self.dir)
        verdict = evidence.spark_verdict(self.dir, columns, engine="duckdb")
        out = Outcome(self.dir, verdict, outage(self.windows), self.failures, self.line.markers,
                      observe.deliveries(self.dir), name=self.name, columns=columns)
        saved.save(out, self.dir)
        write_atomic(self.dir / "schedule.json", json.dumps({**schedule.to_json(), "history": history_json(schedule)},
                                                             indent=1))
        timeline.save(self.dir, PROTOCOL, {"windows": self.windows}, self.line.markers, verdict)
        return out, judge.judge(out)

    def close(self) -> None:
        """Whatever the schedule left: the link healed, the clients' consumers and producer closed."""
        if self.cut:
            self.adapter.deployment.faults.heal("blue", "green", one_way=self.cut == "cut")
            self.cut = None
        self.stack.close()

