"""What blue and green say through their admin APIs, and which cluster stored each message.

Blue and green are separate clusters with separate BookKeeper ledgers, so a message id
``ledger:entry`` names a stored entry only together with its cluster. A topic's ledgers are
read from each cluster's internal stats; a send acknowledged with a ledger that only blue has
was stored by blue. If the two clusters happen to use the same ledger id for the topic, the
order of acknowledgements decides (``place_sends``) and the classification says so.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from pulsar_conformance.fixtures.deploy.admin import AdminError

from . import tls_modes


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


@dataclass
class TopicState:
    """One topic as one cluster reports it (None where the cluster could not say)."""

    cluster: str
    topic: str
    ledgers: set[int] = field(default_factory=set)
    state: str | None = None  # managed-ledger state: LedgerOpened, Terminated, ...
    migrated_property: str | None = None  # 4.2.x: internal stats properties.migrated
    entries: int | None = None
    publishers: list[str] = field(default_factory=list)
    subscriptions: dict[str, dict] = field(default_factory=dict)
    stats_keys: list[str] = field(default_factory=list)
    error: str | None = None

    def to_json(self) -> dict:
        return {"cluster": self.cluster, "topic": self.topic, "ledgers": sorted(self.ledgers), "state": self.state,
                "migrated_property": self.migrated_property, "entries": self.entries, "publishers": self.publishers,
                "subscriptions": {k: {"msgBacklog": v.get("msgBacklog"), "consumers": len(v.get("consumers", []))}
                                  for k, v in self.subscriptions.items()},
                "error": self.error}


def namespace_migration_refusal(admin, namespace: str) -> tuple[bool, str] | None:
    """How the release refuses namespace-level migration, or None when it offers it: (lacks, said).
    Releases before 3.2 have no such endpoint (their REST layer answers 404 or 405, not Pulsar's
    "does not exist" for the namespace): ``lacks``. A release that has it but fails the call
    (3.3.2 answers HTTP 500 from its metadata store) offers it broken: not ``lacks``. Asking with
    ``false``, the default, changes nothing."""
    try:
        admin.migrate_namespace(namespace, migrated=False)
    except AdminError as error:
        said = str(error)
        if error.status in (404, 405) and "does not exist" not in said.lower():
            # the web server's own error page, not a Pulsar error: no resource serves the path
            what = "its web server's error page, no Pulsar error" if "<html" in said.lower() else said[:160]
            return True, (f"blue answered HTTP {error.status} to POST /admin/v2/namespaces/{namespace}/migration "
                          f"({what}): this release has no namespace-level migration (it came with Pulsar 3.2)")
        if error.status is not None and error.status >= 500:
            return False, (f"blue answered HTTP {error.status} to POST /admin/v2/namespaces/{namespace}/migration "
                           f"false on a namespace it had just created ({said[:300]}): the release has "
                           "namespace-level migration, and it fails")
        raise
    return None


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
    out.publishers = [p.get("producerName") for p in stats.get("publishers", [])]
    out.subscriptions = stats.get("subscriptions", {})
    out.stats_keys = sorted(stats)
    return out


def ledger_of(msg_id: str | None) -> int | None:
    return msg_pair(msg_id)[0] if msg_id else None


@dataclass
class Placement:
    """Where each acknowledged send of a topic was stored: uid -> 'blue' | 'green' | 'unknown'."""

    topic: str
    by_uid: dict[str, str]
    msg_id: dict[str, str]
    method: str
    problems: list[str]


def place_sends(topic: str, sends: list[dict], blue: TopicState, green: TopicState) -> Placement:
    """Attribute each ``send_ok`` of ``topic`` to the cluster that stored it.

    Distinct ledger ids decide directly. Blue and green allocate ledger ids independently, so
    the same id can name a ledger in each; then the order of acknowledgements decides: blue
    terminates the topic before it lets any producer go, so every send blue stored was
    acknowledged before every send green stored, and blue's entry count says how many. The
    cut is checked against the message ids (blue's are entries 0..n-1 of its ledgers).
    """
    ids = {row["uid"]: row["msg_id"] for row in sends}
    shared = blue.ledgers & green.ledgers
    if not shared:
        side = {**dict.fromkeys(blue.ledgers, "blue"), **dict.fromkeys(green.ledgers, "green")}
        by_uid = {row["uid"]: side.get(ledger_of(row["msg_id"]), "unknown") for row in sends}
        return Placement(topic, by_uid, ids, "ledger ids", [])
    if blue.entries is None:
        return Placement(topic, {row["uid"]: "unknown" for row in sends}, ids, "none",
                         [f"ledger ids {sorted(shared)} exist on both clusters and blue's entry count is unknown ({blue.error})"])
    ordered = sorted(sends, key=lambda r: r["ts_ns"])
    cut = blue.entries
    by_uid = {row["uid"]: ("blue" if i < cut else "green") for i, row in enumerate(ordered)}
    problems = []
    expected_blue = {(ledger, e) for ledger in blue.ledgers for e in range(cut)} if len(blue.ledgers) == 1 else None
    got_blue = {msg_pair(row["msg_id"]) for row in ordered[:cut]}
    if expected_blue is not None and got_blue != expected_blue:
        problems.append(f"the first {cut} acknowledgements are not blue's entries 0..{cut - 1}")
    if len(ordered) < cut:
        problems.append(f"blue stored {cut} entries but only {len(ordered)} sends were acknowledged")
    if problems:
        # blue's entries include messages replicated into it from other regions: try each
        # producer's own message ids instead
        by_id, id_problems = _by_id_drop(ordered, blue, green)
        if not id_problems:
            return Placement(topic, by_id, ids, f"where each producer's message ids go back (ledger ids {sorted(shared)} "
                             "on both clusters)", [])
        problems += id_problems
        by_uid = dict.fromkeys(by_uid, "unknown")
    return Placement(topic, by_uid, ids, f"acknowledgement order (ledger ids {sorted(shared)} on both clusters)", problems)


def _by_id_drop(ordered: list[dict], blue: TopicState, green: TopicState) -> tuple[dict[str, str], list[str]]:
    """Blue stores a prefix of each producer's acknowledged sends, green the rest, each in a
    ledger of its own whose entry ids start again near 0: the one place where a producer's
    message ids (in acknowledgement order) go back is its switch to green."""
    by_uid: dict[str, str] = {}
    problems: list[str] = []
    counts = {"blue": 0, "green": 0}
    producers: dict[str, list[dict]] = {}
    for row in ordered:
        producers.setdefault(row["producer"], []).append(row)
    for name, mine in producers.items():
        pairs = [msg_pair(r["msg_id"]) for r in mine]
        drops = [i for i in range(1, len(pairs)) if pairs[i] <= pairs[i - 1]]
        if len(drops) != 1:
            problems.append(f"{name}: its message ids go back {len(drops)} times, so its switch cannot be placed")
            continue
        for i, row in enumerate(mine):
            side = "blue" if i < drops[0] else "green"
            by_uid[row["uid"]] = side
            counts[side] += 1
    for side, state in (("blue", blue), ("green", green)):
        if state.entries is None or counts[side] > state.entries:
            problems.append(f"{counts[side]} sends placed on {side}, which holds {state.entries} entries")
    return by_uid, problems


def msg_pair(msg_id: str) -> tuple[int, int]:
    ledger, entry = msg_id.split(":")[:2]
    return int(ledger), int(entry)
