"""What blue and green say through their admin APIs, and which cluster stored each message.

Blue and green are separate clusters with separate BookKeeper ledgers, so a message id
``ledger:entry`` names a stored entry only together with its cluster. A topic's ledgers are
read from each cluster's internal stats; a send acknowledged with a ledger that only blue has
was stored by blue. If the two clusters happen to use the same ledger id for the topic, the
order of acknowledgements decides (``place_sends``) and the classification says so.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from pulsar_conformance.fixtures.deploy.admin import Admin, AdminError

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


@dataclass(frozen=True)
class NamespaceMigrationAnswer:
    """Blue's answer to ``POST /admin/v2/namespaces/{ns}/migration``, as evidence for PIP188-R06.

    The two cases an operator meets answer differently on some releases: the endpoint writes the
    namespace's *local* policies, whose metadata node first appears when the namespace's bundles
    load (a topic looked up or served), so a namespace created a moment ago with no topic may have
    none yet (docs/findings.md on PIP188-R06)."""

    namespace: str
    case: str  # "loaded": traffic on it before the call; "fresh": just created, no topic yet
    migrated: bool
    status: int | None  # HTTP status, None when the call succeeded without one (2xx)
    said: str

    @property
    def lacks(self) -> bool:
        """The release has no such endpoint: its web server's 404/405, not a Pulsar error."""
        return self.status in (404, 405) and "does not exist" not in self.said.lower()

    @property
    def ok(self) -> bool:
        return self.status is None

    def describe(self) -> str:
        where = ("a namespace whose bundles are loaded (traffic on it before the call)" if self.case == "loaded"
                 else "a namespace just created, with no topic yet (its bundles not loaded)")
        call = f"POST {Admin.namespace_migration_path(self.namespace)} {str(self.migrated).lower()}"
        if self.ok:
            return f"blue accepted {call} on {where}"
        if self.lacks:
            what = "its web server's error page, no Pulsar error" if "<html" in self.said.lower() else self.said[:160]
            return (f"blue answered HTTP {self.status} to {call} ({what}): this release has no namespace-level "
                    "migration (it came with Pulsar 3.2)")
        return f"blue answered HTTP {self.status} to {call} on {where}: {self.said[:300]}"


def ask_namespace_migration(admin, namespace: str, case: str, migrated: bool = True) -> NamespaceMigrationAnswer:
    """Call the namespace-level migration endpoint and keep whatever blue answers (never raises on
    an HTTP answer: a refusal is the evidence)."""
    try:
        admin.migrate_namespace(namespace, migrated=migrated)
    except AdminError as error:
        return NamespaceMigrationAnswer(namespace, case, migrated, error.status if error.status is not None else -1,
                                        str(error))
    return NamespaceMigrationAnswer(namespace, case, migrated, None, "")


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
