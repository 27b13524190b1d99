"""The seed's step 4's unloads (TM-S4), live: producers on A keep writing while A's replicator to B
carries a backlog, and the tenant's namespace is unloaded on A and then on B ("trigger topic unload
so that clients can renew"); once the replicator drained, a reader on B lists every entry B holds
(judge.judge_unloads). The same with broker restarts instead of unloads (``UnloadPlan.switch``):
A's cluster restarted, then B's, gracefully, as an operator's rolling restart does, while the
producers write on.

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
from pulsar_conformance.fixtures.deploy.base import FaultUnsupported
from pulsar_conformance.wait import wait_until

from ...harness import outcome as saved
from ...harness import timeline
from ...harness.deadline import CLIENT_CALL_DEADLINE_S, within
from . import observe
from .existing_data import retain_on_a
from .observe import SUBSCRIPTION
from .outcome import UnloadOutcome, UnloadPlan
from .scenario import captured, drain, on_a_and_b, write_until

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


def _restart(deployment, cluster: str, namespace: str, topic: str, line) -> dict:
    """The cluster stopped gracefully and started again on its data (``deployment.faults.restart``); a
    deployment that cannot restart raises FaultUnsupported, which leaves the scenario unknown."""
    replicator = observe.replicator(deployment.clusters["blue"], deployment.clusters["green"], topic)
    at = line.mark(f"restart of {cluster} (A's replication backlog {replicator.get('replicationBacklog')})")
    try:
        deployment.faults.restart(cluster)
        answer = "ok"
    except FaultUnsupported:
        raise
    except Exception as error:  # noqa: BLE001 - a restart that failed is the run's evidence, judged unknown
        answer = f"failed: {type(error).__name__}: {str(error)[:200]}"
    took = round((time.time_ns() - at) / 1e9, 1)
    line.mark(f"{cluster} restarted: {answer} ({took} s)")
    return {"cluster": cluster, "ts_ns": at, "answer": answer, "backlog": replicator.get("replicationBacklog"),
            "connected": replicator.get("connected"), "took_s": took}


SWITCH = {"unload": _unload, "restart": _restart}


def run(deployment, run_dir: Path, name: str, namespace: str, plan: UnloadPlan, *, seed: int) -> UnloadOutcome:
    a, b = deployment.clusters["blue"], deployment.clusters["green"]
    topic = f"persistent://{namespace}/orders"
    line = timeline.Timeline(name)
    if plan.dedup:
        for cluster in ("blue", "green"):
            admin = deployment.admin(cluster)
            admin.request("POST", admin.namespace_path(namespace) + "/deduplication", json=True)
    if plan.retain_on_a:
        retain_on_a(deployment, namespace)
    settings = {"replicationProducerQueueSize": or_refusal(a.admin().runtime_config).get("replicationProducerQueueSize"),
                "dedup_on_b": or_refusal(b.admin().request, "GET", b.admin().namespace_path(namespace) + "/deduplication")}
    unloads, catch_up, b_stored, a_stored, errors = [], {}, [], None, []
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
        began, stop = time.monotonic(), threading.Event()
        writers = [threading.Thread(target=write_until, args=(p, plan.rate / plan.producers, stop, errors), daemon=True)
                   for p in producers]
        for w in writers:
            w.start()
        try:
            time.sleep(plan.unload_at_s)
            unloads = [SWITCH[plan.switch](deployment, c, namespace, topic, line) for c in ("blue", "green")]
            # the producers write at least plan.seconds, and on for 2 s after a restart's switch
            tail = 0.0 if plan.switch == "unload" else 2.0
            time.sleep(max(tail, began + plan.seconds - time.monotonic()))
        finally:
            stop.set()
            for w in writers:
                w.join(90)
        line.mark(f"producers stopped ({len(errors)} failed sends)")
        _throttle(a.admin(), namespace, None)
        lifted = line.mark("throttle lifted: A's replicator drains")
        caught_up = wait_until(lambda: observe.replicated(a, b, topic), timeout=CATCH_UP_S, interval=0.5)
        catch_up = {"caught_up_s": round((time.time_ns() - lifted) / 1e9, 2) if caught_up else None,
                    "replicator": observe.replicator(a, b, topic)}
        line.mark("B holds every entry A has" if caught_up else f"B did NOT catch up within {CATCH_UP_S:.0f} s")
        b_stored = [list(p) for p in observe.stored_all(client_b, topic)]
        if plan.retain_on_a:
            a_stored = [list(p) for p in observe.stored_all(client_a, topic, "A")]
        on_b = capture.consumer(client_b, topic, SUBSCRIPTION, name="c-b", cluster="green",
                                consumer_type=pulsar.ConsumerType.Shared)
        received = drain(on_b, quiet=3.0, timeout=90)
        line.mark(f"B: {len(b_stored)} entries; the consumer on B got {received}")
    columns, verdict = captured(run_dir), None  # Spark's verdict: the record step's (record.py)
    out = UnloadOutcome(name, run_dir, topic, plan, verdict, line.markers, unloads, settings,
                        catch_up.get("caught_up_s"), catch_up.get("replicator") or {}, b_stored, columns, a_stored)
    timeline.save(run_dir, "tenant-migration", {"plan": asdict(plan), "unloads": unloads, "settings": settings,
                                                 **catch_up, "b_stored": b_stored, "a_stored": a_stored},
                  line.markers, verdict)
    timeline.save_stored(run_dir, "green", [uid for uid, _ in b_stored])
    saved.save(out, run_dir)
    return out
