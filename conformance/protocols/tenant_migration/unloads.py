"""The seed's step 4's unloads (TM-S4), live: producers on A keep writing while A's replicator to B
carries a backlog, and the tenant's namespace is unloaded on A and then on B ("trigger topic unload
so that clients can renew"); once the replicator drained, a reader on B lists every entry B holds
(judge.judge_unloads).

The backlog is made by throttling A's replicator (the namespace's replicatorDispatchRate) rather
than by cutting the link: a cut replicator reconnects with a backoff of up to a minute, a throttled
one drains as soon as the throttle is lifted, and the throttle is an admin call any deployment takes.
Deduplication, where the plan asks for it, is enabled on the namespace on both sides before any
message; the producers then have fixed names (their sequence ids are what B deduplicates on)."""
from __future__ import annotations

import threading
import time
from dataclasses import asdict
from pathlib import Path

import pulsar

from pulsar_conformance.fixtures.deploy.admin import AdminError, or_refusal
from pulsar_conformance.wait import wait_until

from ...harness import outcome as saved
from ...harness import timeline
from ...harness.deadline import CLIENT_CALL_DEADLINE_S, within
from . import observe
from .observe import SUBSCRIPTION
from .outcome import UnloadOutcome, UnloadPlan
from .scenario import drain, on_a_and_b, read_verdict

CATCH_UP_S = 90.0


def _throttle(admin, namespace: str, rate: int | None) -> None:
    """A's replicator dispatch rate for the namespace (``None``: lifted)."""
    path = admin.namespace_path(namespace) + "/replicatorDispatchRate"
    if rate is None:
        try:
            admin.request("DELETE", path)
            return
        except AdminError:
            rate = -1  # a release without the DELETE: unlimited
    admin.request("POST", path, json={"dispatchThrottlingRateInMsg": rate, "dispatchThrottlingRateInByte": -1,
                                      "ratePeriodInSecond": 1, "relativeToPublishRate": False})


def _unload(deployment, cluster: str, namespace: str, topic: str, line) -> dict:
    admin = deployment.admin(cluster)
    replicator = observe.replicator(deployment.clusters["blue"], deployment.clusters["green"], topic)
    at = time.time_ns()
    try:
        admin.request("PUT", admin.namespace_path(namespace) + "/unload")
        answer = "ok"
    except AdminError as error:
        answer = f"refused {error.status}: {error.body[:200]}"
    line.mark(f"unload on {cluster}: {answer} (A's replication backlog {replicator.get('replicationBacklog')})", at)
    return {"cluster": cluster, "ts_ns": at, "answer": answer, "backlog": replicator.get("replicationBacklog"),
            "connected": replicator.get("connected")}


def _write(producer, rate: float, until: float, errors: list) -> None:
    """Send at ``rate`` until ``until`` (monotonic); a failed send is captured and writing goes on."""
    began, n = time.monotonic(), 0
    while time.monotonic() < until:
        n += 1
        try:
            producer.send(b"m" * 64, key=f"k{n % 8}")
        except Exception as error:  # noqa: BLE001 - the capture recorded it; the scenario judges sends that succeeded
            errors.append(type(error).__name__)
        time.sleep(max(0.0, began + n / rate - time.monotonic()))


def run(deployment, run_dir: Path, name: str, namespace: str, plan: UnloadPlan, *, seed: int) -> UnloadOutcome:
    a, b = deployment.clusters["blue"], deployment.clusters["green"]
    topic = f"persistent://{namespace}/orders"
    line = timeline.Timeline(name)
    if plan.dedup:
        for cluster in ("blue", "green"):
            admin = deployment.admin(cluster)
            admin.request("POST", admin.namespace_path(namespace) + "/deduplication", json=True)
    settings = {"replicationProducerQueueSize": or_refusal(a.admin().runtime_config).get("replicationProducerQueueSize"),
                "dedup_on_b": or_refusal(b.admin().request, "GET", b.admin().namespace_path(namespace) + "/deduplication")}
    unloads, catch_up, b_stored, errors = [], {}, [], []
    with on_a_and_b(a, b, run_dir, name, plan, seed=seed, line=line) as (capture, client_a, client_b):
        capture.must_see(topic, SUBSCRIPTION)
        within(CLIENT_CALL_DEADLINE_S, "subscribe on B", lambda: client_b.subscribe(
            topic, SUBSCRIPTION, consumer_type=pulsar.ConsumerType.Shared,
            initial_position=pulsar.InitialPosition.Earliest)).close()
        producers = [capture.producer(client_a, topic, name=f"p-a{k}", cluster="blue", batching_enabled=False,
                                      producer_name=f"p-a{k}-{capture.run_id}", send_timeout_millis=60_000)
                     for k in range(1, plan.producers + 1)]
        _throttle(a.admin(), namespace, plan.throttle)
        line.mark(f"A's replicator throttled to {plan.throttle} msg/s; {plan.producers} producer(s) write "
                  f"{plan.rate:.0f} msg/s for {plan.seconds:.0f} s")
        until = time.monotonic() + plan.seconds
        writers = [threading.Thread(target=_write, args=(p, plan.rate / plan.producers, until, errors), daemon=True)
                   for p in producers]
        for w in writers:
            w.start()
        time.sleep(plan.unload_at_s)
        unloads = [_unload(deployment, c, namespace, topic, line) for c in ("blue", "green")]
        for w in writers:
            w.join(plan.seconds + 90)
        line.mark(f"producers stopped ({len(errors)} failed sends)")
        _throttle(a.admin(), namespace, None)
        lifted = line.mark("throttle lifted: A's replicator drains")
        caught_up = wait_until(lambda: observe.replicated(a, b, topic), timeout=CATCH_UP_S, interval=0.5)
        catch_up = {"caught_up_s": round((time.time_ns() - lifted) / 1e9, 2) if caught_up else None,
                    "replicator": observe.replicator(a, b, topic)}
        line.mark("B holds every entry A has" if caught_up else f"B did NOT catch up within {CATCH_UP_S:.0f} s")
        b_stored = [list(p) for p in observe.stored_all(client_b, topic)]
        on_b = capture.consumer(client_b, topic, SUBSCRIPTION, name="c-b", cluster="green",
                                consumer_type=pulsar.ConsumerType.Shared)
        received = drain(on_b, quiet=3.0, timeout=90)
        line.mark(f"B: {len(b_stored)} entries; the consumer on B got {received}")
    columns, verdict = read_verdict(run_dir, line)
    out = UnloadOutcome(name, run_dir, topic, plan, verdict, line.markers, unloads, settings,
                        catch_up.get("caught_up_s"), catch_up.get("replicator") or {}, b_stored, columns)
    timeline.save(run_dir, "tenant-migration", {"plan": asdict(plan), "unloads": unloads, "settings": settings,
                                                 **catch_up, "b_stored": b_stored}, line.markers, verdict)
    saved.save(out, run_dir)
    return out
