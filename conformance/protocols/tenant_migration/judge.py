"""The verdicts of a tenant-migration run as pure functions of its outcome (outcome.py): the
capture's rows, the two cursors read at the switch, B's cursor over time, and the run replayed
through the spec (trace.py). ``judge`` gives every row the scenario records."""
from __future__ import annotations

from ...harness import evidence
from ...harness.rows import Row, from_judge, row
from . import trace
from .outcome import Figures, Outcome, position


def figures(columns: dict, topic: str, a_cursor: dict, b_cursor: dict,
            b_positions: dict[str, str] | None = None) -> Figures:
    """``b_positions``: uid -> where B stored it (a reader's view of B), for the spec's bound."""
    sent = {r["uid"] for r in evidence.rows(columns, kind="send_ok", topic=topic)}
    on_a = {r["uid"]: r for r in evidence.rows(columns, kind="receive", topic=topic, cluster="blue")}
    acked = {r["uid"] for r in evidence.rows(columns, kind="ack", topic=topic, cluster="blue")}
    on_b = {r["uid"] for r in evidence.rows(columns, kind="receive", topic=topic, cluster="green")}
    a_md = position(a_cursor.get("markDeletePosition"))
    again = on_b & acked
    past = {u for u in again if a_md is not None and (position(on_a[u]["msg_id"]) or (0, 0)) > a_md}
    holes = sent - acked
    b_md = position(b_cursor.get("markDeletePosition"))
    bound, below = None, 0
    if b_positions and b_md is not None:
        where = {u: position(p) for u, p in b_positions.items()}
        bound = sum(1 for u in acked if where.get(u) is not None and where[u] > b_md)
        below = sum(1 for u in on_b if where.get(u) is not None and where[u] <= b_md)
    return Figures(len(sent), len(acked), len(holes), len(on_b), len((sent - acked) - on_b), len(again),
                   len(past), len(again - past), a_cursor.get("markDeletePosition"), b_cursor.get("markDeletePosition"),
                   b_cursor.get("followed_s"), bound, below, b_cursor.get("replicated_s"),
                   b_cursor.get("caught_up_s"), b_cursor.get("replicator"))


def markdelete_within_replicated(progress: list[dict]) -> tuple[bool | None, str]:
    """TM-R03 from B's side: at every poll, B's markDeletePosition is at or before the last entry B
    has (a snapshot maps only positions B replicated). Polls where B had nothing judge nothing."""
    seen = [(p["ts_ns"], position(p.get("b")), position(p.get("b_has"))) for p in progress]
    judged = [(t, md, has) for t, md, has in seen if md is not None and has is not None]
    if not judged:
        return None, f"B's cursor and last entry were never both read ({len(progress)} polls)"
    past = [(t, md, has) for t, md, has in judged if md > has]
    if past:
        t, md, has = past[0]
        return False, (f"B's markDeletePosition {md[0]}:{md[1]} passed the last entry B had, {has[0]}:{has[1]}, "
                       f"in {len(past)} of {len(judged)} polls")
    first, last = judged[0], judged[-1]
    return True, (f"in {len(judged)} polls B's markDeletePosition stayed at or before what B had "
                  f"(first {first[1][0]}:{first[1][1]} of {first[2][0]}:{first[2][1]}, "
                  f"last {last[1][0]}:{last[1][1]} of {last[2][0]}:{last[2][1]})")


def judge(out: Outcome) -> list[Row]:
    """Every row of the run: the figures' checks, TM-R03 from B's polls, and the spec's replay."""
    prefix = f"tenant-migration/{out.name}"
    rows = [row(f"{prefix}/{suffix}", ok, said, **vars(out.figures))
            for suffix, ok, said in figure_checks(out.figures, out.verdict)]
    rows.append(from_judge(f"{prefix}/markdelete-within-replicated", markdelete_within_replicated, out.progress))
    replayed = trace.replay(out.columns, out.topic, out.a_cursor.get("markDeletePosition"),
                            out.b_cursor.get("markDeletePosition"), out.b_positions, out.figures.duplicates)
    caught_up = out.figures.b_caught_up_s is not None or out.figures.replicator_at_switch is None
    rows.append(row(f"{prefix}/trace", replayed.ok if caught_up else None,
                    replayed.text if caught_up else
                    f"not judged: B never held every entry A had before the switch; {replayed.text}",
                    requirements=list(replayed.requirements),
                    spec_dup=replayed.spec_dup, spec_md_a=replayed.spec_md_a, steps=replayed.steps))
    return rows


def figure_checks(f: Figures, verdict: dict) -> list[tuple[str, bool | None, str]]:
    """(check suffix, ok, evidence) per check of the run."""
    spark = verdict["anomalies"]
    lost = spark.get("lost", {}).get("count")
    rows = [("nothing-lost", None if verdict.get("valid") is None else not lost,
             f"Spark over {verdict['events']} captured events: lost={lost}, "
             f"redelivered_after_ack={spark.get('redelivered_after_ack', {}).get('count')} (allowed: the duplicates)")]
    # no hole and nothing delivered on B: the switch was not exercised, nothing to judge
    exercised = f.holes > 0 or f.delivered_on_b > 0
    if f.b_caught_up_s is None and f.replicator_at_switch is not None:
        # B lacked entries when the consumer moved: what it then missed is replication's (TM-R01, judged
        # by Spark's lost count over the whole run), not a position progress sync skipped
        rows.append(("unacked-delivered-on-b", None,
                     f"not judged: B never held every entry A had before the switch (A's replicator to B: "
                     f"{f.replicator_at_switch}); {f.text()}"))
    else:
        rows.append(("unacked-delivered-on-b", (f.unacked_missing_on_b == 0) if exercised else None, f.text()))
    rows.append(("duplicates-after-switch", (f.duplicates == 0) if f.delivered_on_b or f.acked_on_a else None,
                 f.text()))
    # the measured duplicates against what the spec's model of Pulsar allows for this run
    within = None if f.spec_bound is None else (f.duplicates <= f.spec_bound and f.below_b_markdelete == 0)
    rows.append(("duplicates-within-spec-bound", within, f.text()))
    return rows
