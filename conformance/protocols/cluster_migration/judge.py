"""PIP-188's judges: pure functions from a scenario's outcome (outcome.py) to verdict rows (no
cluster access, no recording; record.py records them through the harness's Recorder).

- the figures of each producer and subscription (redirect time, longest send gap, order and drain
  violations, duplicates after the redirect), computed here from what the run recorded (the capture's
  rows, where each send was stored, the clients the traffic made: ``with_figures``), never by the
  scenario, so a saved run judged again gets today's figures; times are the harness's own clock
  (``ts_ns``), the trigger the moment the admin call returned;
- the checks every scenario shares: ``judge_topics``, ``judge_clients`` (blue's log), ``traces``
  (each pair's projection validated against the spec, trace.py), ``namespace_level`` (R06 from blue's answer);
- each scenario's own checks, and ``judge(outcome)``: every row of the scenario the outcome is of.
Each judge of several checks is check-safe (harness/rows.py ``judges``).
"""
from __future__ import annotations

import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field, replace
from itertools import pairwise

from ...harness import evidence, slog, switchover
from ...harness.itf_traces import attach
from ...harness.rows import Row, charged, judges, not_applicable, row, same_event
from . import trace
from .outcome import (
    AUTO_CREATE,
    CapturedRun,
    NamespaceMigrationAnswer,
    Outcome,
    Placement,
    ProducerFigures,
    SourceFigures,
    SubscriptionFigures,
    TopicFigures,
    TopicOutcome,
    captured,
    msg_pair,
)


def judge(out: Outcome) -> list[Row]:
    """Every row of the scenario ``out.name`` ran (its name is its checks' prefix), the figures
    computed first from what it recorded (``with_figures``). An outcome without Spark's verdict (its
    record step never took it) is refused with the fix, rather than judged in part."""
    _has_verdict(out)
    return judge_figured(with_figures(out))


def judge_figured(figured: Outcome) -> list[Row]:
    """``judge`` of an outcome whose figures ``with_figures`` has just computed in this process: the record
    step computes them once for migration.json and the rows alike (1.2 s over a 23,700-event capture)."""
    _has_verdict(figured)
    return list(SCENARIOS[figured.name](figured, figured.name))


def _has_verdict(out: Outcome) -> None:
    if out.verdict is None:
        raise ValueError(f"the {out.name} outcome in {out.run_dir} has no Spark verdict: its record step "
                         "(record.judged) did not take it; take it with harness/afterwards.spark_verdict(run_dir), "
                         "set it as the outcome's verdict and save the outcome, then judge it")


# --------------------------------------------------------------------- figures


def with_figures(out: Outcome) -> Outcome:
    """``out`` with each topic's producer and subscription figures (``TopicFigures``), computed from
    the raw record alone: the capture's rows (sends and failed sends through blue, each subscription's
    deliveries and acks), where each send was stored (the topic's placement), the trigger, and the
    clients the traffic made (which subscriptions were read through blue, which came after the trigger).
    Figures an outcome already carries are computed again, never trusted."""
    return replace(out, topics={t: topic_figures(out, o) for t, o in out.topics.items()})


def topic_figures(out: Outcome, o: TopicOutcome) -> TopicFigures:
    # producers attached through blue; one writing in another region reaches blue by replication
    sends = _rows(out, o.topic, "send_ok", cluster="blue")
    errors = _rows(out, o.topic, ("send_err", "send_unknown"), cluster="blue")
    producers = producer_figures(sends, errors, o.placement, out.trigger_ns)
    subs = []
    for sub in out.consumed(o.topic):
        figures = subscription_figures(sub, _rows(out, o.topic, "receive", subscription=sub),
                                       _rows(out, o.topic, "ack", subscription=sub), o.placement, out.trigger_ns)
        figures.created_after_trigger = out.late(o.topic, sub)
        subs.append(figures)
    return TopicFigures(o.topic, o.blue, o.green, o.placement, producers, subs)


def producer_figures(sends: list[dict], errors: list[dict], place: Placement, trigger_ns: int) -> list[ProducerFigures]:
    out = []
    by_producer: dict[str, list[dict]] = defaultdict(list)
    for sent in sends:
        by_producer[sent["producer"]].append(sent)
    err_count, late_errors = defaultdict(int), defaultdict(int)
    for failed in errors:
        err_count[failed["producer"]] += 1
        late_errors[failed["producer"]] += failed["ts_ns"] >= trigger_ns
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
    for sent in sends:
        if sent["uid"] in got:
            continue
        early = place.by_uid.get(sent["uid"]) == "green" and (first_green is None or sent["seq"] < first_green)
        out["green_before_subscription" if early else "other"] += 1
    return out


# --------------------------------------------------------------------- the checks every scenario shares


@judges("PIP188-R01", "PIP188-R02", "PIP188-R03", "PIP188-R04", "PIP188-R06", "PIP188-R15")
def judge_topics(out: Outcome, topics: list[str], prefix: str, *, expect_migrated: bool = True):
    """Producer redirect and order, subscription drain, per requirement, for ``topics``.

    ``expect_migrated=False``: topics beside a migrated namespace. They judge only that they
    stayed (PIP188-R06); the migration's own requirements say nothing about a topic that did not
    migrate, and a pass recorded there would be a pass of what was never exercised."""
    spark = out.verdict["anomalies"]
    for topic in topics:
        o = out.topics[topic]
        short = topic.rsplit("/", 1)[-1]
        if o.placement.problems:
            yield row(f"{prefix}/{short}/placement", None, "; ".join(o.placement.problems))
            continue
        if not expect_migrated:
            yield from _judge_stayed(o, f"{prefix}/{short}")
            continue
        for p in o.producers:
            figures = {"redirect_s": p.redirect_s, "longest_gap_s": p.longest_gap_s, "on_blue": p.on_blue,
                       "on_green": p.on_green, "send_errors": p.send_errors,
                       "errors_after_trigger": p.errors_after_trigger}
            # re-sending what blue did not persist: on green, and nothing given up at the switch
            yield row(f"{prefix}/{short}/{p.name}/redirected", p.on_green > 0 and not p.errors_after_trigger,
                f"{p.on_blue} sends stored on blue, {p.on_green} on green, {p.send_errors} failed sends "
                f"({p.errors_after_trigger} from the trigger on"
                + (", sends the client gave up on instead of re-sending them to green)" if p.errors_after_trigger else ")")
                + f"; redirect {p.redirect_s} s after the trigger; longest gap without a successful send {p.longest_gap_s} s"
                + _pending(o.blue, p), **figures)
            yield row(f"{prefix}/{short}/{p.name}/order", _crossed(not p.order_violations, p.on_green),
                "; ".join(p.order_violations) or f"seq order kept: blue stored 1..{p.on_blue}, green the rest after it"
                + ("" if p.on_green else "; nothing was stored on green, so the switch was not crossed"),
                **figures)
        for s in o.subscriptions:
            if s.created_after_trigger:
                continue  # judged by new-subscription-via-blue
            problems = s.drain_violations + ([f"{s.blue_missing} blue messages never delivered"] if s.blue_missing else [])
            # drained before green is a statement about the switch: without a delivery from green
            # the consumer never switched, and its blue-only deliveries show nothing either way
            ok = False if s.drain_violations else (None if not s.from_green else not s.blue_missing)
            yield row(f"{prefix}/{short}/{s.name}/drained-before-green", ok,
                "; ".join(problems)
                or f"{s.from_blue} from blue, then {s.from_green} from green; consumer redirects {s.redirect_s} s after the trigger; "
                   f"{s.duplicates_after_redirect} duplicates after the redirect"
                + ("" if s.from_green else "; nothing was read from green, so the switch was not observed"),
                redirect_s=s.redirect_s, duplicates_after_redirect=s.duplicates_after_redirect)
    if not expect_migrated:
        return  # the capture's anomaly classes are judged once, with the migrated topics
    for classes in (("lost",), ("nonmonotonic",), ("duplicate", "redelivered_after_ack")):
        found = {k: spark[k]["count"] for k in classes if spark.get(k, {}).get("count")}
        ok = None if out.verdict["valid"] is None else not found
        yield row(f"{prefix}/spark/{'+'.join(classes)}", ok,
            f"Spark over {out.verdict['events']} captured events: {found or 'none'} of {', '.join(classes)}",
            examples={k: spark[k]["examples"][:2] for k in found})


def _crossed(ok: bool, on_green: int) -> bool | None:
    """A pass needs the switch to green to have happened; a violation stands regardless."""
    return False if not ok else (True if on_green else None)


def _pending(blue, p: ProducerFigures) -> str:
    """Evidence for a producer that never reached green: blue's writes still pending after the run, which
    keep a topic fenced by a failed one fenced (docs/findings.md F-188-4)."""
    if p.on_green or not blue.pending_adds:
        return ""
    return (f"; blue's managed ledger ({blue.state}) still had {blue.pending_adds} write(s) pending after the run, "
            "neither completed nor failed")


def _judge_stayed(o: TopicOutcome, prefix: str):
    for p in o.producers:
        yield row(f"{prefix}/{p.name}/stayed", p.on_green == 0 and p.on_blue > 0,
            f"namespace not migrated: {p.on_blue} sends stored on blue, {p.on_green} on green",
            on_blue=p.on_blue, on_green=p.on_green, send_errors=p.send_errors)
    for s in o.subscriptions:
        yield row(f"{prefix}/{s.name}/stayed", s.from_green == 0 and s.from_blue > 0,
            f"namespace not migrated: subscription {s.name} read {s.from_blue} from blue, {s.from_green} from green")


@judges("PIP188-R03", "PIP188-R13", "PIP188-R16")
def judge_clients(topics: dict, blue_log: str | None, prefix: str, *, tls: str = ""):
    """The client half of the protocol (PIP188-R16): a producer the broker told to move, moves.

    Blue's log says which producers it redirected (``redirect migrated producer ...
    producerName = X``) and which clients could not be told (``client doesn't support topic
    migration handling <topic>``, protocol < v20). Such a client also shows that blue neither
    refused nor reported it before the migration (PIP188-R13); with clients that can follow,
    R13 is not exercised and stays "not run". ``blue_log``: its lines with ``outcome.LOG_MARKS`` (None:
    the deployment cannot read it); ``tls``: the run's TLS mode, for the evidence (tls_modes.evidence)."""
    if blue_log is None:
        yield row(f"{prefix}/client-follows-redirect", None, "blue's broker log is not available on this deployment")
        return
    unbuilt = command_not_built(blue_log)
    if unbuilt:
        # the broker, not the client: nothing reached the client to follow (docs/findings.md F-188-13)
        yield row(f"{prefix}/migrated-command-sent", False, unbuilt)
    said = blue_said(blue_log)
    named = False
    for topic, o in topics.items():
        if o.placement.problems:
            continue  # where the sends were stored is unknown: judge_topics recorded it
        for p in o.producers:
            told = p.name in said.redirected
            unsupported = topic in said.not_told
            if not (told or unsupported):
                continue
            named = True
            told_ok = p.on_green > 0 or (None if unbuilt and not unsupported else False)
            yield row(f"{prefix}/{topic.rsplit('/', 1)[-1]}/{p.name}/client-follows-redirect", told_ok,
                f"blue {'could not tell the client (protocol < v20)' if unsupported else 'redirected'} {p.name}; "
                f"it then stored {p.on_green} sends on green and failed {p.send_errors}" + tls
                + ("; blue failed to build the Migrated-Topic command, so the client was never told: "
                   "the client's part is not judged" if told_ok is None else ""))
            if unsupported:
                # seen only when the migration began: nothing refused or reported it before (R13)
                yield row(f"{prefix}/{topic.rsplit('/', 1)[-1]}/{p.name}/old-client-refused-before-migration", False, f"blue let {p.name}, which cannot follow a redirect (protocol < v20), publish "
                    f"{p.on_blue} messages before the migration and only logged it once the topic had migrated; "
                    "Pulsar has no clientMinVersionAllowed (docs/findings.md F-188-7)")
    anonymous = said.nameless
    if anonymous and not named:
        # blue redirected producers and its log does not say which: no verdict on the clients, rather than none
        yield row(f"{prefix}/client-follows-redirect", None,
            f"blue logged {anonymous} producer redirect(s) without the producer's name, so which client was told is not "
            "known (Pulsar 5 logs it as slog attributes, which a log pattern without %X drops)")


_REDIRECT = "redirect migrated producer"
_NOT_TOLD = "client doesn't support topic migration handling"
# 3.x and 4.x name them in the message: "producerName = X," and "... handling PersistentTopic{topic=T}"
_NAME_IN_MESSAGE = re.compile(r"producerName = ([^,\s]+),")
_TOPIC_IN_MESSAGE = re.compile(re.escape(_NOT_TOLD) + r" PersistentTopic\{topic=([^}\s]+)\}")
_PERSISTENT_TOPIC = re.compile(r"^PersistentTopic\{topic=(.*)\}$")


@dataclass(frozen=True)
class BlueSaid:
    """What blue's log says of the clients, read once: the producers it redirected, the topics whose client it
    could not tell (protocol < v20), and how many redirects it logged without naming the producer."""

    redirected: frozenset[str]
    not_told: frozenset[str]
    nameless: int


def blue_said(blue_log: str) -> BlueSaid:
    """Each line read once, in the message's words (3.x, 4.x) or the slog attributes after it (5.x; printed by
    fixtures/deploy/brokerconf.py's pattern, read by harness/slog.py)."""
    redirected, not_told, nameless = set(), set(), 0
    for line in blue_log.splitlines():
        redirected.update(_NAME_IN_MESSAGE.findall(line))
        not_told.update(_TOPIC_IN_MESSAGE.findall(line))
        if _REDIRECT not in line and _NOT_TOLD not in line:
            continue
        attributes = slog.attributes(line)
        if _REDIRECT in line:
            name = attributes.get("producerName")
            redirected.update([name] if name else [])
            nameless += not name and not _NAME_IN_MESSAGE.search(line)
        if _NOT_TOLD in line and attributes.get("topic"):
            topic = _PERSISTENT_TOPIC.match(attributes["topic"])
            not_told.add(topic.group(1) if topic else attributes["topic"])
    return BlueSaid(frozenset(redirected), frozenset(not_told), nameless)


# Pulsar 3.0.x-3.2.x: Commands.newTopicMigrated sets the TLS URL unconditionally, and a target
# without one throws while the command is built (lightproto refuses a null string).
_UNBUILT = "CommandTopicMigrated.setBrokerServiceUrl"


def command_not_built(log: str) -> str:
    """What blue's log says about Migrated-Topic commands it failed to build ("" when none)."""
    failures = log.count(_UNBUILT)
    if not failures:
        return ""
    tls = "Tls" if f"{_UNBUILT}Tls(" in log else ""
    return (f"blue threw {failures} NullPointerException(s) building CommandTopicMigrated "
            f"(at CommandTopicMigrated.setBrokerServiceUrl{tls}): the migration target has no "
            f"{'TLS ' if tls else ''}broker URL and this release sets it unconditionally, so no client was told "
            "where to go (docs/findings.md F-188-13)")


@judges("PIP188-R01", "PIP188-R02", "PIP188-R04", "PIP188-R09", "PIP188-R15")
def traces(out: Outcome, prefix: str, *, latest: frozenset[str] = frozenset(),
           auto_create: bool = True, topics: list[str] | None = None):
    """Trace validation (trace.py): each (producer, subscription) of the run,
    projected onto the cluster-migration spec, must be one of its behaviours.

    The spec's no-auto-create variant models a subscription created on green when its consumer
    arrives, at the latest position; a subscription whose consumer starts at Earliest is created
    from green's start, which is what the auto-create variant models. Pairs the spec has nothing
    to say about (several Shared consumers, subscriptions created after the trigger) are left out.
    ``topics``: the migrated topics (default: all of the run); a topic that stayed is no trace of a
    migration. A pair whose subscription read nothing from green is a prefix of every behaviour,
    so it is unknown unless it already broke the spec.
    """
    for variant in ("auto-create", "no-auto-create"):
        for r in trace_results(captured(out), variant=variant):
            subscription = r["check"].split("/")[-2]
            wanted = "auto-create" if auto_create or subscription not in latest else "no-auto-create"
            if topics is not None and r["topic"] not in topics:
                continue
            if r["modelled"] and variant == wanted:
                ok = r["ok"]
                read = {x.name: x.from_green for x in out.topics[r["topic"]].subscriptions} if r["topic"] in out.topics else {}
                crossed = read.get(subscription, 0) > 0
                evidence = r["evidence"] + ("" if crossed or ok is False else
                                            "; nothing was read from green, so the switch was not observed")
                yield attach(row(f"{prefix}/{r['check']}", ok if crossed or ok is False else None, evidence,
                                 requirements=r["requirements"], **r["figures"]), *r["traces"])


def resources_on_green(prefix: str, auto: dict, missing: dict, lost: int, stranded: list[str]) -> Row:
    """``<scenario>/resources-on-green`` (R09, "with auto resource creation"): the subscriptions exist on green
    and nothing was lost for them. ``auto``: blue's automatic resource creation as observe read it; a release
    without the setting (before 3.2.0) is not applicable, a blue running with it off is not the state R09
    speaks of (unknown); an outcome recorded before blue was asked (no ``present``) is judged as it was."""
    check = f"{prefix}/resources-on-green"
    if auto.get("present") is False:
        return not_applicable(check, f"the release has no {AUTO_CREATE} (blue's runtime configuration "
                              "does not list it): blue creates nothing on green before the migration")
    evidence = f"subscriptions missing on green: {missing}; lost messages: {lost}" + "".join(f"; {s}" for s in stranded)
    if auto.get("present") and str(auto.get("value")).lower() != "true":
        return row(check, None, f"blue runs with {AUTO_CREATE}={auto.get('value')}, not the automatic "
                   f"resource creation R09 is about; {evidence}")
    return row(check, not any(missing.values()) and lost == 0 and not stranded, evidence)


def not_created(blue, green) -> bool | None:
    """Blue has the topic: fail. Blue says it does not (404) and green has the producer's writes:
    pass. Blue answers something else (3.2.0: HTTP 500 "already migrated") or the producer never
    reached green: the state the requirement is about was not observed, unknown."""
    if blue.error is None:
        return False
    if not blue.error.startswith("HTTP 404") or not green.entries:
        return None
    return True


# --------------------------------------------------------------------- trace validation, per pair


@dataclass
class PairVerdict:
    """A (topic, producer, subscription) verdict; a Key_Shared one combines its keys'."""

    topic: str
    producer: str
    subscription: str
    ok: bool | None
    modelled: bool
    evidence: str
    parts: list[trace.TraceVerdict] = field(default_factory=list)

    @property
    def requirements(self) -> list[str]:
        failed = [q for part in self.parts if part.ok is False for q in part.requirements]
        return sorted(set(failed)) if failed else list(trace.REQUIREMENTS)

    @property
    def check(self) -> str:
        return f"{self.topic.rsplit('/', 1)[-1]}/{self.producer}/{self.subscription}/trace"

    def figures(self) -> dict:
        total: Counter = Counter()
        for part in self.parts:
            total.update(part.figures())
        return dict(total)

    def to_dict(self) -> dict:
        return {"check": self.check, "ok": self.ok, "evidence": self.evidence, "modelled": self.modelled,
                "requirements": self.requirements,
                "topic": self.topic, "producer": self.producer, "subscription": self.subscription,
                "figures": self.figures(), "traces": self.witnesses()}

    def witnesses(self) -> list:
        """The spec behaviours its parts validated (itf_traces.LiveTrace, in memory), those that left the
        spec first: a Key_Shared pair has one per key, and the recorder saves the first few."""
        return [p.witness for p in sorted(self.parts, key=lambda p: p.ok is not False) if p.witness is not None]


def judge_pair(run: CapturedRun, topic: str, producer: str, subscription: str, *, variant: str = "auto-create",
               blue: int = 6, green: int = 6) -> PairVerdict:
    def outside(why: str) -> PairVerdict:
        return PairVerdict(topic, producer, subscription, None, False, f"{producer} -> {subscription}: not modelled: {why}")

    if (topic, subscription) in run.late_subs:
        return outside("the subscription was created after the trigger; the spec's subscription exists from the start")
    kind = run.sub_types.get((topic, subscription), "")
    clients = {r["client"] for r in run.receives(topic, subscription)}
    if kind in trace.UNORDERED_TYPES and len(clients) > 1:
        return outside(f"a {kind} subscription with {len(clients)} consumers has no delivery order; "
                       "the spec's subscription is one in-order reader")
    if kind in trace.PER_KEY_TYPES:
        keys = run.history.keys(topic, producer)
        parts = [trace.validate_pair(run, topic, producer, subscription, variant=variant, blue=blue, green=green, key=k)
                 for k in keys]
    else:
        parts = [trace.validate_pair(run, topic, producer, subscription, variant=variant, blue=blue, green=green)]
    if not parts:
        return outside("no acknowledged sends")
    failed = [p for p in parts if p.ok is False]
    unknown = [p for p in parts if p.ok is None]
    ok = False if failed else (None if unknown else True)
    if len(parts) == 1:
        evidence = parts[0].evidence()
    else:
        shown = failed[:1] or unknown[:1] or parts[:1]
        total = sum(p.messages for p in parts)
        evidence = (f"{len(parts)} keys validated apart ({kind}: order per key), {total} messages; "
                    f"{len(failed)} failed, {len(unknown)} undecided; e.g. {shown[0].evidence()}")
    return PairVerdict(topic, producer, subscription, ok, True, evidence, parts)


def validate_run(run: CapturedRun, *, variant: str = "auto-create", blue: int = 6, green: int = 6) -> list[PairVerdict]:
    out = []
    for topic in run.topics:
        for producer, subscription in run.history.pairs(topic):
            out.append(judge_pair(run, topic, producer, subscription, variant=variant, blue=blue, green=green))
    return out


def trace_results(run: CapturedRun, *, variant: str = "auto-create", blue: int = 6, green: int = 6) -> list[dict]:
    """One result per (topic, producer, subscription) of a run: ``check``
    (``<topic>/<producer>/<subscription>/trace``), ``ok`` (True, False, None), ``evidence``,
    ``requirements`` (R01, R02, R04 when it passes; when it fails, those the failed step
    concerns, e.g. R15 for a message delivered again), ``modelled`` (False where the spec has
    nothing to say: record those as notes, not verdicts), and ``figures``. ``variant``: auto-create when blue ran with
    clusterMigrationAutoResourceCreation, else no-auto-create."""
    return [v.to_dict() for v in validate_run(run, variant=variant, blue=blue, green=green)]


# --------------------------------------------------------------------- R06 from blue's answer


def namespace_level(scenario: str, answer: NamespaceMigrationAnswer) -> Row:
    """``<scenario>/namespace-level-migration``: not applicable where the release has no such
    endpoint, else pass or fail on blue's answer. A 404 that names the namespace is the suite's
    own mistake (it asked about a namespace it had not created), never the release's."""
    if answer.lacks:
        return not_applicable(f"{scenario}/namespace-level-migration", answer.describe())
    if answer.status == 404:
        raise RuntimeError(f"the suite asked blue about a namespace blue does not have: {answer.describe()}")
    return row(f"{scenario}/namespace-level-migration", answer.ok, answer.describe(), case=answer.case,
               status=answer.status)


# --------------------------------------------------------------------- the scenarios


def _rows(out: Outcome, topic: str, kind, **where) -> list[dict]:
    return evidence.rows(out.columns, kind=kind, topic=topic, **where)


def namespace_migration(out: Outcome, prefix: str):
    """The moving namespace redirected under traffic, the one beside it not (facts: moving, staying)."""
    moving, staying = out.facts["moving"], out.facts["staying"]
    if "fresh" in out.answers:  # blue's answer on a namespace with no topic: no client's (the Java scenario leaves it)
        yield namespace_level("namespace-fresh", out.answers["fresh"])
    yield namespace_level(prefix, out.answers["loaded"])
    if not out.answers["loaded"].ok:  # nothing was migrated: the topics' requirements are not judged here
        return
    yield from judge_topics(out, [moving], prefix)
    yield from judge_topics(out, [staying], prefix, expect_migrated=False)
    yield from traces(out, prefix, topics=[moving])
    blue_policy, green_policy = out.admin["blue:policies"], out.admin["green:policies"]
    yield row(f"{prefix}/state-local", blue_policy.get("migrated") is True and green_policy.get("migrated") is False,
              f"blue's policies of {out.facts['namespace']}: migrated={blue_policy.get('migrated')}; green's: "
              f"migrated={green_policy.get('migrated')}")
    yield from judge_clients({moving: out.topics[moving]}, out.blue_log, prefix, tls=out.facts.get("tls", ""))


def cluster_level(out: Outcome, prefix: str):
    """Cluster-level migration under traffic, and the clients made through blue after it (facts:
    exclusive, fresh, namespace; states fresh@blue, fresh@green; admin answers)."""
    yield from judge_topics(out, list(out.topics), prefix)
    yield from traces(out, prefix)
    exclusive, fresh = out.facts["exclusive"], out.facts["fresh"]
    o = out.topics[exclusive]
    # new producer and subscription through blue after the trigger: straight to green
    new = next((p for p in o.producers if p.name == "p-new"), None)
    late = next((s for s in o.subscriptions if s.name == "late"), None)
    # PIP188-R05 is about a *migrated* topic, and each topic is migrated asynchronously after the cluster is
    # marked (issue 47, F-188-16): judged only where the new clients came once blue had migrated the topic
    reached, when = new_clients_reached(out.facts.get("new_clients"), exclusive)
    producer_said = (f"p-new: {new.on_green if new else 0} sends stored on green, {new.on_blue if new else 0} on blue"
                     + out.refusal("p-new"))
    yield row(f"{prefix}/new-producer-via-blue", bool(new and new.sent_ok and new.on_blue == 0) if reached else None,
              f"{when}; {producer_said}")
    subscription_said = (f"subscription 'late' on green: {'late' in o.green.subscriptions}, on blue: "
                         f"{'late' in o.blue.subscriptions}; {late.from_blue if late else 0} deliveries from blue, "
                         f"{late.from_green if late else 0} from green" + out.refusal("c-late"))
    yield row(f"{prefix}/new-subscription-via-blue",
              bool(late and "late" in o.green.subscriptions and "late" not in o.blue.subscriptions and late.from_blue == 0)
              if reached else None, f"{when}; {subscription_said}")
    yield row(f"{prefix}/blue-refuses-writes", all(t.blue.state == "Terminated" and not t.blue.publishers
                                                   for t in out.topics.values()),
              "; ".join(f"{t.topic.rsplit('/', 1)[-1]}: blue ledger {t.blue.state}, publishers {t.blue.publishers}"
                        for t in out.topics.values()))
    # a topic first used after the migration is never created in blue
    fresh_blue, fresh_green = out.states["fresh@blue"], out.states["fresh@green"]
    yield row(f"{prefix}/no-new-topic-in-blue", not_created(fresh_blue, fresh_green),
              f"{fresh} on blue: {fresh_blue.error or fresh_blue.state}; on green: {fresh_green.entries} entries"
              + out.refusal("p-fresh"))
    # automatic resource creation: the subscriptions exist on green and nothing was lost for them
    lost = out.verdict["anomalies"].get("lost", {}).get("count", 0)
    missing = {t.topic.rsplit("/", 1)[-1]: sorted({"fast", "slow"} - set(t.green.subscriptions)) for t in out.topics.values()}
    stranded = stranded_readers(out)
    yield resources_on_green(prefix, out.admin.get("blue:auto-create") or {}, missing, lost, stranded)
    # monitoring: a migration flag in topic stats (seed feature 8)
    keys = o.blue.stats_keys
    yield row(f"{prefix}/stats-flag", any("migrat" in k.lower() for k in keys),
              f"topic stats fields with 'migrat': {[k for k in keys if 'migrat' in k.lower()] or 'none'}; "
              f"internal stats show state={o.blue.state}, properties.migrated={o.blue.migrated_property}")
    # the migration state is blue's alone
    on_blue, on_green, green_ns = out.admin["blue:migration"], out.admin["green:migration"], out.admin["green:namespace"]
    # a blue that will not say its own state (Pulsar 3.0.7 answers GET .../migrate with HTTP 405) shows nothing
    local = on_blue.get("migrated") is True and not on_green.get("migrated") and green_ns.get("migrated") is False
    yield row(f"{prefix}/state-local", None if "error" in on_blue else local,
              f"blue says migrated={on_blue.get('migrated')}"
              + (f" (HTTP {on_blue['error']}: blue does not say its migration state)" if "error" in on_blue else "")
              + f"; green's view of blue: {on_green}; green's namespace migrated={green_ns.get('migrated')}")
    yield from judge_clients(out.topics, out.blue_log, prefix, tls=out.facts.get("tls", ""))


def new_clients_reached(waited: dict | None, topic: str) -> tuple[bool, str]:
    """Whether the clients made through blue after the trigger came once blue had migrated ``topic``
    (levels.new_clients_via_blue's ``observed``), and the evidence that says so. A run recorded before the
    suite waited for it (no record) is judged as it was, and says so."""
    short = topic.rsplit("/", 1)[-1]
    if waited is None:
        return True, ("created 2 s after the cluster's trigger (a run recorded before the suite waited for the "
                      "topic's migration)")
    if waited.get("topic_migrated"):
        return True, f"created once blue had migrated {short} ({waited['waited_s']} s after they were due)"
    return False, (f"not judged: blue had not migrated {short} within {waited['bound_s']:.0f} s, and PIP188-R05 is "
                   "about a migrated topic; what blue accepted before then is an observation of the window between "
                   "the cluster's migration and the topic's (docs/findings.md F-188-16), not R05's failure")


def stranded_readers(out: Outcome) -> list[str]:
    """Readers (subscription type ``Reader``: a non-durable subscription) that read nothing from green
    because green refused them for holding their subscription as a durable one (facts ``green_refused``,
    observe.green_refusals): blue's automatic resource creation made a resource that shuts a client out,
    so everything published on green is lost for it (PIP188-R09). Without green's refusal in evidence a
    reader that read nothing from green proves nothing here (its drained-before-green is unknown)."""
    found = []
    refused = out.facts.get("green_refused") or {}
    for (topic, sub), kind in sorted(out.sub_types.items()):
        o = out.topics.get(topic)
        figures = next((s for s in o.subscriptions if s.name == sub), None) if o else None
        said = refused.get(f"{topic} {sub}")
        if kind != "Reader" or figures is None or figures.from_green or not said or sub not in o.green.subscriptions:
            continue
        found.append(f"reader {sub!r} of {topic.rsplit('/', 1)[-1]} (a non-durable subscription) read {figures.from_blue} "
                     f"from blue and nothing from green: green holds {sub!r} as a durable subscription, made by blue's "
                     f"automatic resource creation, and refused the reader {said['count']} times "
                     f"({DURABILITY_REFUSAL_TEXT})")
    return found


DURABILITY_REFUSAL_TEXT = '"Durable subscription with the same name already exists"'


def no_auto_create(out: Outcome, prefix: str):
    """Namespace-level migration without automatic resource creation against the spec's no-auto-create
    variant (facts: topic, latest: the Latest subscriptions, subscriptions)."""
    if not out.answers["loaded"].ok:  # nothing was migrated: R06 fails on blue's answer, the rest is not judged here
        yield namespace_level(prefix, out.answers["loaded"])
        return
    topic, latest, subs = out.facts["topic"], out.facts["latest"], out.facts["subscriptions"]
    yield from judge_topics(out, [topic], prefix)
    yield from traces(out, prefix, latest=frozenset(latest), auto_create=False)
    o = out.topics[topic]
    sends = _rows(out, topic, "send_ok", cluster="blue")
    lost = {s: missed(sends, _rows(out, topic, "receive", subscription=s), o.placement) for s in subs}
    # the spec's no-auto-create variant: only a subscription created on green at the latest
    # position can miss messages, and only those green stored before it was created
    explained = all(m["other"] == 0 for m in lost.values()) and not any(
        sum(lost[s].values()) for s in subs if s not in latest)
    confirmed = lost["latest-slow"]["green_before_subscription"] > 0
    yield row(f"{prefix}/spec-prediction", None if not o.producers or not o.producers[0].on_green
              else explained and confirmed,
              f"acknowledged sends never delivered, per subscription: {lost}; the no-auto-create spec variant predicts "
              f"losses only for Latest subscriptions, only of what green stored before they reached it "
              f"({'confirmed' if confirmed else 'the backlogged Latest subscription lost nothing: not confirmed'}); "
              f"green's subscriptions at the end: {sorted(o.green.subscriptions)}",
              missed=lost)
    yield from judge_clients(out.topics, out.blue_log, prefix, tls=out.facts.get("tls", ""))


def blue_restart(out: Outcome, prefix: str):
    """Traffic through blue restarted after the migration (facts: topic, namespace, restart_s;
    states before, after; admin answers)."""
    yield from traces(out, prefix)
    topic, ns, restart_s = out.facts["topic"], out.facts["namespace"], out.facts["restart_s"]
    before, after = out.states["before"], out.states["after"]
    o = out.topics[topic]
    p = o.producers[0] if o.producers else None
    producer = next(h.name for h in out.handles if h.kind == "producer")
    yield row(f"{prefix}/producer-to-green", bool(p and p.on_green and not p.on_blue),
              f"after blue's restart ({restart_s} s) a producer through blue stored {p.on_green if p else 0} sends on "
              f"green, {p.on_blue if p else 0} on blue, {p.send_errors if p else 0} failed; blue's entries "
              f"{before.entries} -> {after.entries if after.error is None else after.error}" + out.refusal(producer))
    for s in o.subscriptions:
        consumers = [h.name for h in out.handles if h.subscription == s.name]
        yield row(f"{prefix}/{s.name}/consumer-to-green", s.from_green > 0 and s.from_blue == 0,
                  f"{s.from_green} deliveries from green, {s.from_blue} from blue, redirect {s.redirect_s} s"
                  + "".join(out.refusal(c) for c in consumers))
    blue_ns, green_ns = out.admin["blue:namespace"], out.admin["green:namespace"]
    yield row(f"{prefix}/state-survives", blue_ns.get("migrated") is True and green_ns.get("migrated") is False
              and after.migrated_property in (None, "true") and (after.error is not None or after.state == "Terminated"),
              f"after the restart: blue's {ns} migrated={blue_ns.get('migrated')}, green's migrated="
              f"{green_ns.get('migrated')}; blue's topic: "
              f"{after.error or f'state {after.state}, properties.migrated={after.migrated_property}'}")
    yield row(f"{prefix}/not-recreated", after.error is not None or after.entries == before.entries,
              f"blue's {topic}: {before.entries} entries before the restart, "
              f"{after.error or f'{after.entries} after the traffic through blue'}")


def stranded(out: Outcome, prefix: str):
    """A parked subscription's backlog on blue, drained through blue (restarted or not) before green
    (facts: topic, restart, backlog, restart_s)."""
    if not out.answers["loaded"].ok:
        yield namespace_level(prefix, out.answers["loaded"])
        return
    topic, restart = out.facts["topic"], out.facts["restart"]
    shared = judge_topics(out, [topic], prefix) + traces(out, prefix)
    o = out.topics[topic]
    after = [r for r in _rows(out, topic, "receive", subscription="parked") if r["client"] == "c-parked-again"]
    # where each message was stored decides where it came from: blue's messages are never copied
    # to green, and ledger ids alone are ambiguous (both clusters number theirs from 0)
    from_blue = sum(1 for r in after if o.placement.by_uid.get(r["uid"]) == "blue")
    parked = next((s for s in o.subscriptions if s.name == "parked"), None)
    backlog = out.facts.get("backlog")
    when = f"when blue restarted ({out.facts.get('restart_s')} s)" if restart else "when its consumer closed"
    # does the spec's model of Pulsar's restart (F-188-11) explain what happened? (without a
    # restart it trivially would: the variant only adds the restart)
    explained = None if not restart else next(
        (r for r in trace_results(captured(out), variant="restart-strands")
         if r["modelled"] and r["check"].endswith("/parked/trace")), None)
    drained = row(f"{prefix}/parked/backlog-drained",
              None if not backlog or parked is None else from_blue > 0 and parked.blue_missing == 0,
              f"'parked' had {backlog} messages of backlog on blue {when}; "
              f"through {'the restarted ' if restart else ''}blue its new consumer then got {from_blue} from blue and "
              f"{len(after) - from_blue} from green; {parked.blue_missing if parked else '?'} of blue's messages never "
              "reached it" + out.refusal("c-parked-again")
              + ("" if explained is None else "; the trace is " + ("" if explained["ok"] else "NOT ")
                 + "a behaviour of the spec's restart-strands variant (Pulsar 4.2.4's restart, F-188-11)"),
              backlog=backlog, from_blue_after_restart=from_blue)
    if drained.ok is False and parked is not None:
        one_event_for_stranded_backlog(out, prefix, drained, shared, parked.blue_missing, when)
    yield from shared
    yield drained


def one_event_for_stranded_backlog(out: Outcome, prefix: str, drained: Row, shared: list[Row], missing: int,
                                   when: str) -> None:
    """One event, one requirement (issue 47): subscription ``parked``'s backlog on blue never delivered
    (F-188-11 after blue's restart) is charged to ``parked/backlog-drained`` (PIP188-R02 and R04, whose texts it
    breaks: blue's messages before green's, the subscription redirected only once drained). The drain and
    trace rows of ``parked`` show the same event and break the same texts: their failures stand, named with it.
    Spark's lost count (PIP188-R03, producers re-sending what blue did not persist) counts those very messages
    where each lost one is parked's: blue persisted them, so R03's text is not what they break; that row is
    unknown for R03, never its failure. A lost message of another subscription keeps R03's fail."""
    event = f"{prefix}/parked/backlog-left-on-blue"
    home = f"{prefix}/parked/backlog-drained (PIP188-R02, PIP188-R04)"
    charged(drained, event)
    why = f"'parked''s backlog on blue {when}, {missing} messages blue stored, never delivered to it"
    for r in shared:
        segments = r.check.split("/")
        if r.ok is False and "parked" in segments[:-1] and segments[-1] in ("drained-before-green", "trace"):
            same_event(r, event, home, why, broken=True)
    lost = next((r for r in shared if r.check == f"{prefix}/spark/lost"), None)
    spark = (out.verdict.get("anomalies") or {}).get("lost") or {}
    examples = spark.get("examples") or []
    only_parked = (spark.get("count") == missing and bool(examples)
                   and all(e.get("subscription") == "parked" for e in examples))
    if lost is not None and lost.ok is False and only_parked:
        same_event(lost, event, home, f"every one of Spark's {missing} lost messages is {why}: a consumer-side loss, "
                   "not a send PIP188-R03's producers failed to re-send", broken=False)


def geo_migration(out: Outcome, prefix: str):
    """Cluster-level migration of a namespace replicated with a remote region stopped around the
    trigger (facts: topic, moments: stop and resume)."""
    topic, moments = out.facts["topic"], out.facts.get("moments", {})
    yield from judge_topics(out, [topic], prefix)
    yield from traces(out, prefix)
    o = out.topics[topic]
    # feature 4: blue's producer stays until the remote region has everything blue stored
    p = next((p for p in o.producers if p.name != "p-remote"), None)
    blue_uids = {u for u, c in o.placement.by_uid.items() if c == "blue"}
    at_remote = {r["uid"] for r in _rows(out, topic, "receive", subscription="remote-reader")}
    first_green_ns = out.trigger_ns + int(p.redirect_s * 1e9) if p and p.redirect_s is not None else None
    held = first_green_ns is not None and "resume" in moments and first_green_ns > moments["resume"]
    yield row(f"{prefix}/producer-held-for-replication", None if first_green_ns is None else held and blue_uids <= at_remote,
              f"blue's producer first stored on green {p.redirect_s if p else None} s after the trigger, "
              + (f"{(first_green_ns - moments['resume']) / 1e9:+.2f} s from the remote region's resumption; "
                 if first_green_ns is not None and "resume" in moments else "")
              + f"the remote region got {len(blue_uids & at_remote)} of the {len(blue_uids)} messages blue stored",
              hold_s=p.redirect_s if p else None, send_errors=p.send_errors if p else None)
    # feature 3: the remote region's producer, as blue's subscriptions see it, in order across the switch
    remote_sends = _rows(out, topic, "send_ok", cluster="remote")
    for s in o.subscriptions:
        receives = _rows(out, topic, "receive", subscription=s.name)
        f = source_figures("p-remote", s.name, remote_sends, receives,
                           first_green_read(receives, o.blue.ledgers, o.green.ledgers))
        ok = None if not f.via_green else (not f.order_violations and f.missing == 0)
        yield row(f"{prefix}/{s.name}/incoming-replication-order", ok,
                  "; ".join(f.order_violations) or
                  f"{f.delivered} of the {f.acked} messages the remote producer stored reached subscription {s.name} "
                  f"({f.via_green} through green after the switch), in the remote producer's order"
                  + ("" if f.via_green else "; none came through green, so the switch was not crossed"),
                  missing=f.missing, via_green=f.via_green)
    yield from judge_clients(out.topics, out.blue_log, prefix, tls=out.facts.get("tls", ""))


# scenario name (its checks' prefix) -> its judge
# (*-java: the same scenarios through the Java client, test_java_cluster_migration.py)
SCENARIOS = {"namespace-migration": namespace_migration, "cluster-migration": cluster_level,
             "namespace-migration-java": namespace_migration, "cluster-migration-java": cluster_level,
             "no-auto-create": no_auto_create, "blue-restart": blue_restart, "stranded": stranded,
             "stranded-restart": stranded, "geo-migration": geo_migration,
             # the schedules of `explore --live cluster-migration` (explore.py): each migrates a namespace of its
             # own beside one that stays, judged as the namespace-level scenario is, under a name of their own so
             # that their rows are never taken for that scenario's
             "namespace-explore": namespace_migration}
