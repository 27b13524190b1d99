"""What a PIP-188 scenario leaves to be judged (``Outcome``, saved as outcome.json by
harness/outcome.py, the capture's rows read back from the capture): per topic, blue's and green's
state and where each acknowledged send was stored; the clients the traffic made (and why any could
not be made), blue's log lines the client checks read, blue's answers to the namespace-level migration
call, what the scenario read of the clusters after its traffic (states, admin answers, facts), and
Spark's verdict, taken by the record step after the scenario (record.py, harness/afterwards.py).
No verdict figure is kept: the judge computes each producer's and subscription's figures from these
(judge.with_figures: ``TopicFigures``), so a saved run judged again gets today's figures.

Blue and green are separate clusters with separate BookKeeper ledgers, so a message id
``ledger:entry`` names a stored entry only together with its cluster: ``place_sends`` attributes
each send to the cluster that stored it. ``CapturedRun`` is the run as the trace's projection
reads it (``captured``, or ``load_run`` for runs recorded before outcome.json: migration.json).
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from pathlib import Path

from ...harness import evidence
from ...harness import outcome as saved
from ...harness.handles import HandleInfo, refusal
from ...harness.history import History

# the broker setting of PIP-188's automatic resource creation (R09), in ServiceConfiguration from 3.2.0 on
AUTO_CREATE = "clusterMigrationAutoResourceCreation"
# blue's log lines the client checks read (judge.judge_clients): the redirects, the clients that
# cannot follow, the Migrated-Topic commands blue failed to build. Pulsar 5 logs the redirect as
# "redirect migrated producer to topic: producerId=, producerName" with the names as slog attributes
# (printed after the message where the log pattern has them: fixtures/deploy/brokerconf.py), 3.x and 4.x
# with "producerName = X," in the message.
LOG_MARKS = ("producerName = ", "redirect migrated producer", "client doesn't support topic migration handling",
             "CommandTopicMigrated.setBrokerServiceUrl")


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
    # internal stats' pendingAddEntriesCount: writes the managed ledger neither completed nor failed (a
    # Terminated ledger leaves them so, and the topic fenced by a failed one stays fenced: F-188-4)
    pending_adds: int | None = None

    def to_json(self) -> dict:
        return {"cluster": self.cluster, "topic": self.topic, "ledgers": sorted(self.ledgers), "state": self.state,
                "migrated_property": self.migrated_property, "entries": self.entries, "publishers": self.publishers,
                "subscriptions": {k: {"msgBacklog": v.get("msgBacklog"), "consumers": len(v.get("consumers", []))}
                                  for k, v in self.subscriptions.items()},
                "error": self.error, "pending_adds": self.pending_adds}


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
    path: str = ""  # the endpoint's path (fixtures/deploy/admin.py), for the evidence

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
        call = f"POST {self.path} {str(self.migrated).lower()}"
        if self.ok:
            return f"blue accepted {call} on {where}"
        if self.lacks:
            what = "its web server's error page, no Pulsar error" if "<html" in self.said.lower() else self.said[:160]
            return (f"blue answered HTTP {self.status} to {call} ({what}): this release has no namespace-level "
                    "migration (it came with Pulsar 3.2)")
        return f"blue answered HTTP {self.status} to {call} on {where}: {self.said[:300]}"


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
    # a cluster that did not answer for its topic (a timeout, an error: not a 404, which says it has none)
    # has ledgers nobody knows, and they may carry the ids of the other's: no send can be told by its ledger
    # (5.0.0-M1, 2026-11-29: blue's stats timed out, its ledger 5 was green's ledger 5 too, and 349 sends blue
    # stored were placed on green, which held 0 entries)
    unknown = [s for s in (blue, green) if s.error and not s.error.startswith("HTTP 404")]
    if unknown:
        return Placement(topic, dict.fromkeys(ids, "unknown"), ids, "none",
                         [f"{s.cluster}'s ledgers are unknown ({s.error}), so a send's ledger id cannot tell which "
                          "cluster stored it" for s in unknown])
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

@dataclass
class ProducerFigures:
    name: str
    sent_ok: int
    send_errors: int
    on_blue: int
    on_green: int
    redirect_s: float | None  # trigger -> first send stored on green
    longest_gap_s: float  # longest time without a successful send, over the producer's life
    order_violations: list[str] = field(default_factory=list)
    # failed sends from the trigger on: what the client gave up on instead of re-sending to green
    errors_after_trigger: int = 0


@dataclass
class SubscriptionFigures:
    name: str
    received: int
    from_blue: int
    from_green: int
    blue_missing: int  # stored on blue, never delivered to this subscription
    redirect_s: dict[str, float | None]  # consumer -> trigger to first delivery from green
    duplicates_after_redirect: int
    drain_violations: list[str] = field(default_factory=list)
    created_after_trigger: bool = False  # a new subscription: it has no blue backlog to drain


@dataclass
class SourceFigures:
    """One producer's messages as one subscription got them, e.g. a producer in a remote region
    whose messages reach blue, then green, by replication (PIP-188 feature 3)."""

    producer: str
    subscription: str
    acked: int
    delivered: int
    missing: int  # acknowledged to the producer, never delivered to the subscription
    via_green: int  # first deliveries after the subscription read its first message from green
    order_violations: list[str] = field(default_factory=list)


@dataclass
class TopicOutcome:
    """One topic as the scenario read it: blue's and green's state (admin readings) and where each
    acknowledged send was stored (``place_sends``, from those states and the capture's sends)."""

    topic: str
    blue: TopicState
    green: TopicState
    placement: Placement

    def to_json(self) -> dict:
        return {"blue": self.blue.to_json(), "green": self.green.to_json(),
                "placement": {"method": self.placement.method, "problems": self.placement.problems,
                              "counts": {c: list(self.placement.by_uid.values()).count(c) for c in ("blue", "green", "unknown")}}}


@dataclass
class TopicFigures(TopicOutcome):
    """A topic as the judges read it: what the scenario read (``TopicOutcome``) and the figures of its
    producers and subscriptions, computed by the judge from the capture (judge.with_figures); never saved
    in outcome.json. ``to_json`` is migration.json's entry of the topic, figures included (record.py)."""

    producers: list[ProducerFigures] = field(default_factory=list)
    subscriptions: list[SubscriptionFigures] = field(default_factory=list)

    def to_json(self) -> dict:
        return {**super().to_json(), "producers": [vars(p) for p in self.producers],
                "subscriptions": [vars(s) for s in self.subscriptions]}


@dataclass
class Outcome:
    name: str  # the scenario: its checks' prefix and its judge (judge.SCENARIOS)
    run_dir: Path
    trigger_ns: int
    topics: dict[str, TopicOutcome]
    # Spark's verdict over the capture: None until the record step took it after the scenario
    # (record.judged, harness/afterwards.spark_verdict), which saves the outcome again with it
    verdict: dict | None
    markers: list[dict] = field(default_factory=list)
    handles: list[HandleInfo] = field(default_factory=list)  # the clients the traffic made
    hung: list[dict] = field(default_factory=list)  # client calls abandoned at their deadline
    sub_types: dict[tuple[str, str], str] = field(default_factory=dict)  # (topic, subscription) -> type
    blue_log: str = ""  # blue's log lines with one of LOG_MARKS
    answers: dict[str, NamespaceMigrationAnswer] = field(default_factory=dict)  # case -> blue's answer (R06)
    states: dict[str, TopicState] = field(default_factory=dict)  # further topic states the scenario read
    admin: dict[str, dict] = field(default_factory=dict)  # admin answers the scenario read (policies, ...)
    facts: dict = field(default_factory=dict)  # what the scenario set up and measured (its judge says which)
    columns: dict = saved.captured()  # the capture's rows

    def refusal(self, name: str) -> str:
        """Evidence text for handle ``name``: why its client could not create it, or ""."""
        return refusal(self.handles, name)

    def consumed(self, topic: str) -> list[str]:
        """The subscriptions of ``topic`` a consumer read through blue (the traffic's handles): those
        whose figures are judged (one in another region reads blue's messages by replication)."""
        return sorted({h.subscription for h in self.handles
                       if h.topic == topic and h.kind == "consumer" and h.cluster == "blue" and h.subscription})

    def late(self, topic: str, subscription: str) -> bool:
        """Every consumer of the subscription was created after the trigger: a new subscription, with no
        blue backlog to drain (judged by new-subscription-via-blue, not by the drain)."""
        return all(h.created_ns > self.trigger_ns for h in self.handles
                   if h.topic == topic and h.subscription == subscription)


def log_marks(log: str) -> str:
    """The lines of a broker log the client checks read."""
    return "\n".join(line for line in log.splitlines() if any(mark in line for mark in LOG_MARKS))


# ----------------------------------------------------------------------- the run as the trace reads it


def topic_state_from_json(doc: dict) -> TopicState:
    """A ``TopicState`` back from ``TopicState.to_json`` (migration.json)."""
    return TopicState(doc["cluster"], doc["topic"], set(doc.get("ledgers") or ()), doc.get("state"),
                              doc.get("migrated_property"), doc.get("entries"), list(doc.get("publishers") or ()),
                              dict(doc.get("subscriptions") or {}), error=doc.get("error"),
                              pending_adds=doc.get("pending_adds"))


@dataclass
class CapturedRun:
    """A run as the trace's projection reads it (trace.py, judge.traces): capture columns, the
    trigger, each topic's blue and green state, subscription types and which subscriptions came
    after the trigger; placement is recomputed from these as ``scenario.gather`` computes it. A view
    of an ``Outcome`` (``captured``), or of a run recorded before outcome.json (``load_run``)."""

    run_dir: Path
    trigger_ns: int
    columns: dict[str, list]
    states: dict[str, tuple[TopicState, TopicState]]
    sub_types: dict[tuple[str, str], str] = field(default_factory=dict)
    late_subs: set[tuple[str, str]] = field(default_factory=set)
    _placement: dict = field(default_factory=dict, init=False, repr=False)
    history: History = field(init=False, repr=False)

    def __post_init__(self):
        # the clients attached through blue (one in another region reaches blue by replication)
        self.history = History(self.columns, cluster="blue")

    @property
    def topics(self) -> list[str]:
        return list(self.states)

    def sends(self, topic: str) -> list[dict]:
        return self.history.sends(topic)

    def failed_sends(self, topic: str) -> list[dict]:
        return self.history.failed_sends(topic)

    def receives(self, topic: str, subscription: str) -> list[dict]:
        return self.history.receives(topic, subscription)

    def acks(self, topic: str, subscription: str) -> list[dict]:
        return self.history.acks(topic, subscription)

    def subscriptions(self, topic: str) -> list[str]:
        return self.history.subscriptions(topic)

    def placement(self, topic: str) -> Placement:
        if topic not in self._placement:
            blue, green = self.states[topic]
            self._placement[topic] = place_sends(topic, self.sends(topic), blue, green)
        return self._placement[topic]

    def with_columns(self, columns: dict[str, list]) -> CapturedRun:
        """The same run with other capture rows (corrupted-trace mutants); placement and the row
        index are recomputed."""
        return replace(self, columns=columns)


def load_run(run_dir: str | Path) -> CapturedRun:
    run_dir = Path(run_dir)
    doc = json.loads((run_dir / "migration.json").read_text())
    states = {t: (topic_state_from_json(o["blue"]), topic_state_from_json(o["green"])) for t, o in doc["topics"].items()}
    late = {(t, s["name"]) for t, o in doc["topics"].items() for s in o.get("subscriptions", ())
            if s.get("created_after_trigger")}
    types: dict[tuple[str, str], str] = {}
    manifest = run_dir / "manifest.json"
    if manifest.exists():
        for load in json.loads(manifest.read_text()).get("scenario", {}).get("loads", ()):
            for sub in load.get("subs", ()):
                types[(load["topic"], sub["name"])] = sub.get("type", "")
    return CapturedRun(run_dir, int(doc["trigger_ns"]), evidence.read_capture(run_dir), states, types, late)


def captured(out: Outcome) -> CapturedRun:
    states = {t: (o.blue, o.green) for t, o in out.topics.items()}
    late = {(t, s) for t in out.topics for s in out.consumed(t) if out.late(t, s)}
    return CapturedRun(out.run_dir, out.trigger_ns, out.columns, states, dict(out.sub_types), late)
