"""PIP-188 with a third region, without automatic resource creation, and across a blue restart.

One deployment (remote, blue, green) for the module. Blue runs the migration task every second
and starts with automatic resource creation OFF (Pulsar's default). In order:
1. namespace-level migration without automatic resource creation: what the spec's
   no-auto-create variant predicts (a subscription created on green only when its consumer
   arrives, at the latest position, misses what green stored before) against what happens;
2. blue restarted (now with automatic resource creation on) after that migration: the
   migration state survives and blue still sends every client to green;
3. a subscription of a migrated topic left with a backlog on blue and no consumer; its new
   consumer, back through blue (restarted in between, or not: the control), must still drain
   blue before green;
4. cluster-level migration of a namespace replicated between blue and the remote region:
   the remote region is stopped just before the trigger and resumed later, so producers must be
   held until the remote has all of blue's messages (feature 4), and a producer in the remote
   region keeps its order into blue's subscriptions across the switch (feature 3).
"""
from __future__ import annotations

import os
import time

import pytest

from pulsar_conformance.fixtures.deploy.admin import or_refusal
from pulsar_conformance.fixtures.deploy.base import FaultUnsupported
from pulsar_conformance.wait import wait_until

from ...harness import evidence
from ...harness.traffic import Sub, TopicLoad
from ...run import VerdictUnknown
from . import judge, namespace_level, observe, scenario, tls_modes, trace
from .checks import CHECKS
from .verdicts import (
    Recorder,
    blue_log,
    judge_clients,
    judge_topics,
    record_traces,
)

pytestmark = [pytest.mark.cluster_migration, pytest.mark.pulsar, pytest.mark.spark]

TENANT = "mig"
CLUSTERS = ("remote", "blue", "green")
NOAUTO = f"{TENANT}/noauto"


@pytest.fixture(scope="module")
def regions(pulsar_deployment_factory, certify_run):  # noqa: F811 - a fixture argument
    deployment = tls_modes.deploy(
        pulsar_deployment_factory, CLUSTERS, name=f"mig-regions-{os.getpid()}",
        broker_config={"blue": {"clusterMigrationCheckDurationSeconds": 1,
                                "clusterMigrationAutoResourceCreation": False}})
    for name in CLUSTERS:
        deployment.admin(name).put_tenant(TENANT, list(CLUSTERS))
    yield deployment
    collect = getattr(deployment, "collect_logs", None)
    if collect is not None:
        collect(certify_run.directory("logs", "cluster-migration-regions"))
    deployment.close()


def _rows(out, topic: str, kind, **where) -> list[dict]:
    return evidence.rows(out.columns, kind=kind, topic=topic, **where)


def test_without_auto_resource_creation(regions, certify_run, request):
    deployment = regions
    blue, green = deployment.clusters["blue"], deployment.clusters["green"]
    observe.create_namespace(deployment, NOAUTO, {"blue": ["blue"], "green": ["green"]})
    if namespace_level.lacking(certify_run, request, blue, NOAUTO, "no-auto-create"):
        return
    subs = (Sub("earliest-fast", "Exclusive"), Sub("earliest-slow", "Exclusive", delay=0.05),
            # Latest is Pulsar's default; their losses are what this scenario measures
            Sub("latest-fast", "Exclusive", must_see=False, latest=True),
            Sub("latest-slow", "Exclusive", delay=0.05, must_see=False, latest=True))
    load = TopicLoad(f"persistent://{NOAUTO}/orders", subs, rate=60.0)

    answers: dict[str, observe.NamespaceMigrationAnswer] = {}

    def trigger() -> str:
        observe.migrate_cluster(blue.admin(), "blue", green, migrated=False)
        answers["loaded"] = observe.ask_namespace_migration(blue.admin(), NOAUTO, "loaded")
        return f"namespace {NOAUTO} migrated (automatic resource creation off): {answers['loaded'].describe()}"

    # the slow subscriptions must reach green while it still gets messages (a Latest one created there
    # later reads nothing, and its switch would go unobserved)
    out = scenario.run(deployment, certify_run.directory("captures", "no-auto-create"), [load], trigger,
                       seed=certify_run.seed, after_s=8.0, until_blue_read=30.0)
    rec = Recorder(certify_run, request, out, CHECKS)
    prefix = "no-auto-create"
    if not answers["loaded"].ok:  # nothing was migrated: R06 fails on blue's answer, the rest is not judged here
        namespace_level.record(rec, prefix, answers["loaded"])
        rec.finish()
        return
    judge_topics(rec, out, [load.topic], prefix)
    record_traces(rec, out, prefix, latest=frozenset(s.name for s in subs if s.latest), auto_create=False)
    o = out.topics[load.topic]
    sends = _rows(out, load.topic, "send_ok", cluster="blue")
    missed = {s.name: judge.missed(sends, _rows(out, load.topic, "receive", subscription=s.name), o.placement)
              for s in subs}
    # the spec's no-auto-create variant: only a subscription created on green at the latest
    # position can miss messages, and only those green stored before it was created
    explained = all(m["other"] == 0 for m in missed.values()) and not any(
        sum(missed[s.name].values()) for s in subs if not s.latest)
    confirmed = missed["latest-slow"]["green_before_subscription"] > 0
    rec(f"{prefix}/spec-prediction", None if not o.producers or not o.producers[0].on_green
        else explained and confirmed,
        f"acknowledged sends never delivered, per subscription: {missed}; the no-auto-create spec variant predicts "
        f"losses only for Latest subscriptions, only of what green stored before they reached it "
        f"({'confirmed' if confirmed else 'the backlogged Latest subscription lost nothing: not confirmed'}); "
        f"green's subscriptions at the end: {sorted(o.green.subscriptions)}",
        missed=missed)
    judge_clients(rec, out.topics, blue_log(deployment), prefix)
    rec.finish()


def test_blue_restart_after_migration(regions, certify_run, request):
    deployment = regions
    blue, green = deployment.clusters["blue"], deployment.clusters["green"]
    topic = f"persistent://{NOAUTO}/orders"
    before = observe.topic_state(blue, topic)
    if before.state != "Terminated":
        raise VerdictUnknown(f"{topic} was not migrated by the scenario before (blue: {before.error or before.state})")
    started = time.monotonic()
    try:
        deployment.restart("blue", {"clusterMigrationAutoResourceCreation": True})
    except FaultUnsupported as error:
        raise VerdictUnknown(f"cannot restart blue on this deployment: {error}") from error
    restart_s = round(time.monotonic() - started, 1)
    # the same subscription and a new one, and a producer, all through the restarted blue
    load = TopicLoad(topic, (Sub("earliest-fast", "Exclusive"), Sub("after-restart", "Exclusive")), rate=30.0)
    out = scenario.run(deployment, certify_run.directory("captures", "blue-restart"), [load],
                       lambda: f"traffic through blue {restart_s} s restart earlier", seed=certify_run.seed,
                       before_s=0.0, after_s=5.0, drain_seconds=20.0)
    rec = Recorder(certify_run, request, out, CHECKS)
    prefix = "blue-restart"
    record_traces(rec, out, prefix)
    o = out.topics[topic]
    after = observe.topic_state(blue, topic)
    p = o.producers[0] if o.producers else None
    producer = next(h.name for h in out.traffic.handles if h.kind == "producer")
    rec(f"{prefix}/producer-to-green", bool(p and p.on_green and not p.on_blue),
        f"after blue's restart ({restart_s} s) a producer through blue stored {p.on_green if p else 0} sends on green, "
        f"{p.on_blue if p else 0} on blue, {p.send_errors if p else 0} failed; blue's entries {before.entries} -> "
        f"{after.entries if after.error is None else after.error}" + out.traffic.refusal(producer))
    for s in o.subscriptions:
        consumers = [h.name for h in out.traffic.handles if h.subscription == s.name]
        rec(f"{prefix}/{s.name}/consumer-to-green", s.from_green > 0 and s.from_blue == 0,
            f"{s.from_green} deliveries from green, {s.from_blue} from blue, redirect {s.redirect_s} s"
            + "".join(out.traffic.refusal(c) for c in consumers))
    blue_ns = or_refusal(blue.admin().namespace_policies, NOAUTO)
    green_ns = or_refusal(green.admin().namespace_policies, NOAUTO)
    rec(f"{prefix}/state-survives", blue_ns.get("migrated") is True and green_ns.get("migrated") is False and after.migrated_property in (None, "true")
        and (after.error is not None or after.state == "Terminated"),
        f"after the restart: blue's {NOAUTO} migrated={blue_ns.get('migrated')}, green's migrated={green_ns.get('migrated')}; "
        f"blue's topic: {after.error or f'state {after.state}, properties.migrated={after.migrated_property}'}")
    rec(f"{prefix}/not-recreated", after.error is not None or after.entries == before.entries,
        f"blue's {topic}: {before.entries} entries before the restart, "
        f"{after.error or f'{after.entries} after the traffic through blue'}")
    rec.finish()


@pytest.mark.parametrize("restart", [False, True], ids=["reconnect", "blue-restarted"])
def test_stranded_backlog(regions, certify_run, request, restart):
    """A subscription of a migrated topic still has a backlog on blue and no consumer; its
    consumer comes back through blue, after a restart of blue or (the control) without one.
    PIP-188 says a consumer drains blue before it moves to green, restart or not (R02, R04)."""
    deployment = regions
    blue, green = deployment.clusters["blue"], deployment.clusters["green"]
    name = "stranded-restart" if restart else "stranded"
    ns = observe.create_namespace(deployment, f"{TENANT}/{name}", {"blue": ["blue"], "green": ["green"]})
    if namespace_level.lacking(certify_run, request, blue, ns, name):
        return
    topic = f"persistent://{ns}/orders"
    # "parked" reads 5 a second of 40: its backlog on blue grows until it is closed
    load = TopicLoad(topic, (Sub("steady", "Exclusive"), Sub("parked", "Exclusive", delay=0.2)), rate=40.0)
    blue_states: dict[str, observe.TopicState] = {}
    facts: dict[str, object] = {}

    answers: dict[str, observe.NamespaceMigrationAnswer] = {}

    def trigger() -> str:
        observe.migrate_cluster(blue.admin(), "blue", green, migrated=False)
        answers["loaded"] = observe.ask_namespace_migration(blue.admin(), ns, "loaded")
        return f"namespace {ns} migrated: {answers['loaded'].describe()}"

    def park_and_restart(traffic) -> str:
        parked = [h for h in traffic.handles if h.subscription == "parked"]
        for handle in parked:
            traffic.close_consumer(handle)
        # blue's ledgers and entry count, while blue can still say them (F-188-10)
        blue_states[topic] = observe.topic_state(blue, topic)
        facts["backlog"] = (blue_states[topic].subscriptions.get("parked") or {}).get("msgBacklog")
        started = time.monotonic()
        if restart:
            deployment.restart("blue")
        facts["restart_s"] = round(time.monotonic() - started, 1)
        traffic.add_consumer(topic, Sub("parked", "Exclusive"), "c-parked-again")
        return f"parked closed with {facts['backlog']} in backlog on blue" + (
            f"; blue restarted ({facts['restart_s']} s)" if restart else "")

    try:
        out = scenario.run(deployment, certify_run.directory("captures", name), [load], trigger,
                           seed=certify_run.seed, before_s=6.0, after_s=6.0, after_trigger=park_and_restart,
                           blue_states=blue_states)
    except FaultUnsupported as error:
        raise VerdictUnknown(f"cannot restart blue on this deployment: {error}") from error
    rec = Recorder(certify_run, request, out, CHECKS)
    prefix = name
    if not answers["loaded"].ok:
        namespace_level.record(rec, prefix, answers["loaded"])
        rec.finish()
        return
    judge_topics(rec, out, [topic], prefix)
    record_traces(rec, out, prefix)
    o = out.topics[topic]
    after = [r for r in _rows(out, topic, "receive", subscription="parked") if r["client"] == "c-parked-again"]
    # where each message was stored decides where it came from: blue's messages are never copied
    # to green, and ledger ids alone are ambiguous (both clusters number theirs from 0)
    from_blue = sum(1 for r in after if o.placement.by_uid.get(r["uid"]) == "blue")
    parked = next((s for s in o.subscriptions if s.name == "parked"), None)
    backlog = facts.get("backlog")
    when = f"when blue restarted ({facts.get('restart_s')} s)" if restart else "when its consumer closed"
    # does the spec's model of Pulsar's restart (F-188-11) explain what happened? (without a
    # restart it trivially would: the variant only adds the restart)
    explained = None if not restart else next(
        (r for r in trace.validate_outcome(out.run_dir, variant="restart-strands")
         if r["modelled"] and r["check"].endswith("/parked/trace")), None)
    rec(f"{prefix}/parked/backlog-drained", None if not backlog or parked is None else from_blue > 0 and parked.blue_missing == 0,
        f"'parked' had {backlog} messages of backlog on blue {when}; "
        f"through {'the restarted ' if restart else ''}blue its new consumer then got {from_blue} from blue and "
        f"{len(after) - from_blue} from green; {parked.blue_missing if parked else '?'} of blue's messages never reached it"
        + out.traffic.refusal("c-parked-again")
        + ("" if explained is None else "; the trace is " + ("" if explained["ok"] else "NOT ")
           + "a behaviour of the spec's restart-strands variant (Pulsar 4.2.4's restart, F-188-11)"),
        backlog=backlog, from_blue_after_restart=from_blue)
    rec.finish()


def _wait_replicator(cluster, topic: str, to: str, timeout: float) -> bool:
    """True once ``cluster``'s replicator of ``topic`` towards ``to`` is connected with (almost) no backlog."""
    def caught_up() -> bool:
        link = cluster.admin().replication_to(topic, to)
        return bool(link.get("connected") and (link.get("replicationBacklog") or 0) < 30)

    return wait_until(caught_up, timeout=timeout, interval=0.5)


def test_migration_with_geo_replication(regions, certify_run, request):
    deployment = regions
    remote, blue, green = (deployment.clusters[c] for c in CLUSTERS)
    ns = observe.create_namespace(deployment, f"{TENANT}/geo", {
        "remote": ["remote", "blue"], "blue": ["remote", "blue"],
        # green replicates to the remote region from the start, as a green that takes over must
        "green": ["green", "remote"]})
    topic = f"persistent://{ns}/orders"
    load = TopicLoad(topic, (Sub("fast", "Exclusive"), Sub("slow", "Exclusive", delay=0.05)), rate=60.0)
    moments: dict[str, int] = {}

    def remote_clients(traffic) -> str:
        traffic.add_consumer(topic, Sub("remote-reader", "Exclusive"), "c-remote-reader", cluster=remote)
        traffic.add_producer(topic, "p-remote", 30.0, cluster=remote)
        return "producer and consumer in the remote region"

    # The remote region is stopped (SIGSTOP), not cut off: its connections stay open, so no
    # replicator has to reconnect through a grown backoff when it comes back (docs/findings.md F-188-8)
    def stop_remote(traffic) -> str:
        deployment.pause("remote")
        moments["stop"] = time.time_ns()
        time.sleep(1.5)  # a replication backlog builds up on blue
        return "remote region stopped"

    def resume_remote(traffic) -> str:
        time.sleep(4.0)
        deployment.resume("remote")
        moments["resume"] = time.time_ns()
        # the remote's replicator into blue is refused while blue still replicates out; keep the
        # traffic on until it writes again (into green by then)
        caught_up = _wait_replicator(remote, topic, "blue", timeout=90.0)
        return f"remote region resumed; its replicator {'caught up' if caught_up else 'still behind after 90 s'}"

    def trigger() -> str:
        observe.migrate_cluster(blue.admin(), "blue", green)
        return "blue migrated to green (cluster level) with a replication backlog to the remote region"

    try:
        out = scenario.run(deployment, certify_run.directory("captures", "geo-replication-migration"), [load], trigger,
                           seed=certify_run.seed, on_start=remote_clients, before_trigger=stop_remote,
                           after_trigger=resume_remote,
                           send_timeout_ms=60000, after_s=8.0)
    except FaultUnsupported as error:
        raise VerdictUnknown(f"cannot stop the remote region on this deployment: {error}") from error
    finally:
        if "stop" in moments and "resume" not in moments:
            deployment.resume("remote")
    rec = Recorder(certify_run, request, out, CHECKS)
    prefix = "geo-migration"
    judge_topics(rec, out, [topic], prefix)
    record_traces(rec, out, prefix)
    o = out.topics[topic]
    # feature 4: blue's producer stays until the remote region has everything blue stored
    p = next((p for p in o.producers if p.name != "p-remote"), None)
    blue_uids = {u for u, c in o.placement.by_uid.items() if c == "blue"}
    at_remote = {r["uid"] for r in _rows(out, topic, "receive", subscription="remote-reader")}
    first_green_ns = out.trigger_ns + int(p.redirect_s * 1e9) if p and p.redirect_s is not None else None
    held = first_green_ns is not None and "resume" in moments and first_green_ns > moments["resume"]
    rec(f"{prefix}/producer-held-for-replication", None if first_green_ns is None else held and blue_uids <= at_remote,
        f"blue's producer first stored on green {p.redirect_s if p else None} s after the trigger, "
        + (f"{(first_green_ns - moments['resume']) / 1e9:+.2f} s from the remote region's resumption; "
           if first_green_ns is not None and "resume" in moments else "")
        + f"the remote region got {len(blue_uids & at_remote)} of the {len(blue_uids)} messages blue stored",
        hold_s=p.redirect_s if p else None, send_errors=p.send_errors if p else None)
    # feature 3: the remote region's producer, as blue's subscriptions see it, in order across the switch
    remote_sends = _rows(out, topic, "send_ok", cluster="remote")
    for s in o.subscriptions:
        receives = _rows(out, topic, "receive", subscription=s.name)
        f = judge.source_figures("p-remote", s.name, remote_sends, receives,
                                 judge.first_green_read(receives, o.blue.ledgers, o.green.ledgers))
        ok = None if not f.via_green else (not f.order_violations and f.missing == 0)
        rec(f"{prefix}/{s.name}/incoming-replication-order", ok,
            "; ".join(f.order_violations) or
            f"{f.delivered} of the {f.acked} messages the remote producer stored reached subscription {s.name} "
            f"({f.via_green} through green after the switch), in the remote producer's order"
            + ("" if f.via_green else "; none came through green, so the switch was not crossed"),
            missing=f.missing, via_green=f.via_green)
    judge_clients(rec, out.topics, blue_log(deployment), prefix)
    rec.finish()
