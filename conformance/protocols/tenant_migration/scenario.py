"""One tenant-migration run: a replicated subscription on A and B, a producer on A, a consumer on A
that acknowledges all but every k-th message (holes), time for cursor snapshots to carry progress
to B, the switch of the consumer to B, and what B delivers then.

Steps of the blog's migration: metadata and replication are in place (a namespace replicated
between blue = A and green = B); progress is synced by Pulsar's replicated subscriptions (the
subscription is created with replicateSubscriptionState on both sides before any message); the
switch closes the consumer on A and subscribes on B; A is not retired here (its data stays for the
evidence)."""
from __future__ import annotations

import time
from dataclasses import asdict, dataclass
from pathlib import Path

import pulsar

from pulsar_conformance.fixtures.capture import Capture

from ...harness import evidence, timeline
from ...harness.deadline import CLIENT_CALL_DEADLINE_S, Hung, within
from . import judge

SUBSCRIPTION = "migrating"


@dataclass(frozen=True)
class Plan:
    messages: int = 300
    hole_every: int = 10  # every k-th message stays unacknowledged on A ...
    holes_from: int = 1  # ... from this message on (a clean prefix lets A's markDeletePosition advance)
    rate: float = 0.0  # messages per second (0: as fast as the broker takes them); cursor snapshots come every second
    sub_type: str = "Shared"  # Shared | KeyShared
    settle_s: float = 8.0  # for cursor snapshots (every second by default) and the markDelete sync
    skip_on_b: int = 0  # a broken run: skip this many messages on B before the switch (a loss)


@dataclass
class Outcome:
    name: str
    run_dir: Path
    topic: str
    plan: Plan
    columns: dict
    verdict: dict
    markers: list
    a_cursor: dict
    b_cursor: dict
    figures: judge.Figures


def _cursor(cluster, topic: str) -> dict:
    stats = cluster.admin().get_or_refusal(cluster.admin().topic_path(topic) + "/internalStats")
    cursor = (stats.get("cursors") or {}).get(SUBSCRIPTION) or {}
    return {k: cursor.get(k) for k in ("markDeletePosition", "individuallyDeletedMessages", "readPosition")} | (
        {"error": stats["error"]} if "error" in stats else {})


def _settled_after(series: list[dict], side: str, final, since_ns: int) -> float | None:
    """Seconds from ``since_ns`` until ``side``'s position reached ``final`` and stayed (None: never seen)."""
    at = None
    for point in series:
        if point[side] == final:
            at = at if at is not None else point["ts_ns"]
        else:
            at = None
    return None if at is None else round((at - since_ns) / 1e9, 2)


def run(deployment, run_dir: Path, name: str, topic: str, plan: Plan, *, seed: int) -> Outcome:
    a, b = deployment.clusters["blue"], deployment.clusters["green"]
    line = timeline.Timeline(name)
    kind = getattr(pulsar.ConsumerType, plan.sub_type)
    options = {"consumer_type": kind, "replicate_subscription_state_enabled": True,
               "initial_position": pulsar.InitialPosition.Earliest}
    client_a, client_b = a.client(operation_timeout_seconds=10), b.client(operation_timeout_seconds=10)
    with Capture(run_dir, allowed=["redelivered_after_ack", "duplicate"],
                 scenario={"seed": seed, "name": name, **asdict(plan)}) as capture:
        try:
            capture.must_see(topic, SUBSCRIPTION)
            on_a = capture.consumer(client_a, topic, SUBSCRIPTION, name="c-a", cluster="blue", **options)
            # the replicated subscription exists on B too before any message, as the migration sets it up
            within(CLIENT_CALL_DEADLINE_S, "subscribe on B", lambda: client_b.subscribe(topic, SUBSCRIPTION, **options)).close()
            producer = capture.producer(client_a, topic, name="p-a", cluster="blue", batching_enabled=False)
            line.say(f"publishing {plan.messages} messages on A; acknowledging all but every {plan.hole_every}th")
            began = time.monotonic()
            for seq in range(1, plan.messages + 1):
                producer.send(b"m" * 64, key=f"k{seq % 8}")
                if plan.rate:
                    time.sleep(max(0.0, began + seq / plan.rate - time.monotonic()))
            received = 0
            while received < plan.messages:
                message = on_a.receive(10_000)
                received += 1
                _, _, tail = message.properties().get("uid", "").rpartition("/")
                seq = int(tail) if tail.isdigit() else 0
                if not (seq >= plan.holes_from and seq % plan.hole_every == 0):
                    on_a.acknowledge(message)
            acked_ns = line.mark(f"A: {plan.messages} delivered, the holes left unacknowledged")
            # both markDeletePositions over the settle time: how long B's takes to follow A's
            progress_seen = []
            while time.time_ns() - acked_ns < plan.settle_s * 1e9:
                progress_seen.append({"ts_ns": time.time_ns(), "a": _cursor(a, topic).get("markDeletePosition"),
                                      "b": _cursor(b, topic).get("markDeletePosition")})
                time.sleep(0.5)
            a_cursor = _cursor(a, topic)
            b_cursor = _cursor(b, topic)
            b_cursor["followed_s"] = _settled_after(progress_seen, "b", b_cursor.get("markDeletePosition"), acked_ns)
            line.mark(f"cursors: A markDelete {a_cursor.get('markDeletePosition')}, "
                      f"B markDelete {b_cursor.get('markDeletePosition')}")
            if plan.skip_on_b:
                b.admin().request("POST", b.admin().topic_path(topic) + f"/subscription/{SUBSCRIPTION}/skip/{plan.skip_on_b}")
                line.mark(f"BROKEN RUN: {plan.skip_on_b} messages skipped on B")
            within(CLIENT_CALL_DEADLINE_S, "close the consumer on A", on_a.close)
            line.mark("switch: the consumer moves to B")
            on_b = capture.consumer(client_b, topic, SUBSCRIPTION, name="c-b", cluster="green", **options)
            quiet_since = time.monotonic()
            while time.monotonic() - quiet_since < 4.0:
                try:
                    message = on_b.receive(500)
                except pulsar.Timeout:
                    continue
                on_b.acknowledge(message)
                quiet_since = time.monotonic()
            line.mark("B: drained")
        finally:
            for label, client in (("A", client_a), ("B", client_b)):
                try:
                    within(CLIENT_CALL_DEADLINE_S, f"client {label} close()", client.close)
                except Hung as hung:
                    line.hung([hung.call])
    columns = evidence.read_capture(run_dir)
    verdict = timeline.spark_verdict(run_dir, columns, line)
    f = judge.figures(columns, topic, a_cursor, b_cursor)
    line.say(f.text())
    timeline.save(run_dir, "tenant-migration", {"plan": asdict(plan), "a_cursor": a_cursor, "b_cursor": b_cursor,
                                                 "progress": progress_seen, "figures": asdict(f)}, line.markers, verdict)
    return Outcome(name, run_dir, topic, plan, columns, verdict, line.markers, a_cursor, b_cursor, f)
