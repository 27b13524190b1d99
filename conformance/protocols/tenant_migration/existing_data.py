"""The seed's step 2 on a tenant that already has data (TM-S2), live: A holds a backlog and retained
messages before B is added to the namespace's replication clusters; then B is added, more is sent,
and the consumer moves to B. What reached B, and what the consumer got there, is judged against the
broker's replicationStartAt (judge.judge_start).

Step 1 (metadata) is done first: the tenant allows both clusters on both sides, the namespace exists
on both, B's namespace already lists both clusters, and the replicated subscription exists on B.
Only A's namespace starts replicated to A alone. ``replicationStartAt`` is a broker-wide dynamic
setting: it is set on A just before B is added and removed again (back to the release's default)
whatever happens, so no later scenario inherits it."""
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
from .outcome import StartOutcome, StartPlan
from .scenario import captured, drain, on_a_and_b, subscribe_on_b_then_open_a

SETTING = "replicationStartAt"
CATCH_UP_S = 60.0
RETENTION = {"retentionTimeInMinutes": 60, "retentionSizeInMB": 100}  # A keeps what it acknowledged


def prepare(deployment, tenant: str, namespace: str) -> str:
    """Step 1: tenant and namespace on both, B's namespace replicated to both, A's to A only (Pulsar
    is given the clusters' own names; the roles blue and green are the suite's)."""
    a, b = deployment.clusters["blue"], deployment.clusters["green"]
    both = [a.name, b.name]
    for role in ("blue", "green"):
        admin = deployment.admin(role)
        admin.put_tenant(tenant, both)
        admin.put_namespace(tenant, namespace)
    deployment.admin("blue").set_replication(tenant, namespace, [a.name])
    deployment.admin("green").set_replication(tenant, namespace, both)
    retain_on_a(deployment, f"{tenant}/{namespace}")
    return f"{tenant}/{namespace}"


def retain_on_a(deployment, namespace: str) -> None:
    """A's namespace keeps what it stores (RETENTION), acknowledged or not, so it can be read back."""
    admin = deployment.admin("blue")
    admin.request("POST", admin.retention_path(namespace), json=RETENTION)


def set_start(admin, value: str) -> dict:
    """``replicationStartAt`` set on A and read back (``present``: the release has the key; None where A
    refused to show its configuration, which says nothing of the key, so nothing is set)."""
    found = admin.setting(SETTING)
    if "present" not in found:
        return {"asked": value, "present": None, "effective": None,
                "refused": f"runtime configuration not read: {found['error']}: {found['body'][:200]}"}
    setting = {"asked": value, "present": found["present"], "refused": None, "effective": found["value"]}
    if not value:
        return setting
    try:
        admin.set_dynamic_config(SETTING, value)
    except AdminError as error:
        return setting | {"refused": f"{error.status}: {error.body[:200]}"}
    # the broker applies a dynamic setting when its metadata listener fires: read until it shows
    wait_until(lambda: admin.runtime_config().get(SETTING) == value, timeout=15, interval=0.5)
    return setting | {"effective": admin.runtime_config().get(SETTING)}


def reset_start(admin) -> None:
    """Back to the release's default (the dynamic override deleted), so no later scenario inherits it."""
    try:
        admin.delete_dynamic_config(SETTING)
    except AdminError:
        admin.set_dynamic_config(SETTING, "latest")


def run(deployment, run_dir: Path, name: str, namespace: str, plan: StartPlan, *, seed: int) -> StartOutcome:
    a, b = deployment.clusters["blue"], deployment.clusters["green"]
    tenant, ns = namespace.split("/")
    topic = f"persistent://{namespace}/orders"
    line = timeline.Timeline(name)
    options = {"consumer_type": pulsar.ConsumerType.Shared, "replicate_subscription_state_enabled": True,
               "initial_position": pulsar.InitialPosition.Earliest}
    setting, added_ns, a_before, repl_cursor, catch_up, b_positions = {}, 0, {}, {}, {}, {}
    with on_a_and_b(a, b, run_dir, name, plan, seed=seed, line=line) as (capture, client_a, client_b):
        try:
            on_a, producer = subscribe_on_b_then_open_a(capture, client_a, client_b, topic, options)
            line.say(f"A alone: {plan.before} messages, {plan.acked_before} acknowledged, the rest A's backlog")
            for seq in range(1, plan.before + 1):
                producer.send(b"m" * 64, key=f"k{seq % 8}")
            for seq in range(1, plan.before + 1):
                message = on_a.receive(10_000)
                if seq <= plan.acked_before:
                    on_a.acknowledge(message)
            within(CLIENT_CALL_DEADLINE_S, "close the consumer on A", on_a.close)
            line.mark(f"A: {plan.before} stored, {plan.acked_before} acknowledged; the consumer left A")
            a_before = observe.cursor(a, topic)
            setting = set_start(a.admin(), plan.start_at)
            line.mark(f"{SETTING} on A: asked {plan.start_at or '(default)'}, effective {setting.get('effective')!r}"
                      + (f", refused {setting['refused']}" if setting.get("refused") else ""))
            a.admin().set_replication(tenant, ns, [a.name, b.name])
            added_ns = line.mark("B added to A's replication clusters")
            repl_cursor = observe.replicator_start(a, b, topic)
            line.mark(f"A's replicator to B starts at {repl_cursor.get('markDeletePosition')} "
                      f"(A's last entry {a_before.get('lastConfirmedEntry')})")
            for seq in range(plan.before + 1, plan.before + plan.after + 1):
                producer.send(b"m" * 64, key=f"k{seq % 8}")
            sent_ns = line.mark(f"A: {plan.after} more sent after B was added")
            caught_up = wait_until(lambda: observe.replicated(a, b, topic), timeout=CATCH_UP_S, interval=0.5)
            catch_up = {"caught_up_s": round((time.time_ns() - sent_ns) / 1e9, 2) if caught_up else None,
                        "replicator": observe.replicator(a, b, topic)}
            line.mark("switch: the consumer moves to B" if caught_up else
                      f"B did NOT catch up within {CATCH_UP_S:.0f} s; the consumer moves to B anyway")
            on_b = capture.consumer(client_b, topic, SUBSCRIPTION, name="c-b", cluster="green", **options)
            received = drain(on_b, quiet=3.0, timeout=60)
            line.mark(f"B: drained, {received} delivered")
            b_positions = observe.stored_on(client_b, topic)
        finally:
            if plan.start_at and setting.get("present"):
                reset_start(a.admin())
    columns, verdict = captured(run_dir), None  # Spark's verdict: the record step's (record.py)
    out = StartOutcome(name, run_dir, topic, plan, verdict, line.markers, setting, added_ns, a_before, repl_cursor,
                       catch_up.get("caught_up_s"), catch_up.get("replicator") or {}, b_positions, columns)
    timeline.save(run_dir, "tenant-migration", {"plan": asdict(plan), "setting": setting, "on_a": a_before,
                                                 "replicator_cursor": repl_cursor, **catch_up,
                                                 "b_positions": b_positions}, line.markers, verdict)
    saved.save(out, run_dir)
    return out

