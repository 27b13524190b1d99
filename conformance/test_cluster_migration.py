"""PIP-188 blue-green migration on real clusters, with live traffic, judged per requirement.

One deployment (blue, green) for the module, blue with the migration task on
(clusterMigrationCheckDurationSeconds=1; the default 0 never migrates a live topic) and
automatic resource creation on. The scenarios run in order, since a migration cannot be undone
on the topics it moved:
1. namespace-level migration: the moving namespace is redirected, one beside it is not;
2. cluster-level migration: Exclusive, Shared, Failover and Key_Shared subscriptions, each
   with a drained and a backlogged subscription, and after the trigger a new producer, a new
   subscription and a new topic through blue.
Every run is captured and judged by the Spark checks (design.md §5.2), by where each message
was stored (observe.place_sends), by the admin state of both clusters and by blue's log.
"""
from __future__ import annotations

import os

import pytest

from .migration import observe, scenario
from .migration.workload import Sub, TopicLoad
from .run import VerdictUnknown, record, verdict_of

pytestmark = [pytest.mark.cluster_migration, pytest.mark.pulsar, pytest.mark.spark]

TENANT = "mig"
SUB_TYPES = ("Exclusive", "Shared", "Failover", "KeyShared")


@pytest.fixture(scope="module")
def blue_green(pulsar_deployment_factory, certify_run):  # noqa: F811 - a fixture argument
    deployment = pulsar_deployment_factory(
        ("blue", "green"), name=f"mig-{os.getpid()}",
        broker_config={"blue": {"clusterMigrationCheckDurationSeconds": 1,
                                "clusterMigrationAutoResourceCreation": True}})
    for name in ("blue", "green"):
        deployment.admin(name).put_tenant(TENANT, ["blue", "green"])
    yield deployment
    collect = getattr(deployment, "collect_logs", None)
    if collect is not None:
        collect(certify_run.directory("logs", "cluster-migration"))


def _namespace(deployment, name: str) -> str:
    """``mig/name`` on blue (local to blue) and the same name on green (local to green).

    Green has it beforehand: automatic resource creation copies blue's namespace policies,
    replication clusters included, and green refuses a subscription in a namespace whose
    clusters lack green (docs/findings.md F-188-3)."""
    for cluster in ("blue", "green"):
        admin = deployment.admin(cluster)
        admin.put_namespace(TENANT, name)
        admin.set_replication(TENANT, name, [cluster])
    return f"{TENANT}/{name}"


class Recorder:
    def __init__(self, certify_run, request, outcome):
        self.run, self.test, self.outcome = certify_run, request.node.nodeid, outcome
        self.rows: list[dict] = []

    def __call__(self, check: str, requirements: list[str], ok: bool | None, evidence: str, **details) -> None:
        details["capture"] = str(self.outcome.run_dir.relative_to(self.run.out))
        self.rows.append(record(self.run, check=check, kind="deployment", requirements=requirements,
                                verdict=verdict_of(ok), evidence=evidence, test=self.test, details=details))

    def finish(self) -> None:
        """The test fails on a failed MUST; a failed SHOULD is a recorded deviation (RFC 2119)."""
        from pulsar_conformance.spec.catalog import load

        strength = {req.id: req.strength for req in load().requirements}
        failed = [f"{r['check']} ({', '.join(r['requirements'])}): {r['evidence']}" for r in self.rows
                  if r["verdict"] == "fail" and any(strength.get(q) == "MUST" for q in r["requirements"])]
        unknown = [r["check"] for r in self.rows if r["verdict"] == "unknown"]
        assert not failed, "product defect: " + "\n".join(failed)
        if unknown:
            raise VerdictUnknown(f"not reached: {', '.join(unknown)}")


def _blue_log(deployment) -> str:
    home = getattr(deployment, "home", None)
    if home is None:
        return ""
    path = home / "clusters" / "blue" / "logs" / "pulsar.log"
    return path.read_text(errors="replace") if path.exists() else ""


def _judge_topics(rec: Recorder, out, topics: list[str], prefix: str, *, expect_migrated: bool = True) -> None:
    """Producer redirect and order, subscription drain, per requirement, for ``topics``."""
    spark = out.verdict["anomalies"]
    for topic in topics:
        o = out.topics[topic]
        short = topic.rsplit("/", 1)[-1]
        if o.placement.problems:
            rec(f"{prefix}/{short}/placement", ["PIP188-R03"], None, "; ".join(o.placement.problems))
            continue
        for p in o.producers:
            figures = {"redirect_s": p.redirect_s, "longest_gap_s": p.longest_gap_s, "on_blue": p.on_blue,
                       "on_green": p.on_green, "send_errors": p.send_errors}
            if expect_migrated:
                rec(f"{prefix}/{short}/{p.name}/redirected", ["PIP188-R03"], p.on_green > 0,
                    f"{p.on_blue} sends stored on blue, {p.on_green} on green, {p.send_errors} failed sends; "
                    f"redirect {p.redirect_s} s after the trigger; longest gap without a successful send {p.longest_gap_s} s",
                    **figures)
            else:
                rec(f"{prefix}/{short}/{p.name}/stayed", ["PIP188-R06"], p.on_green == 0 and p.on_blue > 0,
                    f"namespace not migrated: {p.on_blue} sends stored on blue, {p.on_green} on green", **figures)
            rec(f"{prefix}/{short}/{p.name}/order", ["PIP188-R01"], not p.order_violations,
                "; ".join(p.order_violations) or f"seq order kept: blue stored 1..{p.on_blue}, green the rest after it",
                **figures)
        for s in o.subscriptions:
            if s.created_after_trigger:
                continue  # judged by new-subscription-via-blue
            ok = not s.drain_violations and s.blue_missing == 0
            rec(f"{prefix}/{short}/{s.name}/drained-before-green", ["PIP188-R02", "PIP188-R04"], ok,
                "; ".join(s.drain_violations + ([f"{s.blue_missing} blue messages never delivered"] if s.blue_missing else []))
                or f"{s.from_blue} from blue, then {s.from_green} from green; consumer redirects {s.redirect_s} s after the trigger; "
                   f"{s.duplicates_after_redirect} duplicates after the redirect",
                redirect_s=s.redirect_s, duplicates_after_redirect=s.duplicates_after_redirect)
    for classes, requirement in ((("lost",), "PIP188-R03"), (("nonmonotonic",), "PIP188-R01"),
                                 (("duplicate", "redelivered_after_ack"), "PIP188-R15")):
        found = {k: spark[k]["count"] for k in classes if spark.get(k, {}).get("count")}
        ok = None if out.verdict["valid"] is None else not found
        rec(f"{prefix}/spark/{'+'.join(classes)}", [requirement], ok,
            f"Spark over {out.verdict['events']} captured events: {found or 'none'} of {', '.join(classes)}",
            examples={k: spark[k]["examples"][:2] for k in found})


def test_namespace_level_migration(blue_green, certify_run, request):
    deployment = blue_green
    blue, green = deployment.clusters["blue"], deployment.clusters["green"]
    moving, staying = _namespace(deployment, "moving"), _namespace(deployment, "staying")
    loads = [TopicLoad(f"persistent://{ns}/orders", (Sub("fast", "Exclusive"), Sub("slow", "Exclusive", delay=0.05)),
                       rate=60.0) for ns in (moving, staying)]

    def trigger() -> str:
        # the URL comes from the cluster's policies even for namespace migration (pulsar-facts §4)
        observe.migrate_cluster(blue.admin(), "blue", green, migrated=False)
        observe.migrate_namespace(blue.admin(), moving)
        return f"namespace {moving} migrated to green"

    out = scenario.run(deployment, certify_run.directory("captures", "namespace-migration"), loads, trigger,
                       seed=certify_run.seed, after_s=8.0)
    rec = Recorder(certify_run, request, out)
    _judge_topics(rec, out, [loads[0].topic], "namespace-migration")
    _judge_topics(rec, out, [loads[1].topic], "namespace-migration", expect_migrated=False)
    blue_policy = observe.admin_get(blue.admin(), f"/admin/v2/namespaces/{moving}")
    green_policy = observe.admin_get(green.admin(), f"/admin/v2/namespaces/{moving}")
    rec("namespace-migration/state-local", ["PIP188-R06", "PIP188-R12"],
        blue_policy.get("migrated") is True and green_policy.get("migrated") is False,
        f"blue's policies of {moving}: migrated={blue_policy.get('migrated')}; green's: migrated={green_policy.get('migrated')}")
    _judge_clients(rec, {loads[0].topic: out.topics[loads[0].topic]}, _blue_log(deployment), "namespace-migration")
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
        return "blue migrated to green (cluster level)"

    refused: dict[str, str] = {}

    def after_trigger(traffic) -> None:
        # a client that cannot follow the redirect cannot even be created (it times out): evidence
        for name, create in (("p-new", lambda: traffic.add_producer(exclusive, "p-new", rate=20.0)),
                             ("c-late", lambda: traffic.add_consumer(
                                 exclusive, Sub("late", "Exclusive", must_see=False, latest=True), "c-late")),
                             ("p-fresh", lambda: traffic.add_producer(fresh, "p-fresh", rate=20.0))):
            try:
                create()
            except Exception as error:  # noqa: BLE001 - recorded as the requirement's evidence
                refused[name] = f"{type(error).__name__}: {error}"

    out = scenario.run(deployment, certify_run.directory("captures", "cluster-migration"), loads, trigger,
                       seed=certify_run.seed, after_trigger=after_trigger)
    rec = Recorder(certify_run, request, out)
    prefix = "cluster-migration"
    _judge_topics(rec, out, [load.topic for load in loads], prefix)
    o = out.topics[exclusive]

    # new producer and subscription through blue after the trigger: straight to green
    new = next((p for p in o.producers if p.name == "p-new"), None)
    late = next((s for s in o.subscriptions if s.name == "late"), None)
    rec(f"{prefix}/new-producer-via-blue", ["PIP188-R05"], bool(new and new.sent_ok and new.on_blue == 0),
        f"p-new: {new.on_green if new else 0} sends stored on green, {new.on_blue if new else 0} on blue"
        + (f"; creating it through blue failed: {refused['p-new']}" if "p-new" in refused else ""))
    rec(f"{prefix}/new-subscription-via-blue", ["PIP188-R05"],
        bool(late and "late" in o.green.subscriptions and "late" not in o.blue.subscriptions and late.from_blue == 0),
        f"subscription 'late' on green: {'late' in o.green.subscriptions}, on blue: {'late' in o.blue.subscriptions}; "
        f"{late.from_blue if late else 0} deliveries from blue, {late.from_green if late else 0} from green"
        + (f"; subscribing through blue failed: {refused['c-late']}" if "c-late" in refused else ""))
    rec(f"{prefix}/blue-refuses-writes", ["PIP188-R05"],
        all(t.blue.state == "Terminated" and not t.blue.publishers for t in out.topics.values()),
        "; ".join(f"{t.topic.rsplit('/', 1)[-1]}: blue ledger {t.blue.state}, publishers {t.blue.publishers}"
                  for t in out.topics.values()))
    # a topic first used after the migration is never created in blue
    fresh_blue, fresh_green = observe.topic_state(blue, fresh), observe.topic_state(green, fresh)
    rec(f"{prefix}/no-new-topic-in-blue", ["PIP188-R10"], fresh_blue.error is not None and bool(fresh_green.entries),
        f"{fresh} on blue: {fresh_blue.error or fresh_blue.state}; on green: {fresh_green.entries} entries"
        + (f"; creating its producer through blue failed: {refused['p-fresh']}" if "p-fresh" in refused else ""))
    # automatic resource creation: the subscriptions exist on green and nothing was lost for them
    lost = out.verdict["anomalies"].get("lost", {}).get("count", 0)
    missing = {t.topic.rsplit("/", 1)[-1]: sorted({"fast", "slow"} - set(t.green.subscriptions)) for t in out.topics.values()}
    rec(f"{prefix}/resources-on-green", ["PIP188-R09"], not any(missing.values()) and lost == 0,
        f"subscriptions missing on green: {missing}; lost messages: {lost}")
    # monitoring: a migration flag in topic stats (seed feature 8)
    keys = o.blue.stats_keys
    rec(f"{prefix}/stats-flag", ["PIP188-R11"], any("migrat" in k.lower() for k in keys),
        f"topic stats fields with 'migrat': {[k for k in keys if 'migrat' in k.lower()] or 'none'}; "
        f"internal stats show state={o.blue.state}, properties.migrated={o.blue.migrated_property}")
    # the migration state is blue's alone
    on_blue = observe.admin_get(blue.admin(), "/admin/v2/clusters/blue/migrate")
    on_green = observe.admin_get(green.admin(), "/admin/v2/clusters/blue/migrate")
    green_ns = observe.admin_get(green.admin(), f"/admin/v2/namespaces/{ns}")
    rec(f"{prefix}/state-local", ["PIP188-R12"],
        on_blue.get("migrated") is True and not on_green.get("migrated") and green_ns.get("migrated") is False,
        f"blue says migrated={on_blue.get('migrated')}; green's view of blue: {on_green}; green's namespace migrated={green_ns.get('migrated')}")
    _judge_clients(rec, out.topics, _blue_log(deployment), prefix)
    rec.finish()


def _judge_clients(rec: Recorder, topics: dict, blue_log: str, prefix: str) -> None:
    """The client half of the protocol (PIP188-R16): a producer the broker told to move, moves.

    Blue's log says which producers it redirected (``redirect migrated producer ...
    producerName = X``) and which clients could not be told (``client doesn't support topic
    migration handling <topic>``, protocol < v20)."""
    if not blue_log:
        rec(f"{prefix}/client-follows-redirect", ["PIP188-R16"], None, "blue's broker log is not available on this deployment")
        return
    for topic, o in topics.items():
        for p in o.producers:
            told = f"producerName = {p.name}," in blue_log
            unsupported = f"client doesn't support topic migration handling PersistentTopic{{topic={topic}}}" in blue_log
            if not (told or unsupported):
                continue
            rec(f"{prefix}/{topic.rsplit('/', 1)[-1]}/{p.name}/client-follows-redirect", ["PIP188-R16"], p.on_green > 0,
                f"blue {'could not tell the client (protocol < v20)' if unsupported else 'redirected'} {p.name}; "
                f"it then stored {p.on_green} sends on green and failed {p.send_errors}")


