"""The seed's step 5 after the switch (TM-S5), live: the tenant's data and its replicated subscription
are on B, then A is cleaned up in the order that loses nothing: A removed from B's replication
clusters first (B stops replicating back), A's replication backlog to B drained, then B removed from
A's list and the tenant's topic deleted on A (``--force``: it has a replicator) and its namespace.
What B holds and where its subscription stands are read right before and right after the clean-up,
then the consumer on B drains (judge.judge_cleanup).

With independent configuration stores (the suite's deployments) nothing of this reaches B through
Pulsar: PersistentTopic.delete on A makes no call to B, and B's removeReplicator(A) deletes only B's
cursor pulsar.repl.<A>."""
from __future__ import annotations

import time
from dataclasses import asdict
from pathlib import Path

import pulsar

from pulsar_conformance.fixtures.deploy.admin import AdminError
from pulsar_conformance.wait import wait_until

from ...harness import outcome as saved
from ...harness import timeline
from ...harness.deadline import CLIENT_CALL_DEADLINE_S, within
from . import observe
from .observe import SUBSCRIPTION
from .outcome import CleanupOutcome, CleanupPlan
from .scenario import _moved_and_still, captured, drain, on_a_and_b, subscribe_on_b_then_open_a

DRAINED_S = 60.0


def _step(steps: list[dict], line, what: str, call) -> bool:
    """Run one clean-up call; its answer (or refusal) is evidence either way."""
    at = time.time_ns()
    try:
        call()
        steps.append({"step": what, "ts_ns": at, "answer": "ok"})
        line.mark(f"clean-up: {what}")
        return True
    except AdminError as error:
        steps.append({"step": what, "ts_ns": at, "answer": f"refused {error.status}: {error.body[:200]}"})
        line.mark(f"clean-up: {what} REFUSED ({error.status})")
        return False


def _topic_listed(admin, namespace: str, topic: str) -> bool | None:
    try:
        return topic in admin.request("GET", admin.topics_path(namespace))
    except AdminError:
        return None


def clean_up(a, b, namespace: str, topic: str, line) -> tuple[list[dict], bool | None]:
    """The order that loses nothing; returns the steps and whether A no longer lists the topic."""
    tenant, ns = namespace.split("/")
    steps: list[dict] = []
    _step(steps, line, "B: replication clusters [B] (A removed from B's list)",
          lambda: b.admin().set_replication(tenant, ns, [b.name]))
    drained = wait_until(lambda: observe.replicated(a, b, topic), timeout=DRAINED_S, interval=0.5)
    steps.append({"step": "A's replication backlog to B drained", "ts_ns": time.time_ns(),
                  "answer": "ok" if drained else f"NOT within {DRAINED_S:.0f} s: {observe.replicator(a, b, topic)}"})
    if not drained:
        return steps, None
    _step(steps, line, "A: replication clusters [A] (B removed from A's list)",
          lambda: a.admin().set_replication(tenant, ns, [a.name]))
    _step(steps, line, "A: topic deleted (force)",
          lambda: a.admin().request("DELETE", a.admin().topic_path(topic), params={"force": "true"}))
    gone = wait_until(lambda: _topic_listed(a.admin(), namespace, topic) is False, timeout=15, interval=0.5)
    _step(steps, line, "A: namespace deleted",
          lambda: a.admin().request("DELETE", a.admin().namespace_path(namespace)))
    return steps, bool(gone)


def run(deployment, run_dir: Path, name: str, namespace: str, plan: CleanupPlan, *, seed: int) -> CleanupOutcome:
    a, b = deployment.clusters["blue"], deployment.clusters["green"]
    topic = f"persistent://{namespace}/orders"
    line = timeline.Timeline(name)
    options = {"consumer_type": pulsar.ConsumerType.Shared, "replicate_subscription_state_enabled": True,
               "initial_position": pulsar.InitialPosition.Earliest}
    steps, gone, before, after, b_before, b_after = [], None, {}, {}, {}, {}
    with on_a_and_b(a, b, run_dir, name, plan, seed=seed, line=line) as (capture, client_a, client_b):
        on_a, producer = subscribe_on_b_then_open_a(capture, client_a, client_b, topic, options)
        began = time.monotonic()
        for seq in range(1, plan.messages + 1):
            producer.send(b"m" * 64, key=f"k{seq % 8}")
            time.sleep(max(0.0, began + seq / plan.rate - time.monotonic()))
        for seq in range(1, plan.messages + 1):
            message = on_a.receive(10_000)
            if seq <= plan.acked:
                on_a.acknowledge(message)
        line.mark(f"A: {plan.messages} sent, the first {plan.acked} acknowledged")
        series: list[dict] = []
        observe.poll(series, a, b, topic, until_ns=time.time_ns() + int(plan.settle_s * 1e9),
                     done=_moved_and_still)
        within(CLIENT_CALL_DEADLINE_S, "close the consumer on A", on_a.close)
        within(CLIENT_CALL_DEADLINE_S, "close the producer on A", producer.close)
        line.mark("switch: producer and consumer leave A")
        before, b_before = observe.cursor(b, topic), observe.stored_on(client_b, topic)
        steps, gone = clean_up(a, b, namespace, topic, line)
        after, b_after = observe.cursor(b, topic), observe.stored_on(client_b, topic)
        line.mark(f"B after the clean-up: {len(b_after)} messages, markDelete {after.get('markDeletePosition')}")
        on_b = capture.consumer(client_b, topic, SUBSCRIPTION, name="c-b", cluster="green", **options)
        received = drain(on_b, quiet=3.0, timeout=60)
        line.mark(f"B: drained, {received} delivered")
    columns, verdict = captured(run_dir), None  # Spark's verdict: the record step's (record.py)
    out = CleanupOutcome(name, run_dir, topic, plan, verdict, line.markers, steps, gone, before, after,
                         b_before, b_after, columns)
    timeline.save(run_dir, "tenant-migration", {"plan": asdict(plan), "steps": steps, "a_topic_gone": gone,
                                                 "b_cursor_before": before, "b_cursor_after": after,
                                                 "b_before": b_before, "b_after": b_after}, line.markers, verdict)
    saved.save(out, run_dir)
    return out

