"""Trace validation of a captured PIP-188 run against the cluster-migration spec (docs/spec.md).

The judges (``judge``) measure a run; this asks a different question: is what the clients saw
a behaviour the spec allows? One producer and one subscription of a topic are projected onto
the spec's vocabulary and the result is validated with hidden steps
(``spec.core.interpreter.validate``):

- each acknowledged send (``send_ok``) becomes ``publish``, observed with where the message was
  stored (blue or green, ``outcome.place_sends``); failed sends are dropped: blue never
  acknowledged them and the spec's producer only moves on once a message is stored;
- each delivery becomes ``consume``, observed with the message the subscription got and the
  cluster it came from (by the placement of its uid, as ``judge.subscription_figures`` reads it);
- a delivery of a message delivered before and not yet acknowledged is Pulsar's at-least-once
  redelivery (a consumer closed or reconnected with it unacknowledged: the migration closes every
  consumer). The spec has no redelivery action (its subscription reads each entry once), so it
  is left out of the projection and counted (``redeliveries``); a message delivered again after
  it was acknowledged stays a ``consume``, which the spec refuses: a redelivery finding (PIP188-R15);
- ``producer_redirect`` comes just before the first send stored on green;
- every other action of the spec (``consumer_redirect``: the capture sees the first delivery
  from green, not when the consumer subscribed there; ``admin_migrate``, ``migration_task``, ``replicate``,
  ``policy_sync``, ``remote_*`` and whatever the spec adds later) is hidden: the validator
  fills them in where the observed steps need them.

Messages are renumbered 1..K in the producer's order over a window around the switch (the last
``blue`` messages stored on blue and the first ``green`` stored on green), the same messages for
sends and deliveries, and the spec is instantiated with MESSAGES=K. The clocks are the harness's
own (``ts_ns``): a send is acknowledged to the client after it was stored, so a delivery can be
captured before its ``send_ok``; the projection then puts the publish (and the producer's earlier
ones) just before that delivery, and counts how often it did.

What the spec does not model is reported as not modelled (``ok`` None, ``modelled`` False)
rather than judged: a Shared subscription (several consumers, no delivery order), a
subscription created after the trigger (the spec's subscription exists from the start).
A Key_Shared subscription keeps order per key, so it is validated per key.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from pulsar_conformance.spec.core.interpreter import Observed
from pulsar_conformance.spec.protocols.cluster_migration import BLUE, GREEN, ClusterMigration

from ...harness import itf_traces, projection
from .outcome import CapturedRun, Placement

OBSERVED_ACTIONS = ("publish", "consume", "producer_redirect")
# what a validated projection covers: publish order across the switch, drain before green
REQUIREMENTS = ("PIP188-R01", "PIP188-R02", "PIP188-R04")
FINDINGS = {  # what a failed step shows -> the requirement it concerns (spec/catalog/pip-188.yaml)
    "placement": ["PIP188-R01"],  # a send stored where the spec's producer cannot be
    # a message delivered ahead of one sent before it: delivery order, the subscription's (R01 is
    # publish order: where the producer's sends were stored, the placement finding)
    "order": ["PIP188-R02"],
    "drain": ["PIP188-R02", "PIP188-R04"],  # a delivery from green while blue still had some
    "loss": ["PIP188-R02"],  # a message stored on blue the subscription skipped
    "green-loss": ["PIP188-R09"],  # a message stored on green the subscription skipped
    "redelivery": ["PIP188-R15"],  # a message delivered again after it was acknowledged
}
SIDES = {"blue": BLUE, "green": GREEN}
UNORDERED_TYPES = ("Shared",)  # no delivery order across consumers: not the spec's one reader
PER_KEY_TYPES = ("KeyShared", "Key_Shared")  # order per key only


# ---------------------------------------------------------------- the projection


@dataclass
class Projection:
    """One (producer, subscription[, key]) of a topic in the spec's vocabulary."""

    topic: str
    producer: str
    subscription: str
    key: str | None
    messages: list[dict]  # window, in the producer's order: uid, seq, side, number (1..K)
    steps: list[Observed]
    receives: int  # deliveries of window messages (redeliveries included)
    moved_publishes: int  # publishes put before a delivery captured before their send_ok
    failed_sends: int  # the producer's sends never acknowledged (dropped)
    unplaced: list[str] = field(default_factory=list)  # window uids whose cluster is unknown
    events: list[dict] = field(default_factory=list)  # per step: kind, number, seq, side (capture view)
    redeliveries: int = 0  # deliveries of a message delivered before and not yet acknowledged (left out)

    @property
    def from_blue(self) -> int:
        return sum(1 for m in self.messages if m["side"] == "blue")

    @property
    def from_green(self) -> int:
        return sum(1 for m in self.messages if m["side"] == "green")


def _stored(side: str, number: int):
    log, length = side, f"{side}_len"

    def check(before, after) -> bool:
        at = getattr(before, length)
        return getattr(after, length) == at + 1 and getattr(after, log)[at] == number

    return check


def _consumed(side: str, number: int):
    log, cursor, where = side, f"{side}_cursor", SIDES[side]

    def check(before, after) -> bool:
        at = getattr(before, cursor)
        return (before.sside == where and at < len(getattr(before, log)) and getattr(before, log)[at] == number
                and getattr(after, cursor) == at + 1)

    return check


def _side_of(row: dict, place: Placement) -> str:
    """The cluster a delivery came from, read as ``judge.subscription_figures`` reads it."""
    stored = place.by_uid.get(row["uid"], "unknown")
    if stored in ("blue", "green") and row["msg_id"] and row["msg_id"] != place.msg_id.get(row["uid"]):
        return "green" if stored == "blue" else "blue"
    return stored


def project(run: CapturedRun, topic: str, producer: str, subscription: str, *, blue: int = 6, green: int = 6,
            key: str | None = None) -> Projection:
    place = run.placement(topic)
    first: dict[str, dict] = {}
    for row in sorted(run.sends(topic), key=lambda r: (r["seq"], r["ts_ns"])):
        if row["producer"] == producer and (key is None or row["key"] == key):
            first.setdefault(row["uid"], row)
    mine = list(first.values())  # the producer's order
    side = {u: place.by_uid.get(u, "unknown") for u in first}
    on_blue = [r for r in mine if side[r["uid"]] == "blue"]
    on_green = [r for r in mine if side[r["uid"]] == "green"]
    chosen = {r["uid"] for r in on_blue[max(0, len(on_blue) - blue):] + on_green[:green]}
    window = [r for r in mine if r["uid"] in chosen]
    number = {r["uid"]: i + 1 for i, r in enumerate(window)}
    messages = [{"uid": r["uid"], "seq": r["seq"], "side": side[r["uid"]], "number": number[r["uid"]]} for r in window]
    unplaced = [r["uid"] for r in mine if side[r["uid"]] not in ("blue", "green")]
    failed = sum(1 for r in run.failed_sends(topic) if r["producer"] == producer and (key is None or r["key"] == key))

    # the observed events in capture order: (ts, order, kind, number, side, row)
    events = [(r["ts_ns"], 0, "publish", number[r["uid"]], side[r["uid"]], r) for r in window]
    delivered = [r for r in run.receives(topic, subscription) if r["uid"] in number]
    events += [(r["ts_ns"], 1, "consume", number[r["uid"]], _side_of(r, place), r) for r in delivered]
    events.sort(key=lambda e: (e[0], e[1], e[3]))
    acked = first_acks(run.acks(topic, subscription))
    by_number = {number[r["uid"]]: r for r in window}

    steps: list[Observed] = []
    meta: list[dict] = []
    published, moved, redelivered = 0, 0, 0
    producer_on_green = consumer_on_green = False
    consumed: set[str] = set()

    def publish_up_to(n: int) -> None:
        nonlocal published, producer_on_green
        while published < n:
            published += 1
            row = by_number[published]
            where = side[row["uid"]]
            if where == "green" and not producer_on_green:
                producer_on_green = True
                steps.append(Observed("producer_redirect", None, f"before seq {row['seq']}, the first send stored on green"))
                meta.append({"kind": "producer_redirect", "number": published, "seq": row["seq"], "side": "green"})
            steps.append(Observed("publish", _stored(where, published),
                                  f"#{published} = seq {row['seq']} acknowledged, stored on {where}"))
            meta.append({"kind": "publish", "number": published, "seq": row["seq"], "side": where})

    for _ts, _order, kind, n, where, row in events:
        if kind == "publish":
            publish_up_to(n)
            continue
        if row["uid"] in consumed and not acked_before(acked, row):
            redelivered += 1  # at-least-once: the spec's subscription has no such step
            continue
        consumed.add(row["uid"])
        if n > published:
            moved += n - published
            publish_up_to(n)
        # the consumer's redirect is hidden: the capture sees its first delivery from green, not
        # when it subscribed there, which (no auto creation, Latest) decides what it can read
        consumer_on_green = consumer_on_green or where == "green"
        steps.append(Observed("consume", _consumed(where, n) if where in SIDES else (lambda _b, _a: False),
                              f"#{n} = seq {row['seq']} delivered to {row['client']} from {where}"))
        meta.append({"kind": "consume", "number": n, "seq": row["seq"], "side": where})
    return Projection(topic, producer, subscription, key, messages, steps, len(delivered), moved, failed, unplaced, meta,
                      redelivered)


def first_acks(acks: list[dict]) -> dict[str, int]:
    """When each uid was first acknowledged (capture time) on the subscription."""
    out: dict[str, int] = {}
    for row in acks:
        out[row["uid"]] = min(out.get(row["uid"], row["ts_ns"]), row["ts_ns"])
    return out


def acked_before(acked: dict[str, int], delivery: dict) -> bool:
    """The delivered message had been acknowledged before this delivery (a duplicate, not an
    at-least-once redelivery)."""
    at = acked.get(delivery["uid"])
    return at is not None and at < delivery["ts_ns"]


# ------------------------------------------------------------------- validation


@dataclass
class TraceVerdict:
    """Whether one projected pair is a behaviour of the spec, with the figures."""

    topic: str
    producer: str
    subscription: str
    key: str | None
    ok: bool | None
    problem: str = ""
    step: int | None = None  # 1-based observed step nothing enables
    step_event: str = ""  # that step as the capture shows it
    broken: list[tuple[int, str]] = field(default_factory=list)
    messages: int = 0
    from_blue: int = 0
    from_green: int = 0
    receives: int = 0
    observed_steps: int = 0
    hidden_steps: int = 0
    hidden: dict[str, int] = field(default_factory=dict)  # hidden actions in the witness
    moved_publishes: int = 0
    failed_sends: int = 0
    redeliveries: int = 0
    state: dict[str, str] = field(default_factory=dict)  # the state reached (witness' last)
    variant: str = "auto-create"
    finding: str = ""  # what the failed step shows: order, drain, loss, redelivery, placement
    requirements: list[str] = field(default_factory=lambda: list(REQUIREMENTS))
    # the spec behaviour validated (hidden steps filled in), saved as an ITF file of the bundle
    witness: itf_traces.LiveTrace | None = field(default=None, compare=False, repr=False)

    def figures(self) -> dict:
        return {"messages": self.messages, "from_blue": self.from_blue, "from_green": self.from_green,
                "receives": self.receives, "observed_steps": self.observed_steps, "hidden_steps": self.hidden_steps,
                "moved_publishes": self.moved_publishes, "failed_sends_dropped": self.failed_sends,
                "redeliveries_unacked": self.redeliveries}

    def evidence(self) -> str:
        scope = f"{self.producer} -> {self.subscription}" + (f" key {self.key}" if self.key else "")
        head = (f"{scope}: {self.messages} messages around the switch ({self.from_blue} stored on blue, "
                f"{self.from_green} on green), {self.receives} deliveries"
                + (f" ({self.redeliveries} of them at-least-once redeliveries of a message not yet acknowledged, "
                   "not projected: the spec's subscription has no redelivery step)" if self.redeliveries else "")
                + f": {self.observed_steps} observed steps")
        if self.ok is None:
            return f"{scope}: {self.problem}"
        if not self.ok:
            at = ", ".join(f"{k}={self.state[k]}" for k in _SHOWN if k in self.state)
            broken = f"; invariants broken: {sorted({n for _, n in self.broken})}" if self.broken else ""
            return f"{head}; not a behaviour of the {self.variant} spec: {self.problem} (state reached: {at}){broken}"
        hidden = ", ".join(f"{a} x{c}" if c > 1 else a for a, c in self.hidden.items())
        return (f"{head}, a behaviour of the {self.variant} spec with {self.hidden_steps} hidden steps ({hidden or 'none'}); "
                f"{self.moved_publishes} publishes placed before a delivery captured ahead of their send_ok; "
                f"{self.failed_sends} failed sends dropped")


_SHOWN = ("next", "pside", "terminated", "blue_len", "green_len", "replicated", "sside", "blue_cursor", "green_cursor")


def make_spec(variant: str, messages: int) -> ClusterMigration:
    """The spec sized to the projection: ``messages`` local messages and no other source (the
    projected pair has none; an incoming-replication source, when the spec has one, is empty)."""
    absent = {name: 0 for name in ("REMOTE",) if name in ClusterMigration.CONSTANTS}
    return ClusterMigration(variant=variant, MESSAGES=messages, **absent)


def hidden_actions(spec) -> tuple[str, ...]:
    return projection.unobserved(spec, OBSERVED_ACTIONS)


def validate_projection(p: Projection, *, variant: str = "auto-create", max_hidden: int | None = None) -> TraceVerdict:
    base = TraceVerdict(p.topic, p.producer, p.subscription, p.key, None, messages=len(p.messages),
                        from_blue=p.from_blue, from_green=p.from_green, receives=p.receives,
                        observed_steps=len(p.steps), moved_publishes=p.moved_publishes, failed_sends=p.failed_sends,
                        redeliveries=p.redeliveries, variant=variant)
    if p.unplaced:
        base.problem = f"{len(p.unplaced)} acknowledged sends could not be placed on blue or green"
        return base
    if not p.messages:
        base.problem = "no acknowledged sends to project"
        return base
    spec = make_spec(variant, len(p.messages))
    result = projection.check(projection.Projected(
        spec, p.steps, hidden_actions(spec), max_hidden=max_hidden if max_hidden is not None else len(p.messages) + 4))
    # an invariant the variant documents as violated (no-auto-create: no_acked_loss) is no finding
    must_hold = projection.broken_that_must_hold(spec, result)
    base.ok = result.ok and not must_hold
    base.broken = result.broken
    base.hidden_steps = result.hidden_steps
    hidden = set(hidden_actions(spec))
    base.hidden = dict(Counter(label.split("(")[0] for label in result.labels if label.split("(")[0] in hidden))
    base.state = spec.show_state(result.states[-1])
    base.witness = itf_traces.from_validation(spec, result, p.steps, part=f"key-{p.key}" if p.key else "")
    if not result.ok:
        base.problem, base.step = result.problem, result.failed_step
        base.step_event = p.steps[result.failed_step - 1].note if result.failed_step else ""
        base.finding = _diagnose(p, result.failed_step - 1, result.states[-1])
        base.requirements = list(FINDINGS.get(base.finding, REQUIREMENTS))
        base.problem += f" ({base.finding})"
    elif must_hold:
        base.problem = f"invariants broken along the behaviour: {must_hold}"
        base.finding = "invariant"
    return base


def _diagnose(p: Projection, index: int, state) -> str:
    """What the first step the spec does not allow shows, read off the projection and the state
    the spec was in (the witness' last): the class of finding, keyed into FINDINGS."""
    event = p.events[index]
    if event["kind"] in ("publish", "producer_redirect"):
        return "placement"
    if event["kind"] == "consumer_redirect":
        return "drain"
    earlier = {e["number"] for e in p.events[:index] if e["kind"] == "consume"}
    if event["number"] in earlier:
        return "redelivery"
    side = "blue" if state.sside == BLUE else "green"
    if event["side"] == "blue" and side == "green":
        return "drain"  # a delivery from blue after the subscription moved to green
    if event["side"] == "green" and side == "blue" and state.blue_cursor < state.blue_len:
        return "drain"  # a delivery from green while blue still had something for it
    cursor, log = getattr(state, f"{side}_cursor"), getattr(state, side)
    expected = log[cursor] if cursor < getattr(state, f"{side}_len") else None
    if expected is None:
        return "order"  # nothing left to read there: the delivery is ahead of its place
    later = {e["number"] for e in p.events[index:] if e["kind"] == "consume"}
    if expected in later:
        return "order"
    return "loss" if side == "blue" else "green-loss"


def validate_pair(run: CapturedRun, topic: str, producer: str, subscription: str, *, variant: str = "auto-create",
                  blue: int = 6, green: int = 6, key: str | None = None) -> TraceVerdict:
    return validate_projection(project(run, topic, producer, subscription, blue=blue, green=green, key=key),
                               variant=variant)
