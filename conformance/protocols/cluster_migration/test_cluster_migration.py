"""PIP-188 blue-green migration on real clusters, with live traffic, judged per requirement.

One deployment (blue, green) for the module, blue with the migration task on
(clusterMigrationCheckDurationSeconds=1; the default 0 never migrates a live topic) and
automatic resource creation on. The scenarios run in order, since a migration cannot be undone
on the topics it moved:
1. namespace-level migration: the moving namespace is redirected, one beside it is not;
2. cluster-level migration: Exclusive, Shared, Failover and Key_Shared subscriptions, each
   with a drained and a backlogged subscription, and after the trigger a new producer, a new
   subscription and a new topic through blue.
Every run is captured, then judged after it (record.judged) by the Spark checks (docs/spark-checks.md),
by where each message was stored (outcome.place_sends), by the admin state of both clusters and by blue's log.
"""
from __future__ import annotations

import os

import pytest

from ...harness.recorder import Recorder
from . import judge, levels, observe, scenario
from .checks import CHECKS
from .record import judged

pytestmark = [pytest.mark.cluster_migration, pytest.mark.pulsar, pytest.mark.spark]


@pytest.fixture(scope="module")
def blue_green(pulsar_deployment_factory, certify_run):  # noqa: F811 - a fixture argument
    deployment = levels.deploy(pulsar_deployment_factory, f"mig-{os.getpid()}")
    yield deployment
    levels.close(deployment, certify_run, "cluster-migration")


def test_namespace_level_migration(blue_green, certify_run, request):
    """PIP188-R06 in both cases an operator meets: a namespace just created with no topic (``fresh``),
    and one whose bundles are loaded because traffic runs on it (``moving``, migrated under traffic)."""
    deployment = blue_green
    blue, green = deployment.clusters["blue"], deployment.clusters["green"]
    moving, staying, fresh = (levels.namespace(deployment, n) for n in ("moving", "staying", "fresh"))
    # the URL comes from the cluster's policies even for namespace migration (pulsar-facts §4)
    observe.migrate_cluster(blue.admin(), blue.name, green, migrated=False)
    fresh_answer = observe.ask_namespace_migration(blue.admin(), fresh, "fresh")
    if fresh_answer.lacks:
        rec = Recorder(certify_run, request, None, CHECKS)
        rec.record([judge.namespace_level("namespace-migration", fresh_answer)])
        rec.finish()
        return
    loads = levels.namespace_loads(moving, staying)
    answers: dict[str, observe.NamespaceMigrationAnswer] = {"fresh": fresh_answer}
    out = scenario.run(deployment, "namespace-migration", certify_run.directory("captures", "namespace-migration"),
                       loads, levels.namespace_trigger(blue, moving, answers), seed=certify_run.seed, after_s=8.0)
    levels.after_namespace_level(out, deployment, answers, loads, moving)
    judged(certify_run, request, out)


def test_cluster_migration_with_live_traffic(blue_green, certify_run, request):
    deployment = blue_green
    ns = levels.namespace(deployment, "live")
    loads = levels.cluster_loads(ns)
    exclusive, fresh = loads[0].topic, f"persistent://{ns}/fresh"
    out = scenario.run(deployment, "cluster-migration", certify_run.directory("captures", "cluster-migration"), loads,
                       levels.cluster_trigger(deployment), seed=certify_run.seed,
                       after_trigger=(new := levels.new_clients_via_blue(exclusive, fresh, "new producer and subscription via blue",
                                                                         deployment.clusters["blue"])))
    levels.after_cluster_level(out, deployment, exclusive, fresh, ns, new_clients=new.observed)
    judged(certify_run, request, out)
