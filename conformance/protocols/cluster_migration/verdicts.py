"""Verdicts of a migration scenario, per requirement, recorded through the harness's ``Recorder``:
``judge_topics`` and ``judge_clients`` are the checks every PIP-188 scenario shares. Each judge is
check-safe (``recorder.check_safe``): one that raises leaves its requirements unknown, with the
error as evidence, and the scenario goes on to its later checks.
"""
from __future__ import annotations

from ...harness.recorder import Recorder, check_safe
from . import tls_modes, trace


def blue_log(deployment) -> str:
    return deployment.broker_log("blue")


@check_safe("PIP188-R01", "PIP188-R02", "PIP188-R03", "PIP188-R04", "PIP188-R06", "PIP188-R15")
def judge_topics(rec: Recorder, out, topics: list[str], prefix: str, *, expect_migrated: bool = True) -> None:
    """Producer redirect and order, subscription drain, per requirement, for ``topics``.

    ``expect_migrated=False``: topics beside a migrated namespace. They judge only that they
    stayed (PIP188-R06); the migration's own requirements say nothing about a topic that did not
    migrate, and a pass recorded there would be a pass of what was never exercised."""
    spark = out.verdict["anomalies"]
    for topic in topics:
        o = out.topics[topic]
        short = topic.rsplit("/", 1)[-1]
        if o.placement.problems:
            rec(f"{prefix}/{short}/placement", None, "; ".join(o.placement.problems))
            continue
        if not expect_migrated:
            _judge_stayed(rec, o, f"{prefix}/{short}")
            continue
        for p in o.producers:
            figures = {"redirect_s": p.redirect_s, "longest_gap_s": p.longest_gap_s, "on_blue": p.on_blue,
                       "on_green": p.on_green, "send_errors": p.send_errors,
                       "errors_after_trigger": p.errors_after_trigger}
            # re-sending what blue did not persist: on green, and nothing given up at the switch
            rec(f"{prefix}/{short}/{p.name}/redirected", p.on_green > 0 and not p.errors_after_trigger,
                f"{p.on_blue} sends stored on blue, {p.on_green} on green, {p.send_errors} failed sends "
                f"({p.errors_after_trigger} from the trigger on"
                + (", sends the client gave up on instead of re-sending them to green)" if p.errors_after_trigger else ")")
                + f"; redirect {p.redirect_s} s after the trigger; longest gap without a successful send {p.longest_gap_s} s",
                **figures)
            rec(f"{prefix}/{short}/{p.name}/order", _crossed(not p.order_violations, p.on_green),
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
            rec(f"{prefix}/{short}/{s.name}/drained-before-green", ok,
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
        rec(f"{prefix}/spark/{'+'.join(classes)}", ok,
            f"Spark over {out.verdict['events']} captured events: {found or 'none'} of {', '.join(classes)}",
            examples={k: spark[k]["examples"][:2] for k in found})


def _crossed(ok: bool, on_green: int) -> bool | None:
    """A pass needs the switch to green to have happened; a violation stands regardless."""
    return False if not ok else (True if on_green else None)


def _judge_stayed(rec: Recorder, o, prefix: str) -> None:
    for p in o.producers:
        rec(f"{prefix}/{p.name}/stayed", p.on_green == 0 and p.on_blue > 0,
            f"namespace not migrated: {p.on_blue} sends stored on blue, {p.on_green} on green",
            on_blue=p.on_blue, on_green=p.on_green, send_errors=p.send_errors)
    for s in o.subscriptions:
        rec(f"{prefix}/{s.name}/stayed", s.from_green == 0 and s.from_blue > 0,
            f"namespace not migrated: subscription {s.name} read {s.from_blue} from blue, {s.from_green} from green")


@check_safe("PIP188-R03", "PIP188-R13", "PIP188-R16")
def judge_clients(rec: Recorder, topics: dict, blue_log: str, prefix: str) -> None:
    """The client half of the protocol (PIP188-R16): a producer the broker told to move, moves.

    Blue's log says which producers it redirected (``redirect migrated producer ...
    producerName = X``) and which clients could not be told (``client doesn't support topic
    migration handling <topic>``, protocol < v20). Such a client also shows that blue neither
    refused nor reported it before the migration (PIP188-R13); with clients that can follow,
    R13 is not exercised and stays "not run"."""
    if not blue_log:
        rec(f"{prefix}/client-follows-redirect", None, "blue's broker log is not available on this deployment")
        return
    unbuilt = command_not_built(blue_log)
    if unbuilt:
        # the broker, not the client: nothing reached the client to follow (docs/findings.md F-188-13)
        rec(f"{prefix}/migrated-command-sent", False, unbuilt)
    for topic, o in topics.items():
        if o.placement.problems:
            continue  # where the sends were stored is unknown: judge_topics recorded it
        for p in o.producers:
            told = f"producerName = {p.name}," in blue_log
            unsupported = f"client doesn't support topic migration handling PersistentTopic{{topic={topic}}}" in blue_log
            if not (told or unsupported):
                continue
            told_ok = p.on_green > 0 or (None if unbuilt and not unsupported else False)
            rec(f"{prefix}/{topic.rsplit('/', 1)[-1]}/{p.name}/client-follows-redirect", told_ok,
                f"blue {'could not tell the client (protocol < v20)' if unsupported else 'redirected'} {p.name}; "
                f"it then stored {p.on_green} sends on green and failed {p.send_errors}" + tls_modes.evidence()
                + ("; blue failed to build the Migrated-Topic command, so the client was never told: "
                   "the client's part is not judged" if told_ok is None else ""))
            if unsupported:
                # seen only when the migration began: nothing refused or reported it before (R13)
                rec(f"{prefix}/{topic.rsplit('/', 1)[-1]}/{p.name}/old-client-refused-before-migration", False, f"blue let {p.name}, which cannot follow a redirect (protocol < v20), publish "
                    f"{p.on_blue} messages before the migration and only logged it once the topic had migrated; "
                    "Pulsar has no clientMinVersionAllowed (docs/findings.md F-188-7)")




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


@check_safe("PIP188-R01", "PIP188-R02", "PIP188-R04", "PIP188-R09", "PIP188-R15")
def record_traces(rec: Recorder, out, prefix: str, *, latest: frozenset[str] = frozenset(),
                  auto_create: bool = True, topics: list[str] | None = None) -> None:
    """Trace validation (migration/trace.py): each (producer, subscription) of the run,
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
        for r in trace.validate_outcome(out.run_dir, variant=variant):
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
                rec(f"{prefix}/{r['check']}", ok if crossed or ok is False else None, evidence, requirements=r["requirements"],
                    **r["figures"])


def not_created(blue, green) -> bool | None:
    """Blue has the topic: fail. Blue says it does not (404) and green has the producer's writes:
    pass. Blue answers something else (3.2.0: HTTP 500 "already migrated") or the producer never
    reached green: the state the requirement is about was not observed, unknown."""
    if blue.error is None:
        return False
    if not blue.error.startswith("HTTP 404") or not green.entries:
        return None
    return True
