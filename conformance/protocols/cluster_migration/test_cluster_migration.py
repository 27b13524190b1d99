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

from ...harness.traffic import Sub, TopicLoad
from . import namespace_level, observe, scenario, tls_modes
from .checks import CHECKS
from .verdicts import (
    Recorder,
    blue_log,
    judge_clients,
    judge_topics,
    not_created,
    record_traces,
)

pytestmark = [pytest.mark.cluster_migration, pytest.mark.pulsar, pytest.mark.spark]

TENANT = "mig"
SUB_TYPES = ("Exclusive", "Shared", "Failover", "KeyShared")


@pytest.fixture(scope="module")
def blue_green(pulsar_deployment_factory, certify_run):  # noqa: F811 - a fixture argument
    deployment = tls_modes.deploy(
        pulsar_deployment_factory, ("blue", "green"), name=f"mig-{os.getpid()}",
        broker_config={"blue": {"clusterMigrationCheckDurationSeconds": 1,
                                "clusterMigrationAutoResourceCreation": True}})
    for name in ("blue", "green"):
        deployment.admin(name).put_tenant(TENANT, ["blue", "green"])
    yield deployment
    collect = getattr(deployment, "collect_logs", None)
    if collect is not None:
        collect(certify_run.directory("logs", "cluster-migration"))
    deployment.close()  # two cores: the next module's clusters should not compete with these


def _namespace(deployment, name: str) -> str:
    """``mig/name`` local to blue on blue and local to green on green."""
    return observe.create_namespace(deployment, f"{TENANT}/{name}", {c: [c] for c in ("blue", "green")})


def test_namespace_level_migration(blue_green, certify_run, request):
    """PIP188-R06 in both cases an operator meets: a namespace just created with no topic (``fresh``),
    and one whose bundles are loaded because traffic runs on it (``moving``, migrated under traffic)."""
    deployment = blue_green
    blue, green = deployment.clusters["blue"], deployment.clusters["green"]
    moving, staying, fresh = (_namespace(deployment, n) for n in ("moving", "staying", "fresh"))
    # the URL comes from the cluster's policies even for namespace migration (pulsar-facts §4)
    observe.migrate_cluster(blue.admin(), "blue", green, migrated=False)
    fresh_answer = observe.ask_namespace_migration(blue.admin(), fresh, "fresh")
    if fresh_answer.lacks:
        rec = Recorder(certify_run, request, None, CHECKS)
        namespace_level.record(rec, "namespace-migration", fresh_answer)
        rec.finish()
        return
    loads = [TopicLoad(f"persistent://{ns}/orders", (Sub("fast", "Exclusive"), Sub("slow", "Exclusive", delay=0.05)),
                       rate=60.0) for ns in (moving, staying)]
    answers: dict[str, observe.NamespaceMigrationAnswer] = {}

    def trigger() -> str:
        answers["loaded"] = answer = observe.ask_namespace_migration(blue.admin(), moving, "loaded")
        return (f"namespace {moving} migrated to green" if answer.ok
                else f"namespace-level migration of {moving} refused: HTTP {answer.status}")

    out = scenario.run(deployment, certify_run.directory("captures", "namespace-migration"), loads, trigger,
                       seed=certify_run.seed, after_s=8.0)
    rec = Recorder(certify_run, request, out, CHECKS)
    namespace_level.record(rec, "namespace-fresh", fresh_answer)
    namespace_level.record(rec, "namespace-migration", answers["loaded"])
    if not answers["loaded"].ok:  # nothing was migrated: the topics' requirements are not judged here
        rec.finish()
        return
    judge_topics(rec, out, [loads[0].topic], "namespace-migration")
    judge_topics(rec, out, [loads[1].topic], "namespace-migration", expect_migrated=False)
    record_traces(rec, out, "namespace-migration", topics=[loads[0].topic])
    blue_policy = or_refusal(blue.admin().namespace_policies, moving)
    green_policy = or_refusal(green.admin().namespace_policies, moving)
    rec("namespace-migration/state-local", blue_policy.get("migrated") is True and green_policy.get("migrated") is False,
        f"blue's policies of {moving}: migrated={blue_policy.get('migrated')}; green's: migrated={green_policy.get('migrated')}")
    judge_clients(rec, {loads[0].topic: out.topics[loads[0].topic]}, blue_log(deployment), "namespace-migration")
    rec.finish()


def test_cluster_migration_with_live_traffic(blue_green, certify_run, request):
    deployment = blue_green
    blue, green = deployment.clusters["blue"], deployment.clusters["green"]
    ns = _namespace(deployment, "live")
    loads = [TopicLoad(f"persistent://{ns}/{t.lower()}", (
        Sub("fast", t, consumers=1 if t == "Exclusive" else 2),
        Sub("slow", t, consumers=1 if t == "Exclusive" else 2, delay=0.05)), rate=60.0) for t in SUB_TYPES]
    exclusive, fresh = loads[0].topic, f"persistent://{ns}/fresh"

    def trigger() -> str:
        observe.migrate_cluster(blue.admin(), "blue", green)
        return "blue migrated to green (cluster level)" + tls_modes.evidence()

    def after_trigger(traffic) -> str:
        # a client that cannot follow the redirect cannot even be created (it times out): the
        # traffic keeps that as evidence (Traffic.refusal)
        traffic.add_producer(exclusive, "p-new", rate=20.0)
        traffic.add_consumer(exclusive, Sub("late", "Exclusive", must_see=False, latest=True), "c-late")
        traffic.add_producer(fresh, "p-fresh", rate=20.0)
        return "new producer and subscription via blue"

    out = scenario.run(deployment, certify_run.directory("captures", "cluster-migration"), loads, trigger,
                       seed=certify_run.seed, after_trigger=after_trigger)
    rec = Recorder(certify_run, request, out, CHECKS)
    prefix = "cluster-migration"
    judge_topics(rec, out, [load.topic for load in loads], prefix)
    record_traces(rec, out, prefix)
    o = out.topics[exclusive]

    # new producer and subscription through blue after the trigger: straight to green
    new = next((p for p in o.producers if p.name == "p-new"), None)
    late = next((s for s in o.subscriptions if s.name == "late"), None)
    rec(f"{prefix}/new-producer-via-blue", bool(new and new.sent_ok and new.on_blue == 0),
        f"p-new: {new.on_green if new else 0} sends stored on green, {new.on_blue if new else 0} on blue"
        + out.traffic.refusal("p-new"))
    rec(f"{prefix}/new-subscription-via-blue", bool(late and "late" in o.green.subscriptions and "late" not in o.blue.subscriptions and late.from_blue == 0),
        f"subscription 'late' on green: {'late' in o.green.subscriptions}, on blue: {'late' in o.blue.subscriptions}; "
        f"{late.from_blue if late else 0} deliveries from blue, {late.from_green if late else 0} from green"
        + out.traffic.refusal("c-late"))
    rec(f"{prefix}/blue-refuses-writes", all(t.blue.state == "Terminated" and not t.blue.publishers for t in out.topics.values()),
        "; ".join(f"{t.topic.rsplit('/', 1)[-1]}: blue ledger {t.blue.state}, publishers {t.blue.publishers}"
                  for t in out.topics.values()))
    # a topic first used after the migration is never created in blue
    fresh_blue, fresh_green = observe.topic_state(blue, fresh), observe.topic_state(green, fresh)
    rec(f"{prefix}/no-new-topic-in-blue", not_created(fresh_blue, fresh_green),
        f"{fresh} on blue: {fresh_blue.error or fresh_blue.state}; on green: {fresh_green.entries} entries"
        + out.traffic.refusal("p-fresh"))
    # automatic resource creation: the subscriptions exist on green and nothing was lost for them
    lost = out.verdict["anomalies"].get("lost", {}).get("count", 0)
    missing = {t.topic.rsplit("/", 1)[-1]: sorted({"fast", "slow"} - set(t.green.subscriptions)) for t in out.topics.values()}
    rec(f"{prefix}/resources-on-green", not any(missing.values()) and lost == 0,
        f"subscriptions missing on green: {missing}; lost messages: {lost}")
    # monitoring: a migration flag in topic stats (seed feature 8)
    keys = o.blue.stats_keys
    rec(f"{prefix}/stats-flag", any("migrat" in k.lower() for k in keys),
        f"topic stats fields with 'migrat': {[k for k in keys if 'migrat' in k.lower()] or 'none'}; "
        f"internal stats show state={o.blue.state}, properties.migrated={o.blue.migrated_property}")
    # the migration state is blue's alone
    on_blue = or_refusal(blue.admin().cluster_migration, "blue")
    on_green = or_refusal(green.admin().cluster_migration, "blue")
    green_ns = or_refusal(green.admin().namespace_policies, ns)
    # a blue that will not say its own state (Pulsar 3.0.7 answers GET .../migrate with HTTP 405) shows nothing
    local = on_blue.get("migrated") is True and not on_green.get("migrated") and green_ns.get("migrated") is False
    rec(f"{prefix}/state-local", None if "error" in on_blue else local,
        f"blue says migrated={on_blue.get('migrated')}"
        + (f" (HTTP {on_blue['error']}: blue does not say its migration state)" if "error" in on_blue else "")
        + f"; green's view of blue: {on_green}; green's namespace migrated={green_ns.get('migrated')}")
    judge_clients(rec, out.topics, blue_log(deployment), prefix)
    rec.finish()

