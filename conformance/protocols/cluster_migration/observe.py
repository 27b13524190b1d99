"""What blue and green say through their admin APIs (each topic's ledgers, state and stats, blue's
answer to the namespace-level migration call, blue's log), and the admin calls the scenarios make
(the migration itself, the namespaces). A topic's ledgers are read from each cluster's internal
stats: outcome.place_sends attributes each send to the cluster that stored it from them.
"""
from __future__ import annotations

import re

from pulsar_conformance.fixtures.deploy.admin import Admin, AdminError

from ...harness import slog
from . import tls_modes
from .outcome import AUTO_CREATE, NamespaceMigrationAnswer, TopicState, log_marks


def migrate_cluster(admin, cluster: str, target, *, migrated: bool = True) -> None:
    """Migrate ``cluster`` to ``target`` (its admin and broker URLs, and its TLS ones where the
    run's TLS mode advertises them: tls_modes.py)."""
    tls = tls_modes.current().advertise_tls
    admin.migrate_cluster(cluster, target.admin_url, target.plain_service_url, migrated=migrated,
                          service_url_tls=target.admin_url_tls if tls else None,
                          broker_url_tls=target.service_url_tls if tls else None)


def create_namespace(deployment, namespace: str, replication: dict[str, list[str]]) -> str:
    """``tenant/name`` on each cluster of ``replication`` with that cluster's own replication set.

    Each cluster has its own configuration store here, so each keeps its own set; green gets
    its namespace beforehand because automatic resource creation would copy blue's set, which
    lacks green, and green then refuses the subscriptions (docs/findings.md F-188-3)."""
    tenant, name = namespace.split("/")
    for cluster, clusters in replication.items():
        admin = deployment.admin(cluster)
        admin.put_namespace(tenant, name)
        admin.set_replication(tenant, name, clusters)
    return namespace


def ask_namespace_migration(admin, namespace: str, case: str, migrated: bool = True) -> NamespaceMigrationAnswer:
    """Call the namespace-level migration endpoint and keep whatever blue answers (never raises on
    an HTTP answer: a refusal is the evidence)."""
    path = Admin.namespace_migration_path(namespace)
    try:
        admin.migrate_namespace(namespace, migrated=migrated)
    except AdminError as error:
        return NamespaceMigrationAnswer(namespace, case, migrated, error.status if error.status is not None else -1,
                                        str(error), path)
    return NamespaceMigrationAnswer(namespace, case, migrated, None, "", path)


def topic_state(cluster, topic: str) -> TopicState:
    admin = cluster.admin()
    out = TopicState(cluster.name, topic)
    try:
        internal = admin.topic_internal_stats(topic)
        stats = admin.topic_stats(topic)
    except AdminError as error:
        out.error = f"HTTP {error.status}: {str(error)[:200]}"
        return out
    out.ledgers = {int(ledger["ledgerId"]) for ledger in internal.get("ledgers", [])}
    last = internal.get("lastConfirmedEntry", "")
    if ":" in last:
        out.ledgers.add(int(last.split(":")[0]))
    out.state = internal.get("state")
    out.migrated_property = (internal.get("properties") or {}).get("migrated")
    out.entries = internal.get("numberOfEntries")
    out.pending_adds = internal.get("pendingAddEntriesCount")
    out.publishers = [p.get("producerName") for p in stats.get("publishers", [])]
    out.subscriptions = stats.get("subscriptions", {})
    out.stats_keys = sorted(stats)
    return out


def probe_namespace_migration(admin, namespace: str) -> NamespaceMigrationAnswer:
    """Whether the release has namespace-level migration at all, before a scenario builds on it:
    ``false`` (the default, so nothing changes) on ``namespace``. Only ``lacks`` is read from it:
    on a namespace that has no topic yet, some releases fail the call where they accept it once
    the bundles load (the namespace-migration scenario judges both cases)."""
    return ask_namespace_migration(admin, namespace, "fresh", migrated=False)


def blue_log(deployment) -> str | None:
    """Blue's log lines the client checks read (outcome.LOG_MARKS); None where the deployment
    cannot read its log."""
    log = deployment.broker_log("blue")
    return log_marks(log) if log else None


# green refusing a consumer because it holds the subscription with the other durability: a reader's
# non-durable subscription that blue's automatic resource creation copied to green as a durable one
# (PersistentTopic#initMigration creates every subscription of the topic; docs/cluster-migration.md)
DURABILITY_REFUSAL = "Durable subscription with the same name already exists"
_REFUSED = re.compile(r"\]\[(persistent://[^\]]+)\]\[([^\]]+)\] Failed to create consumer: .*" + DURABILITY_REFUSAL)


def _refused(line: str) -> tuple[str, str] | None:
    """(topic, subscription) of a line where green refused a consumer for the durability of its subscription:
    in the message (3.x, 4.x) or as slog attributes after it (5.x, harness/slog.py)."""
    m = _REFUSED.search(line)
    if m:
        return m.group(1), m.group(2)
    if "Failed to create consumer" not in line or DURABILITY_REFUSAL not in line:
        return None
    found = slog.attributes(line)
    return (found["topic"], found["subscription"]) if "topic" in found and "subscription" in found else None


def auto_resource_creation(cluster) -> dict:
    """Whether ``cluster``'s broker has automatic resource creation and its value, from its runtime
    configuration (every field of its ServiceConfiguration): ``{"present": False}`` on a release that
    lacks the setting (before 3.2.0), where asking for it in broker.conf changed nothing; the refusal
    where the broker would not say."""
    return cluster.admin().setting(AUTO_CREATE)


def green_refusals(deployment) -> dict[str, dict] | None:
    """Per ``"<topic> <subscription>"``, how often green's log refused a consumer for the durability of the
    subscription it holds, and the first such line; None where the deployment cannot read green's log."""
    log = deployment.broker_log("green")
    if not log:
        return None
    found: dict[str, dict] = {}
    for line in log.splitlines():
        refused = _refused(line)
        if refused:
            entry = found.setdefault(" ".join(refused), {"count": 0, "first": line[:400]})
            entry["count"] += 1
    return found
