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

from ...harness.traffic import Sub, TopicLoad
from ...run import VerdictUnknown
from . import observe, scenario, tls_modes
from .record import judged, lacking

pytestmark = [pytest.mark.cluster_migration, pytest.mark.pulsar, pytest.mark.spark]

TENANT = "mig"
CLUSTERS = ("remote", "blue", "green")
NOAUTO = f"{TENANT}/noauto"


def _names(deployment, *roles: str) -> list[str]:
    """The Pulsar cluster names of ``roles`` (the same on local deployments)."""
    return [deployment.clusters[r].name for r in roles]


@pytest.fixture(scope="module")
def regions(pulsar_deployment_factory, certify_run):  # noqa: F811 - a fixture argument
    deployment = tls_modes.deploy(
        pulsar_deployment_factory, CLUSTERS, name=f"mig-regions-{os.getpid()}",
        broker_config={"blue": {"clusterMigrationCheckDurationSeconds": 1,
                                "clusterMigrationAutoResourceCreation": False}})
    # roles name the clusters here; Pulsar knows them by .name (an external file maps the two)
    for role in CLUSTERS:
        deployment.admin(role).put_tenant(TENANT, _names(deployment, *CLUSTERS))
    yield deployment
    deployment.collect_logs(certify_run.directory("logs", "cluster-migration-regions"))
    deployment.close()


def test_without_auto_resource_creation(regions, certify_run, request):
    deployment = regions
    blue, green = deployment.clusters["blue"], deployment.clusters["green"]
    observe.create_namespace(deployment, NOAUTO, {r: _names(deployment, r) for r in ("blue", "green")})
    if lacking(certify_run, request, blue, NOAUTO, "no-auto-create"):
        return
    subs = (Sub("earliest-fast", "Exclusive"), Sub("earliest-slow", "Exclusive", delay=0.05),
            # Latest is Pulsar's default; their losses are what this scenario measures
            Sub("latest-fast", "Exclusive", must_see=False, latest=True),
            Sub("latest-slow", "Exclusive", delay=0.05, must_see=False, latest=True))
    load = TopicLoad(f"persistent://{NOAUTO}/orders", subs, rate=60.0)

    answers: dict[str, observe.NamespaceMigrationAnswer] = {}

    def trigger() -> str:
        observe.migrate_cluster(blue.admin(), blue.name, green, migrated=False)
        answers["loaded"] = observe.ask_namespace_migration(blue.admin(), NOAUTO, "loaded")
        return f"namespace {NOAUTO} migrated (automatic resource creation off): {answers['loaded'].describe()}"

    # the slow subscriptions must reach green while it still gets messages (a Latest one created there
    # later reads nothing, and its switch would go unobserved)
    out = scenario.run(deployment, "no-auto-create", certify_run.directory("captures", "no-auto-create"), [load],
                       trigger, seed=certify_run.seed, after_s=8.0, until_blue_read=30.0)
    out.answers.update(answers)
    out.facts.update(topic=load.topic, latest=[s.name for s in subs if s.latest], subscriptions=[s.name for s in subs])
    judged(certify_run, request, out)


def test_blue_restart_after_migration(regions, certify_run, request):
    deployment = regions
    blue, green = deployment.clusters["blue"], deployment.clusters["green"]
    topic = f"persistent://{NOAUTO}/orders"
    before = observe.topic_state(blue, topic)
    if before.state != "Terminated":
        raise VerdictUnknown(f"{topic} was not migrated by the scenario before (blue: {before.error or before.state})")
    started = time.monotonic()
    try:
        deployment.faults.restart("blue", {"clusterMigrationAutoResourceCreation": True})
    except FaultUnsupported as error:
        raise VerdictUnknown(f"cannot restart blue on this deployment: {error}") from error
    restart_s = round(time.monotonic() - started, 1)
    # the same subscription and a new one, and a producer, all through the restarted blue
    load = TopicLoad(topic, (Sub("earliest-fast", "Exclusive"), Sub("after-restart", "Exclusive")), rate=30.0)
    out = scenario.run(deployment, "blue-restart", certify_run.directory("captures", "blue-restart"), [load],
                       lambda: f"traffic through blue {restart_s} s restart earlier", seed=certify_run.seed,
                       before_s=0.0, after_s=5.0, drain_seconds=20.0)
    out.facts.update(topic=topic, namespace=NOAUTO, restart_s=restart_s)
    out.states["before"], out.states["after"] = before, observe.topic_state(blue, topic)
    out.admin["blue:namespace"] = or_refusal(blue.admin().namespace_policies, NOAUTO)
    out.admin["green:namespace"] = or_refusal(green.admin().namespace_policies, NOAUTO)
    judged(certify_run, request, out)


@pytest.mark.parametrize("restart", [False, True], ids=["reconnect", "blue-restarted"])
def test_stranded_backlog(regions, certify_run, request, restart):
    """A subscription of a migrated topic still has a backlog on blue and no consumer; its
    consumer comes back through blue, after a restart of blue or (the control) without one.
    PIP-188 says a consumer drains blue before it moves to green, restart or not (R02, R04)."""
    deployment = regions
    blue, green = deployment.clusters["blue"], deployment.clusters["green"]
    name = "stranded-restart" if restart else "stranded"
    ns = observe.create_namespace(deployment, f"{TENANT}/{name}", {r: _names(deployment, r) for r in ("blue", "green")})
    if lacking(certify_run, request, blue, ns, name):
        return
    topic = f"persistent://{ns}/orders"
    # "parked" reads 5 a second of 40: its backlog on blue grows until it is closed
    load = TopicLoad(topic, (Sub("steady", "Exclusive"), Sub("parked", "Exclusive", delay=0.2)), rate=40.0)
    blue_states: dict[str, observe.TopicState] = {}
    facts: dict[str, object] = {}

    answers: dict[str, observe.NamespaceMigrationAnswer] = {}

    def trigger() -> str:
        observe.migrate_cluster(blue.admin(), blue.name, green, migrated=False)
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
            deployment.faults.restart("blue")
        facts["restart_s"] = round(time.monotonic() - started, 1)
        traffic.add_consumer(topic, Sub("parked", "Exclusive"), "c-parked-again")
        return f"parked closed with {facts['backlog']} in backlog on blue" + (
            f"; blue restarted ({facts['restart_s']} s)" if restart else "")

    try:
        out = scenario.run(deployment, name, certify_run.directory("captures", name), [load], trigger,
                           seed=certify_run.seed, before_s=6.0, after_s=6.0, after_trigger=park_and_restart,
                           blue_states=blue_states)
    except FaultUnsupported as error:
        raise VerdictUnknown(f"cannot restart blue on this deployment: {error}") from error
    out.answers.update(answers)
    out.facts.update(topic=topic, restart=restart, backlog=facts.get("backlog"), restart_s=facts.get("restart_s"))
    judged(certify_run, request, out)


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
        "remote": _names(deployment, "remote", "blue"), "blue": _names(deployment, "remote", "blue"),
        # green replicates to the remote region from the start, as a green that takes over must
        "green": _names(deployment, "green", "remote")})
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
        deployment.faults.pause("remote")
        moments["stop"] = time.time_ns()
        time.sleep(1.5)  # a replication backlog builds up on blue
        return "remote region stopped"

    def resume_remote(traffic) -> str:
        time.sleep(4.0)
        deployment.faults.resume("remote")
        moments["resume"] = time.time_ns()
        # the remote's replicator into blue is refused while blue still replicates out; keep the
        # traffic on until it writes again (into green by then)
        caught_up = _wait_replicator(remote, topic, blue.name, timeout=90.0)
        return f"remote region resumed; its replicator {'caught up' if caught_up else 'still behind after 90 s'}"

    def trigger() -> str:
        observe.migrate_cluster(blue.admin(), blue.name, green)
        return "blue migrated to green (cluster level) with a replication backlog to the remote region"

    try:
        out = scenario.run(deployment, "geo-migration", certify_run.directory("captures", "geo-replication-migration"),
                           [load], trigger, seed=certify_run.seed, on_start=remote_clients, before_trigger=stop_remote,
                           after_trigger=resume_remote, send_timeout_ms=60000, after_s=8.0)
    except FaultUnsupported as error:
        raise VerdictUnknown(f"cannot stop the remote region on this deployment: {error}") from error
    finally:
        if "stop" in moments and "resume" not in moments:
            deployment.faults.resume("remote")
    out.facts.update(topic=topic, moments=moments)
    judged(certify_run, request, out)
