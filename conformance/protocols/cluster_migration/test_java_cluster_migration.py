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

from pulsar_conformance.fixtures.deploy.admin import or_refusal

from ...harness.java_traffic import JavaTraffic
from ...harness.recorder import Recorder
from ...harness.traffic import Sub, TopicLoad
from ..client_failover.java_release import wanted_version
from . import judge, observe, scenario, tls_modes
from .checks import CHECKS
from .record import lacking

pytestmark = [pytest.mark.cluster_migration, pytest.mark.pulsar, pytest.mark.spark]

TENANT = "mig"
SUB_TYPES = ("Exclusive", "Shared", "Failover", "KeyShared")
NAME = "cluster-migration-java"


@pytest.fixture(scope="module")
def blue_green_java(pulsar_deployment_factory, certify_run):  # noqa: F811 - a fixture argument
    deployment = tls_modes.deploy(
        pulsar_deployment_factory, ("blue", "green"), name=f"mig-java-{os.getpid()}",
        broker_config={"blue": {"clusterMigrationCheckDurationSeconds": 1,
                                "clusterMigrationAutoResourceCreation": True}})
    names = [deployment.clusters[role].name for role in ("blue", "green")]
    for role in ("blue", "green"):
        deployment.admin(role).put_tenant(TENANT, names)
    yield deployment
    collect = getattr(deployment, "collect_logs", None)
    if collect is not None:
        collect(certify_run.directory("logs", NAME))
    deployment.close()


def _judged(certify_run, request, out) -> None:
    """Save what the scenario read into its outcome, record its rows as the Java client's."""
    scenario.save(out)
    rec = Recorder(certify_run, request, out, CHECKS, client="java")
    rec.record(judge.judge(out))
    rec.finish()


def _java(run_dir, deployment):
    return partial(JavaTraffic, run_dir=run_dir, version=wanted_version(deployment))


def _namespace(deployment, name: str) -> str:
    return observe.create_namespace(deployment, f"{TENANT}/{name}",
                                    {c: [deployment.clusters[c].name] for c in ("blue", "green")})


def test_java_client_through_a_namespace_level_migration(blue_green_java, certify_run, request):
    deployment = blue_green_java
    blue, green = deployment.clusters["blue"], deployment.clusters["green"]
    moving, staying = _namespace(deployment, "moving-java"), _namespace(deployment, "staying-java")
    observe.migrate_cluster(blue.admin(), blue.name, green, migrated=False)  # the URL comes from the cluster's policies
    if lacking(certify_run, request, blue, moving, "namespace-migration-java"):
        return
    loads = [TopicLoad(f"persistent://{ns}/orders", (Sub("fast", "Exclusive"), Sub("slow", "Exclusive", delay=0.05)),
                       rate=60.0) for ns in (moving, staying)]
    answers: dict[str, observe.NamespaceMigrationAnswer] = {}

    def trigger() -> str:
        answers["loaded"] = answer = observe.ask_namespace_migration(blue.admin(), moving, "loaded")
        return (f"namespace {moving} migrated to green" if answer.ok
                else f"namespace-level migration of {moving} refused: HTTP {answer.status}")

    run_dir = certify_run.directory("captures", "namespace-migration-java")
    out = scenario.run(deployment, "namespace-migration-java", run_dir, loads, trigger, seed=certify_run.seed,
                       after_s=8.0, traffic_factory=_java(run_dir, deployment))
    out.answers.update(answers)
    out.facts.update(moving=loads[0].topic, staying=loads[1].topic, namespace=moving)
    if answers["loaded"].ok:
        out.admin["blue:policies"] = or_refusal(blue.admin().namespace_policies, moving)
        out.admin["green:policies"] = or_refusal(green.admin().namespace_policies, moving)
    _judged(certify_run, request, out)


def test_java_client_through_a_cluster_level_migration(blue_green_java, certify_run, request):
    deployment = blue_green_java
    blue, green = deployment.clusters["blue"], deployment.clusters["green"]
    ns = _namespace(deployment, "live-java")
    # as the Python client's scenario, and a Reader (a non-durable subscription) on the Exclusive topic;
    # what a reader reads on green is not a subscription's copied position, so it is not must-see
    loads = [TopicLoad(f"persistent://{ns}/{t.lower()}", (
        Sub("fast", t, consumers=1 if t == "Exclusive" else 2),
        Sub("slow", t, consumers=1 if t == "Exclusive" else 2, delay=0.05),
        *((Sub("reader", "Reader", must_see=False),) if t == "Exclusive" else ())), rate=60.0) for t in SUB_TYPES]
    exclusive, fresh = loads[0].topic, f"persistent://{ns}/fresh"
    run_dir = certify_run.directory("captures", NAME)

    def trigger() -> str:
        observe.migrate_cluster(blue.admin(), blue.name, green)
        return "blue migrated to green (cluster level)" + tls_modes.evidence()

    def after_trigger(traffic) -> str:
        # created by the JVM through blue; a client that cannot follow is refused (JavaTraffic.refusal)
        traffic.add_producer(exclusive, "p-new", rate=20.0)
        traffic.add_consumer(exclusive, Sub("late", "Exclusive", must_see=False, latest=True), "c-late")
        traffic.add_producer(fresh, "p-fresh", rate=20.0)
        return "new Java producer and subscription via blue"

    out = scenario.run(deployment, NAME, run_dir, loads, trigger, seed=certify_run.seed, after_trigger=after_trigger,
                       traffic_factory=_java(run_dir, deployment))
    # green's log says why a reader never read there (judge.stranded_readers)
    out.facts.update(exclusive=exclusive, fresh=fresh, namespace=ns, green_refused=observe.green_refusals(deployment))
    out.states["fresh@blue"], out.states["fresh@green"] = observe.topic_state(blue, fresh), observe.topic_state(green, fresh)
    out.admin["blue:migration"] = or_refusal(blue.admin().cluster_migration, blue.name)
    out.admin["green:migration"] = or_refusal(green.admin().cluster_migration, blue.name)
    out.admin["green:namespace"] = or_refusal(green.admin().namespace_policies, ns)
    _judged(certify_run, request, out)
