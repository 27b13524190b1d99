"""PIP-188 through the Java client (pulsar-client-original, the reference client), the two scenarios
of test_cluster_migration.py in the same order on a blue and green of their own:

1. namespace level (``namespace-migration-java``): ``mig/moving-java`` migrated under traffic must
   move, ``mig/staying-java`` beside it must not (blue's answer on a namespace with no topic is no
   client's: the Python scenario's ``namespace-fresh`` judges it);
2. cluster level (``cluster-migration-java``): the scenario of ``test_cluster_migration_with_live_traffic``,
its producers, consumers (Exclusive, Shared, Failover, Key_Shared; a fast and a slow subscription
each) and a Reader in one JVM (harness/java_traffic.py, Harness.java ``mode=traffic``), judged by
the same capture, Spark checks, judge and trace validation as the Python client's, under the
scenario names above (their own rows; each names the Java client in ``details.client``). The
release is certify's ``--java-client-version`` (default: the deployment's).

Runs only with ``certify --profile cluster-migration --migration-client java`` (or ``all``;
clients.py): it starts a blue and a green of its own, since a cluster-level migration cannot be undone.
"""
from __future__ import annotations

import os
from functools import partial

import pytest

from ...harness.java_release import wanted_version
from ...harness.java_traffic import JavaTraffic
from . import levels, observe, scenario
from .record import judged, lacking

pytestmark = [pytest.mark.cluster_migration, pytest.mark.pulsar, pytest.mark.spark]

NAME = "cluster-migration-java"


@pytest.fixture(scope="module")
def blue_green_java(pulsar_deployment_factory, certify_run):  # noqa: F811 - a fixture argument
    deployment = levels.deploy(pulsar_deployment_factory, f"mig-java-{os.getpid()}")
    yield deployment
    levels.close(deployment, certify_run, NAME)


def _judged(certify_run, request, out) -> None:
    """The record step (record.judged: Spark's verdict, the outcome saved, its rows) as the Java client's."""
    judged(certify_run, request, out, client="java")


def _java(run_dir, deployment):
    return partial(JavaTraffic, run_dir=run_dir, version=wanted_version(deployment))


def test_java_client_through_a_namespace_level_migration(blue_green_java, certify_run, request):
    deployment = blue_green_java
    blue, green = deployment.clusters["blue"], deployment.clusters["green"]
    moving, staying = levels.namespace(deployment, "moving-java"), levels.namespace(deployment, "staying-java")
    observe.migrate_cluster(blue.admin(), blue.name, green, migrated=False)  # the URL comes from the cluster's policies
    if lacking(certify_run, request, blue, moving, "namespace-migration-java"):
        return
    loads = levels.namespace_loads(moving, staying)
    answers: dict[str, observe.NamespaceMigrationAnswer] = {}
    run_dir = certify_run.directory("captures", "namespace-migration-java")
    out = scenario.run(deployment, "namespace-migration-java", run_dir, loads, levels.namespace_trigger(blue, moving, answers),
                       seed=certify_run.seed, after_s=8.0, traffic_factory=_java(run_dir, deployment))
    levels.after_namespace_level(out, deployment, answers, loads, moving)
    _judged(certify_run, request, out)


def test_java_client_through_a_cluster_level_migration(blue_green_java, certify_run, request):
    deployment = blue_green_java
    ns = levels.namespace(deployment, "live-java")
    # as the Python client's scenario, and a Reader (a non-durable subscription) on the Exclusive topic
    loads = levels.cluster_loads(ns, reader=True)
    exclusive, fresh = loads[0].topic, f"persistent://{ns}/fresh"
    run_dir = certify_run.directory("captures", NAME)
    # created by the JVM through blue; a client that cannot follow is refused (JavaTraffic.refusal)
    out = scenario.run(deployment, NAME, run_dir, loads, levels.cluster_trigger(deployment), seed=certify_run.seed,
                       after_trigger=(new := levels.new_clients_via_blue(exclusive, fresh, "new Java producer and subscription via blue",
                                                                         deployment.clusters["blue"])),
                       traffic_factory=_java(run_dir, deployment))
    # green's log says why a reader never read there (judge.stranded_readers)
    levels.after_cluster_level(out, deployment, exclusive, fresh, ns, green_refused=observe.green_refusals(deployment),
                               new_clients=new.observed)
    _judged(certify_run, request, out)
