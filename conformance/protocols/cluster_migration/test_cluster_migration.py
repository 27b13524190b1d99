"""PIP-188 blue-green migration on real clusters, with live traffic, judged per requirement.

One deployment (blue, green) for the module, blue with the migration task on
(clusterMigrationCheckDurationSeconds=1; the default 0 never migrates a live topic) and
automatic resource creation on. The scenarios run in order, since a migration cannot be undone
on the topics it moved:
1. namespace-level migration: the moving namespace is redirected, one beside it is not;
2. cluster-level migration: Exclusive, Shared, Failover and Key_Shared subscriptions, each
   with a drained and a backlogged subscription, and after the trigger a new producer, a new
   subscription and a new topic through blue.
Every run is captured and judged by the Spark checks (docs/spark-checks.md), by where each message
was stored (observe.place_sends), by the admin state of both clusters and by blue's log.
"""
from __future__ import annotations

import os

import pytest

from pulsar_conformance.fixtures.deploy.admin import or_refusal

from ...harness.recorder import Recorder
from ...harness.traffic import Sub, TopicLoad
from . import judge, observe, scenario, tls_modes
from .checks import CHECKS
from .record import judged

pytestmark = [pytest.mark.cluster_migration, pytest.mark.pulsar, pytest.mark.spark]

TENANT = "mig"
SUB_TYPES = ("Exclusive", "Shared", "Failover", "KeyShared")


@pytest.fixture(scope="module")
def blue_green(pulsar_deployment_factory, certify_run):  # noqa: F811 - a fixture argument
    deployment = tls_modes.deploy(
        pulsar_deployment_factory, ("blue", "green"), name=f"mig-{os.getpid()}",
        broker_config={"blue": {"clusterMigrationCheckDurationSeconds": 1,
                                "clusterMigrationAutoResourceCreation": True}})
    # roles ("blue") name the clusters here; Pulsar knows them by .name (an external file maps the two)
    names = [deployment.clusters[role].name for role in ("blue", "green")]
    for role in ("blue", "green"):
        deployment.admin(role).put_tenant(TENANT, names)
    yield deployment
    collect = getattr(deployment, "collect_logs", None)
    if collect is not None:
        collect(certify_run.directory("logs", "cluster-migration"))
    deployment.close()  # two cores: the next module's clusters should not compete with these


def _namespace(deployment, name: str) -> str:
    """``mig/name`` local to blue on blue and local to green on green."""
    return observe.create_namespace(deployment, f"{TENANT}/{name}", {c: [deployment.clusters[c].name] for c in ("blue", "green")})


def test_namespace_level_migration(blue_green, certify_run, request):
    """PIP188-R06 in both cases an operator meets: a namespace just created with no topic (``fresh``),
    and one whose bundles are loaded because traffic runs on it (``moving``, migrated under traffic)."""
    deployment = blue_green
    blue, green = deployment.clusters["blue"], deployment.clusters["green"]
    moving, staying, fresh = (_namespace(deployment, n) for n in ("moving", "staying", "fresh"))
    # the URL comes from the cluster's policies even for namespace migration (pulsar-facts §4)
    observe.migrate_cluster(blue.admin(), blue.name, green, migrated=False)
    fresh_answer = observe.ask_namespace_migration(blue.admin(), fresh, "fresh")
    if fresh_answer.lacks:
        rec = Recorder(certify_run, request, None, CHECKS)
        rec.record([judge.namespace_level("namespace-migration", fresh_answer)])
        rec.finish()
        return
    loads = [TopicLoad(f"persistent://{ns}/orders", (Sub("fast", "Exclusive"), Sub("slow", "Exclusive", delay=0.05)),
                       rate=60.0) for ns in (moving, staying)]
    answers: dict[str, observe.NamespaceMigrationAnswer] = {"fresh": fresh_answer}

    def trigger() -> str:
        answers["loaded"] = answer = observe.ask_namespace_migration(blue.admin(), moving, "loaded")
        return (f"namespace {moving} migrated to green" if answer.ok
                else f"namespace-level migration of {moving} refused: HTTP {answer.status}")

    out = scenario.run(deployment, "namespace-migration", certify_run.directory("captures", "namespace-migration"),
                       loads, trigger, seed=certify_run.seed, after_s=8.0)
    out.answers.update(answers)
    out.facts.update(moving=loads[0].topic, staying=loads[1].topic, namespace=moving)
    if answers["loaded"].ok:
        out.admin["blue:policies"] = or_refusal(blue.admin().namespace_policies, moving)
        out.admin["green:policies"] = or_refusal(green.admin().namespace_policies, moving)
    judged(certify_run, request, out)


def test_cluster_migration_with_live_traffic(blue_green, certify_run, request):
    deployment = blue_green
    blue, green = deployment.clusters["blue"], deployment.clusters["green"]
    ns = _namespace(deployment, "live")
    loads = [TopicLoad(f"persistent://{ns}/{t.lower()}", (
        Sub("fast", t, consumers=1 if t == "Exclusive" else 2),
        Sub("slow", t, consumers=1 if t == "Exclusive" else 2, delay=0.05)), rate=60.0) for t in SUB_TYPES]
    exclusive, fresh = loads[0].topic, f"persistent://{ns}/fresh"

    def trigger() -> str:
        observe.migrate_cluster(blue.admin(), blue.name, green)
        return "blue migrated to green (cluster level)" + tls_modes.evidence()

    def after_trigger(traffic) -> str:
        # a client that cannot follow the redirect cannot even be created (it times out): the
        # traffic keeps that as evidence (Traffic.refusal)
        traffic.add_producer(exclusive, "p-new", rate=20.0)
        traffic.add_consumer(exclusive, Sub("late", "Exclusive", must_see=False, latest=True), "c-late")
        traffic.add_producer(fresh, "p-fresh", rate=20.0)
        return "new producer and subscription via blue"

    out = scenario.run(deployment, "cluster-migration", certify_run.directory("captures", "cluster-migration"), loads,
                       trigger, seed=certify_run.seed, after_trigger=after_trigger)
    out.facts.update(exclusive=exclusive, fresh=fresh, namespace=ns)
    # a topic first used after the migration is never created in blue
    out.states["fresh@blue"], out.states["fresh@green"] = observe.topic_state(blue, fresh), observe.topic_state(green, fresh)
    # the migration state is blue's alone
    out.admin["blue:migration"] = or_refusal(blue.admin().cluster_migration, blue.name)
    out.admin["green:migration"] = or_refusal(green.admin().cluster_migration, blue.name)
    out.admin["green:namespace"] = or_refusal(green.admin().namespace_policies, ns)
    judged(certify_run, request, out)
