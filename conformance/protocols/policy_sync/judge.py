"""Verdicts of the policy-sync scenarios, from an outcome alone (outcome.py; tests/protocols/policy_sync
run them on recorded and made-up outcomes, so every verdict is seen passing and failing). ``judge``
gives every row of a scenario: the checks its outcome asks for (``judged``), the replayed spec
counterexample's comparison, or publish-before-write."""
from __future__ import annotations

from ...harness.itf_traces import attach
from ...harness.rows import Row, from_judge, row
from . import trace
from .outcome import ABSENT, Enabling, Outcome, SyncerStats


def _held(out) -> str:
    return ", ".join(f"{c}={v}" for c, v in sorted(out.final.items()))


def _consumed(out) -> str:
    """The events each cluster consumed, in its order: the story of a divergence."""
    parts = []
    for cluster in out.clusters:
        seq = [f"{e.value if e.kind != 'Deleted' else 'delete'}@{e.ts}/{e.source}" for e in out.events.get(cluster, [])]
        parts.append(f"{cluster} consumed [{', '.join(seq)}]")
    return "; ".join(parts)


def _settled(out) -> tuple[bool | None, str]:
    if not out.quiesced:
        return None, f"the clusters did not settle within the scenario's time (values {_held(out)})"
    if None in out.final.values():
        return None, f"a cluster did not answer its value ({_held(out)})"
    return True, ""


def converged(out) -> tuple[bool | None, str]:
    settled, why = _settled(out)
    if settled is None:
        return None, why
    if len(set(out.final.values())) == 1:
        return True, f"every cluster holds {next(iter(out.final.values()))} after {len(out.written())} event(s)"
    return False, f"diverged: {_held(out)}; {_consumed(out)}"


def _value(event) -> int:
    return ABSENT if event.kind == "Deleted" else event.value


def newest_wins(out) -> tuple[bool | None, str]:
    settled, why = _settled(out)
    if settled is None:
        return None, why
    written = out.written()
    if not written:
        return None, "no event was written"
    newest = max(e.ts for e in written)
    top = [e for e in written if e.ts == newest]
    if len({(e.source, _value(e)) for e in top}) > 1:
        return None, f"the newest timestamp {newest} is shared by {len(top)} events (a tie: R03 judges it)"
    want = _value(top[0])
    wrong = {c: v for c, v in out.final.items() if v != want}
    if not wrong:
        return True, f"every cluster holds {want}, the newest event's (ts {newest} from {top[0].source})"
    return False, (f"the newest event ({want} at ts {newest} from {top[0].source}) is not held by "
                   f"{', '.join(f'{c} (holds {v})' for c, v in sorted(wrong.items()))}; {_consumed(out)}")


def tie_to_smaller_source(out) -> tuple[bool | None, str]:
    settled, why = _settled(out)
    if settled is None:
        return None, why
    written = out.written()
    by_ts: dict[int, list] = {}
    for e in written:
        by_ts.setdefault(e.ts, []).append(e)
    ties = [es for es in by_ts.values() if len({e.source for e in es}) > 1]
    if not ties:
        return None, "no two clusters wrote with the same timestamp"
    newest = max(written, key=lambda e: e.ts).ts
    tie = by_ts.get(newest)
    if not tie or len({e.source for e in tie}) < 2:
        return None, "the clusters tied on a timestamp, but a newer event decided the value"
    smaller, larger = min(tie, key=lambda e: e.source), max(tie, key=lambda e: e.source)
    want = _value(smaller)
    said = f"tie at ts {newest}: {smaller.source} wrote {_value(smaller)}, {larger.source} wrote {_value(larger)}"
    if all(v == want for v in out.final.values()):
        return True, f"{said}; every cluster holds {want}, the smaller source's"
    if all(v == _value(larger) for v in out.final.values()):
        return False, f"{said}; every cluster holds {_value(larger)}: the LARGER source name wins, the PIP says the smaller"
    return False, f"{said}; no single winner: {_held(out)}"


def _value_at(series, at_ns: int):
    before = [v for t, v in series if t <= at_ns]
    return before[-1] if before else None


def redelivery_no_effect(out) -> tuple[bool | None, str]:
    settled, why = _settled(out)
    if settled is None:
        return None, why
    steps = [(s, r) for s, r in zip(out.steps, out.results, strict=False) if s.op == "redeliver"]
    if not steps:
        return None, "no redelivery in this scenario"
    for step, result in steps:
        if not result.get("ok"):
            return None, f"the redelivery at {step.cluster} was refused: {result.get('error', '')}"
        before = _value_at(out.series.get(step.cluster, []), result["at_ns"])
        after = out.final.get(step.cluster)
        if before != after:
            return False, (f"{step.cluster} held {before} before its synchronizer consumed every event again, "
                           f"{after} after; {_consumed(out)}")
    return True, f"values unchanged by the redelivery ({_held(out)})"


def publish_before_write(out, stored: int | None = None) -> tuple[bool | None, str]:
    """``stored``: the value the cluster answers after a restart (its store, not its cache)."""
    pairs = list(zip(out.steps, out.results, strict=False))
    broken = [i for i, (s, r) in enumerate(pairs) if s.op == "break-sync-topic" and r.get("ok")]
    if not broken:
        return None, "the sync topic could not be made to refuse events"
    where = pairs[broken[0]][0].cluster
    writes = [(s, r) for s, r in pairs[broken[0] + 1:] if s.op == "write" and s.cluster == where]
    if not writes:
        return None, f"nothing was written at {where} once its sync topic refused events"
    step, result = writes[0]
    holds = out.final.get(where) if stored is None else stored
    cached = "" if stored is None or stored == out.final.get(where) else (
        f" (before the restart its admin API answered {out.final.get(where)}: a value its store does not hold)")
    if holds == step.value:
        return False, (f"{where} applied the write of {step.value} although its event could not be published "
                       f"(the admin call {'succeeded' if result.get('ok') else 'failed: ' + result.get('error', '')})")
    if holds is None:
        return None, f"{where} did not answer its value"
    return True, (f"the write of {step.value} at {where} was "
                  f"{'refused (' + str(result.get('status')) + ')' if not result.get('ok') else 'answered but not applied'}"
                  f"; {where}'s store {'after a restart ' if stored is not None else ''}holds {holds}{cached}")


def one_consumer(stats: dict[str, dict]) -> tuple[bool | None, str]:
    """``stats``: per cluster, the synchronizer subscription's stats (empty when it is missing)."""
    if not stats:
        return None, "no cluster to look at"
    problems, seen = [], []
    for cluster, sub in sorted(stats.items()):
        if not sub:
            problems.append(f"{cluster} has no {'metadata-syncer'} subscription")
            continue
        kind, consumers = sub.get("type"), len(sub.get("consumers") or [])
        names = {c.get("consumerName") for c in sub.get("consumers") or []}
        active = sub.get("activeConsumerName")
        # every broker of a cluster starts a synchronizer: on a cluster of several brokers the PIP's
        # design is N consumers on the Failover subscription, of which the broker makes one active
        if kind == "Failover" and consumers > 1 and active in names:
            seen.append(f"{cluster}: {kind}, {consumers} consumers (one per broker), active {active}")
        elif kind == "Failover" and consumers == 1:
            seen.append(f"{cluster}: {kind}, 1 consumer")
        else:
            problems.append(f"{cluster}: {kind} with {consumers} consumer(s)"
                            + (f", none of them active ({active!r})" if kind == "Failover" and consumers else ""))
    if problems:
        return False, "; ".join(problems)
    return True, "; ".join(seen) + " (the Failover type is what lets one broker's synchronizer consume)"


# steps that change the policy: one refused means the scenario did not do what its checks judge
CHANGES = ("write", "writes", "delete", "delete-and-write")


def refused_change(out: Outcome) -> str | None:
    """What a refused write or delete of the scenario was answered, or None when every one was done."""
    for step, result in zip(out.steps, out.results, strict=False):
        if step.op in CHANGES and not result.get("ok", True):
            return f"the step '{result['step']}' was refused ({result.get('error') or '; '.join(result.get('errors') or [])})"[:400]
    return None


def judge(out: Outcome) -> list[Row]:
    prefix = f"policy-sync/{out.name}"
    refused = refused_change(out)
    if refused and not any(step.op == "break-sync-topic" for step in out.steps):  # there a refusal is the point
        # e.g. a delete the brokers refuse: what the clusters then hold says nothing of the rule judged
        return [row(f"{prefix}/{check}", None, f"{refused}: the scenario did not make the change it judges",
                    final=out.final) for check in out.judged]
    rows = [from_judge(f"{prefix}/{check}", JUDGES[check], out, details={"final": out.final}) for check in out.judged]
    if out.counterexample is not None:
        rows.append(replayed(out))
    if any(step.op == "break-sync-topic" for step in out.steps):
        ok, said = publish_before_write(out, out.stored_after_restart)
        rows.append(row(f"{prefix}/publish-before-write", ok, said, final=out.final,
                        stored_after_restart=out.stored_after_restart))
    return rows


def replayed(out: Outcome) -> Row:
    """The spec's counterexample replayed (trace.py): converged, with what as-implemented and
    as-proposed predict for the order that really ran."""
    spec_trace, realized = out.counterexample["trace"], out.counterexample["realized"]
    allowed, predicted, problem, implemented = trace.predicted("as-implemented", realized)
    to_spec = {real: spec for spec, real in out.counterexample["clusters"].items()}
    observed = {to_spec[c]: v for c, v in out.final.items() if c in to_spec}
    proposed_ok, proposed, proposed_problem, as_proposed = trace.predicted("as-proposed", realized)
    as_spec = {c: predicted[to_spec[c]] for c in out.clusters}
    matches = observed == predicted
    ok, said = converged(out)
    said = (f"{said}. Spec counterexample ({len(spec_trace)} steps: {'; '.join(spec_trace)}) replayed as "
            f"[{'; '.join(realized)}]; as-implemented predicts {as_spec}, the clusters hold {out.final}: "
            f"{'the divergence the spec predicts' if matches and len(set(predicted.values())) > 1 else 'as predicted' if matches else 'NOT what the spec predicts'}")
    return attach(row(f"policy-sync/{out.name}/converged", ok, said, trace=spec_trace, realized=realized,
                      moved=out.counterexample["moved"], spec_allows=allowed, spec_problem=problem, spec_final=as_spec,
                      matches_spec=matches, as_proposed_allows=proposed_ok, as_proposed_problem=proposed_problem,
                      as_proposed_final={c: proposed[to_spec[c]] for c in out.clusters}), implemented, as_proposed)


def enabled_by_setting(before: dict, after: dict, how: str, writer: str) -> Row:
    """R01 of enabling: a tenant written at ``writer`` reached no other cluster before the setting, every
    one after (``before``/``after``: cluster -> reached; both empty: an external deployment)."""
    check = "policy-sync/enable/enabled-by-setting"
    if not before and not after:
        return row(check, None, "an external deployment: the sync was on before the run")
    return row(check, not any(before.values()) and all(after.values()),
               f"before the setting, a tenant written at {writer} reached {before}; after it ({how}), {after}",
               before=before, after=after, how=how)


def judge_enabling(e: Enabling) -> list[Row]:
    """The rows of the saved enabling probe (clusters.enable): R07's."""
    return [enabled_by_setting(e.before, e.after, e.how, e.writer)]


def judge_syncer(s: SyncerStats) -> list[Row]:
    """The rows of the saved synchronizer stats: one consumer per cluster."""
    return [one_consumer_row(s.stats)]


def one_consumer_row(stats: dict[str, dict]) -> Row:
    ok, said = one_consumer(stats)
    return row("policy-sync/syncer/one-consumer-per-cluster", ok, said,
               subscriptions={c: {"type": s.get("type"), "consumers": len(s.get("consumers") or []),
                                  "active": s.get("activeConsumerName")} for c, s in stats.items()})


# the checks a scenario's outcome may ask for (``Outcome.judged``)
JUDGES = {"converged": converged, "newest-wins": newest_wins, "tie-to-smaller-source": tie_to_smaller_source,
          "redelivery-no-effect": redelivery_no_effect}
