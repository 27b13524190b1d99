"""PIP-188's two levels as both clients' modules run them (test_cluster_migration.py with the Python client,
test_java_cluster_migration.py with the Java client): their blue and green, the namespaces, the triggers,
the clients made through blue after the cluster-level trigger, and what each scenario reads of the
clusters after it. One definition, so that the two clients answer the same question."""
from __future__ import annotations

import time
from collections.abc import Callable

from pulsar_conformance.fixtures.deploy.admin import or_refusal
from pulsar_conformance.wait import wait_until

from ...harness.traffic import Sub, TopicLoad
from . import observe, tls_modes

TENANT = "mig"
SUB_TYPES = ("Exclusive", "Shared", "Failover", "KeyShared")


def deploy(factory, name: str):
    """Blue with the migration task on (clusterMigrationCheckDurationSeconds=1; the default 0 never migrates a
    live topic) and automatic resource creation on, green beside it, the tenant on both. Roles ("blue") name
    the clusters here; Pulsar knows them by .name (an external file maps the two)."""
    deployment = tls_modes.deploy(
        factory, ("blue", "green"), name=name,
        broker_config={"blue": {"clusterMigrationCheckDurationSeconds": 1,
                                "clusterMigrationAutoResourceCreation": True}})
    names = [deployment.clusters[role].name for role in ("blue", "green")]
    for role in ("blue", "green"):
        deployment.admin(role).put_tenant(TENANT, names)
    return deployment


def close(deployment, certify_run, logs: str) -> None:
    deployment.collect_logs(certify_run.directory("logs", logs))
    deployment.close()  # two cores: the next module's clusters should not compete with these


def namespace(deployment, name: str) -> str:
    """``mig/name`` local to blue on blue and local to green on green."""
    return observe.create_namespace(deployment, f"{TENANT}/{name}",
                                    {c: [deployment.clusters[c].name] for c in ("blue", "green")})


def namespace_loads(moving: str, staying: str) -> list[TopicLoad]:
    return [TopicLoad(f"persistent://{ns}/orders", (Sub("fast", "Exclusive"), Sub("slow", "Exclusive", delay=0.05)),
                      rate=60.0) for ns in (moving, staying)]


def namespace_trigger(blue, moving: str, answers: dict) -> Callable[[], str]:
    def trigger() -> str:
        answers["loaded"] = answer = observe.ask_namespace_migration(blue.admin(), moving, "loaded")
        return (f"namespace {moving} migrated to green" if answer.ok
                else f"namespace-level migration of {moving} refused: HTTP {answer.status}")
    return trigger


def after_namespace_level(out, deployment, answers: dict, loads: list[TopicLoad], moving: str) -> None:
    blue, green = deployment.clusters["blue"], deployment.clusters["green"]
    out.answers.update(answers)
    out.facts.update(moving=loads[0].topic, staying=loads[1].topic, namespace=moving)
    if answers["loaded"].ok:
        out.admin["blue:policies"] = or_refusal(blue.admin().namespace_policies, moving)
        out.admin["green:policies"] = or_refusal(green.admin().namespace_policies, moving)


def cluster_loads(ns: str, *, reader: bool = False) -> list[TopicLoad]:
    """Exclusive, Shared, Failover and Key_Shared topics, each with a drained and a backlogged subscription;
    ``reader``: a Reader (a non-durable subscription) on the Exclusive topic too, not must-see (what a reader
    reads on green is not a subscription's copied position)."""
    return [TopicLoad(f"persistent://{ns}/{t.lower()}", (
        Sub("fast", t, consumers=1 if t == "Exclusive" else 2),
        Sub("slow", t, consumers=1 if t == "Exclusive" else 2, delay=0.05),
        *((Sub("reader", "Reader", must_see=False),) if reader and t == "Exclusive" else ())), rate=60.0)
        for t in SUB_TYPES]


def cluster_trigger(deployment) -> Callable[[], str]:
    blue, green = deployment.clusters["blue"], deployment.clusters["green"]

    def trigger() -> str:
        observe.migrate_cluster(blue.admin(), blue.name, green)
        return "blue migrated to green (cluster level)" + tls_modes.evidence()
    return trigger


# How long the new clients wait for the migration task to have migrated their topic: the task runs every
# clusterMigrationCheckDurationSeconds (1 s here) on the broker that owns the topic, and per-topic migration
# is asynchronous after the cluster is marked (the seed's "Topic Migration" step; docs/findings.md F-188-16)
TOPIC_MIGRATED_S = 30.0


def topic_migrated(state) -> bool:
    """Blue has migrated the topic: its ledger is terminated (4.2.x also sets the ``migrated`` property)."""
    return state.error is None and (state.state == "Terminated" or state.migrated_property == "true")


def new_clients_via_blue(exclusive: str, fresh: str, said: str, blue=None) -> Callable:
    """After the trigger, through blue: a new producer, a new subscription and a new topic. A client that
    cannot follow the redirect cannot even be created (it times out): the traffic keeps that as evidence.

    PIP188-R05 is about a *migrated* topic, and the seed makes each topic's migration asynchronous after
    the cluster is marked; so with ``blue`` given, the clients wait (bounded, TOPIC_MIGRATED_S) until blue
    has migrated ``exclusive`` and the hook's ``observed`` says when (seconds after the hook began) or that
    it never was: the judge leaves R05 unknown then, and a client blue accepted before the topic was
    migrated is an observation with its timing, not R05's failure."""
    observed: dict = {}

    def after_trigger(traffic) -> str:
        if blue is not None:
            began = time.monotonic()
            migrated = wait_until(lambda: topic_migrated(observe.topic_state(blue, exclusive)),
                                  timeout=TOPIC_MIGRATED_S, interval=0.25)
            observed.update(topic_migrated=bool(migrated), waited_s=round(time.monotonic() - began, 2),
                            bound_s=TOPIC_MIGRATED_S)
        traffic.add_producer(exclusive, "p-new", rate=20.0)
        traffic.add_consumer(exclusive, Sub("late", "Exclusive", must_see=False, latest=True), "c-late")
        traffic.add_producer(fresh, "p-fresh", rate=20.0)
        if blue is None:
            return said
        return said + (f" (blue migrated {exclusive.rsplit('/', 1)[-1]} {observed['waited_s']} s after the hook began)"
                       if observed["topic_migrated"] else
                       f" (blue had NOT migrated {exclusive.rsplit('/', 1)[-1]} within {TOPIC_MIGRATED_S:.0f} s)")
    after_trigger.observed = observed
    return after_trigger


def after_cluster_level(out, deployment, exclusive: str, fresh: str, ns: str, **facts) -> None:
    blue, green = deployment.clusters["blue"], deployment.clusters["green"]
    out.facts.update(exclusive=exclusive, fresh=fresh, namespace=ns, **facts)
    # a topic first used after the migration is never created in blue
    out.states["fresh@blue"], out.states["fresh@green"] = observe.topic_state(blue, fresh), observe.topic_state(green, fresh)
    # the migration state is blue's alone
    out.admin["blue:migration"] = or_refusal(blue.admin().cluster_migration, blue.name)
    out.admin["green:migration"] = or_refusal(green.admin().cluster_migration, blue.name)
    out.admin["green:namespace"] = or_refusal(green.admin().namespace_policies, ns)
    # R09 is about automatic resource creation: a release without the setting (before 3.2.0) has none to judge
    out.admin["blue:auto-create"] = observe.auto_resource_creation(blue)
