"""Step 4 with a message TTL on A's namespace while B is unreachable (TM-S4-ttl), live: a tenant with a
TTL (an operator's usual bound on a backlog) goes on producing and consuming on A while A's link to B is
cut for longer than the TTL; once A's replicator to B has caught up again, a reader on B lists what B
holds (judge.judge_ttl).

The producer writes from the cut until A's replicator has caught up, so whenever the replicator comes
back (it waits out its reconnect backoff, up to about as long as the outage was) some sends are older
than the TTL by the heal and some are younger than it still when the replicator caught up: the judge
tells them apart by the send times. The TTL is set on A's namespace once the replicator runs: it is A's
replication backlog that waits, and a replicator takes the TTL at the replication check a policy change
triggers (PersistentTopic.checkReplication -> PersistentReplicator.updateMessageTTL), as a long-running one
has it anyway. A's consumer reads and acknowledges throughout: what the TTL does to A's own subscription
is not what is judged."""
from __future__ import annotations

import threading
import time
from dataclasses import asdict
from pathlib import Path

import pulsar

from pulsar_conformance.fixtures.deploy.admin import AdminError
from pulsar_conformance.wait import wait_until

from ...harness import outcome as saved
from ...harness import timeline
from . import observe
from .observe import SUBSCRIPTION
from .outcome import TtlOutcome, TtlPlan
from .scenario import _receive_one, captured, drain, on_a_and_b, write_until

CATCH_UP_S = 90.0
CONNECTED_S = 30.0
TTL_TAKEN_S = 2.0  # after the TTL is set: the replication check it triggers runs on the broker's executor


def _set_ttl(admin, namespace: str, seconds: int) -> dict:
    """The TTL as asked and as A's namespace then reports it, or the refusal (evidence either way)."""
    path = admin.namespace_path(namespace) + "/messageTTL"
    try:
        admin.request("POST", path, json=seconds)
        return {"asked": seconds, "effective": admin.request("GET", path)}
    except AdminError as error:
        return {"asked": seconds, "effective": None, "refused": f"{error.status}: {error.body[:200]}"}


def _consume(consumer, stop: threading.Event) -> None:
    received = [0]
    while not stop.is_set():
        _receive_one(consumer, received)


def run(deployment, run_dir: Path, name: str, namespace: str, plan: TtlPlan, *, seed: int) -> TtlOutcome:
    a, b = deployment.clusters["blue"], deployment.clusters["green"]
    topic = f"persistent://{namespace}/orders"
    line = timeline.Timeline(name)
    admin = deployment.admin("blue")
    ttl, errors = {"asked": plan.ttl_s, "effective": None}, []
    cut_ns = healed_ns = 0
    caught_up_ns, replicator, b_stored = None, {}, []
    with on_a_and_b(a, b, run_dir, name, plan, seed=seed, line=line) as (capture, client_a, client_b):
        capture.must_see(topic, SUBSCRIPTION)
        on_a = capture.consumer(client_a, topic, SUBSCRIPTION, name="c-a", cluster="blue",
                                consumer_type=pulsar.ConsumerType.Shared)
        producer = capture.producer(client_a, topic, name="p-a", cluster="blue", batching_enabled=False)
        # the replicator runs, connected, before the TTL is set and before B goes away
        wait_until(lambda: observe.replicator(a, b, topic).get("connected") is True, timeout=CONNECTED_S, interval=0.3)
        ttl = _set_ttl(admin, namespace, plan.ttl_s)
        line.mark(f"message TTL on A's namespace: asked {plan.ttl_s} s, A says {ttl.get('effective')}"
                  + (f" (refused {ttl['refused']})" if "refused" in ttl else ""))
        time.sleep(TTL_TAKEN_S)
        stop_writing, stop_reading = threading.Event(), threading.Event()
        writer = threading.Thread(target=write_until, args=(producer, plan.rate, stop_writing, errors), daemon=True)
        reader = threading.Thread(target=_consume, args=(on_a, stop_reading), daemon=True)
        try:
            deployment.faults.cut("blue", "green", one_way=True)
            cut_ns = line.mark(f"A -> B cut: B unreachable from A; A's producer writes {plan.rate:.0f} msg/s, "
                               "A's consumer reads and acknowledges them")
            writer.start()
            reader.start()
            time.sleep(max(0.0, cut_ns / 1e9 + plan.outage_s - time.time()))
            deployment.faults.heal("blue", "green", one_way=True)
            healed_ns = line.mark(f"A -> B healed: B reachable again after {(time.time_ns() - cut_ns) / 1e9:.1f} s")
            if wait_until(lambda: observe.replicated(a, b, topic), timeout=CATCH_UP_S, interval=0.3):
                caught_up_ns = line.mark("A's replicator to B caught up: connected, no backlog")
            else:
                line.mark(f"A's replicator to B did NOT catch up within {CATCH_UP_S:.0f} s")
            time.sleep(1.0)  # a last second of sends replicated live
        finally:
            stop_writing.set()
            if writer.ident is not None:
                writer.join(60)
            line.mark(f"producer stopped ({len(errors)} failed sends)")
            wait_until(lambda: observe.replicated(a, b, topic), timeout=30, interval=0.3)
            stop_reading.set()
            if reader.ident is not None:
                reader.join(10)
        replicator = observe.replicator(a, b, topic)
        drain(on_a, quiet=1.0, timeout=10)
        b_stored = [list(p) for p in observe.stored_all(client_b, topic)]
        line.mark(f"B holds {len(b_stored)} entries")
    columns, verdict = captured(run_dir), None  # Spark's verdict: the record step's (record.py)
    out = TtlOutcome(name, run_dir, topic, plan, verdict, line.markers, ttl, cut_ns, healed_ns, caught_up_ns,
                     replicator, b_stored, columns)
    timeline.save(run_dir, "tenant-migration", {"plan": asdict(plan), "ttl": ttl, "cut_ns": cut_ns,
                                                 "healed_ns": healed_ns, "caught_up_ns": caught_up_ns,
                                                 "replicator": replicator, "b_stored": b_stored},
                  line.markers, verdict)
    timeline.save_stored(run_dir, "green", [uid for uid, _ in b_stored])
    saved.save(out, run_dir)
    return out
