"""Per-topic verdict material: figures and the violations of each PIP-188 requirement.

Inputs are the capture's rows and where each send was stored (``observe.place_sends``).
Times are the harness's own clock (``ts_ns``); the migration trigger is the moment the admin
call returned.
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from itertools import pairwise

from ...harness import switchover
from .observe import Placement, msg_pair


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


def producer_figures(sends: list[dict], errors: list[dict], place: Placement, trigger_ns: int) -> list[ProducerFigures]:
    out = []
    by_producer: dict[str, list[dict]] = defaultdict(list)
    for row in sends:
        by_producer[row["producer"]].append(row)
    err_count, late_errors = defaultdict(int), defaultdict(int)
    for row in errors:
        err_count[row["producer"]] += 1
        late_errors[row["producer"]] += row["ts_ns"] >= trigger_ns
    # a producer whose every send failed has no send_ok row, and is judged all the same
    for name in sorted(set(by_producer) | set(err_count)):
        mine = by_producer.get(name, [])
        where = [place.by_uid[r["uid"]] for r in mine]
        green_ts = [r["ts_ns"] for r, w in zip(mine, where, strict=True) if w == "green"]
        violations = _order_violations(mine, where)
        out.append(ProducerFigures(
            name, len(mine), err_count[name], where.count("blue"), where.count("green"),
            switchover.after(trigger_ns, min(green_ts, default=None)),
            switchover.longest_gap_s(r["ts_ns"] for r in mine), violations, late_errors[name]))
    return out


def _order_violations(mine: list[dict], where: list[str]) -> list[str]:
    """Publish order across the switch (PIP-188 feature 1): storage order is seq order, and
    everything stored on green comes after everything stored on blue."""
    problems = []
    for cluster in ("blue", "green"):
        stored = sorted(((msg_pair(r["msg_id"]), r["seq"]) for r, w in zip(mine, where, strict=True) if w == cluster))
        seqs = [seq for _, seq in stored]
        for a, b in pairwise(seqs):
            if b < a:
                problems.append(f"{cluster} stored seq {b} after seq {a}")
                break
    blue = [r["seq"] for r, w in zip(mine, where, strict=True) if w == "blue"]
    green = [r["seq"] for r, w in zip(mine, where, strict=True) if w == "green"]
    if blue and green and min(green) < max(blue):
        problems.append(f"seq {min(green)} stored on green but seq {max(blue)} on blue")
    return problems


def subscription_figures(subscription: str, receives: list[dict], acks: list[dict], place: Placement,
                         trigger_ns: int) -> SubscriptionFigures:
    def cluster_of(row) -> str:
        stored = place.by_uid.get(row["uid"], "unknown")
        # the same uid stored twice (sent on blue, re-sent on green): the message id tells which copy
        if stored in ("blue", "green") and row["msg_id"] and row["msg_id"] != place.msg_id.get(row["uid"]):
            return "green" if stored == "blue" else "blue"
        return stored

    where = [cluster_of(r) for r in receives]
    first_green_any = min((r["ts_ns"] for r, w in zip(receives, where, strict=True) if w == "green"), default=None)
    redirect = {}
    for r, w in zip(receives, where, strict=True):
        redirect.setdefault(r["client"], None)
        if w == "green" and redirect[r["client"]] is None:
            redirect[r["client"]] = switchover.seconds(trigger_ns, r["ts_ns"])
    dups_after = switchover.duplicates_after(receives, first_green_any)
    blue_uids = {u for u, c in place.by_uid.items() if c == "blue"}
    delivered = {r["uid"] for r, w in zip(receives, where, strict=True) if w == "blue"}
    problems = []
    blue_acks = [a["ts_ns"] for a in acks if place.by_uid.get(a["uid"]) == "blue"]
    if first_green_any is not None:
        last_blue_ack = max(blue_acks, default=None)
        if last_blue_ack is not None and last_blue_ack > first_green_any:
            late = sum(1 for t in blue_acks if t > first_green_any)
            problems.append(f"first delivery from green {(last_blue_ack - first_green_any) / 1e9:.3f} s before the "
                            f"last blue message was acknowledged ({late} blue acks after it)")
        missing_then = blue_uids - {r["uid"] for r, w in zip(receives, where, strict=True) if w == "blue" and r["ts_ns"] <= first_green_any}
        if missing_then:
            problems.append(f"{len(missing_then)} blue messages not yet delivered when green delivered its first")
    return SubscriptionFigures(subscription, len(receives), where.count("blue"), where.count("green"),
                               len(blue_uids - delivered), redirect, dups_after, problems)


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


def source_figures(producer: str, subscription: str, sends: list[dict], receives: list[dict],
                   switch_ns: int | None) -> SourceFigures:
    """``switch_ns``: when the subscription first read from green; a consumer never goes back."""
    acked = {r["seq"] for r in sends if r["producer"] == producer}
    first: list[dict] = []
    seen: set[int] = set()
    for r in sorted(receives, key=lambda r: r["ts_ns"]):
        if r["producer"] == producer and r["seq"] not in seen:
            seen.add(r["seq"])
            first.append(r)
    violations = [f"seq {b['seq']} delivered after seq {a['seq']}" for a, b in pairwise(first) if b["seq"] < a["seq"]][:5]
    via_green = sum(1 for r in first if switch_ns is not None and r["ts_ns"] >= switch_ns)
    return SourceFigures(producer, subscription, len(acked), len(seen), len(acked - seen), via_green, violations)


def first_green_read(receives: list[dict], blue_ledgers: set[int], green_ledgers: set[int]) -> int | None:
    """When a subscription first read from green, whoever produced the message: a ledger only
    green has, or (ledger ids on both clusters) the first delivery whose message id goes back."""
    ordered = sorted((r for r in receives if r["msg_id"]), key=lambda r: r["ts_ns"])
    green_only = green_ledgers - blue_ledgers
    if not blue_ledgers & green_ledgers:
        return next((r["ts_ns"] for r in ordered if msg_pair(r["msg_id"])[0] in green_only), None)
    for a, b in pairwise(ordered):
        if msg_pair(b["msg_id"]) < msg_pair(a["msg_id"]):
            return b["ts_ns"]
    return None


def missed(sends: list[dict], receives: list[dict], place: Placement) -> dict[str, int]:
    """Acknowledged sends a subscription never got, split the way the no-auto-create spec
    variant predicts: stored on green before the subscription's first delivery from green
    (the subscription was created there later, at the latest position), or anything else."""
    got = {r["uid"] for r in receives}
    green_seqs = [r["seq"] for r in receives if place.by_uid.get(r["uid"]) == "green"]
    first_green = min(green_seqs, default=None)
    out = {"green_before_subscription": 0, "other": 0}
    for row in sends:
        if row["uid"] in got:
            continue
        early = place.by_uid.get(row["uid"]) == "green" and (first_green is None or row["seq"] < first_green)
        out["green_before_subscription" if early else "other"] += 1
    return out
