"""The verdicts of a tenant-migration run as pure functions of what it left behind: the capture's
rows and the two cursors read at the switch. Positions are (ledger, entry) on the cluster that
delivered the message."""
from __future__ import annotations

from dataclasses import dataclass

from ...harness import evidence


def position(text: str | None) -> tuple[int, int] | None:
    """``ledger:entry[:...]`` (a msg_id or a markDeletePosition) as a comparable pair."""
    if not text or ":" not in text:
        return None
    ledger, entry = text.split(":")[:2]
    return int(ledger), int(entry)


@dataclass
class Figures:
    sent: int
    acked_on_a: int
    holes: int  # delivered on A, never acknowledged there
    delivered_on_b: int
    unacked_missing_on_b: int  # a hole B never delivered: skipped, lost to the application
    duplicates: int  # delivered on B although A had acknowledged them
    past_a_markdelete: int  # ... of which acknowledged past A's markDeletePosition (ack holes: problem 1)
    snapshot_lag: int  # ... of which at or before A's markDeletePosition (B's lagged: problems 2-3)
    a_markdelete: str | None
    b_markdelete: str | None
    b_followed_s: float | None = None  # after the last ack on A, until B's markDeletePosition settled

    def text(self) -> str:
        return (f"{self.sent} sent, {self.acked_on_a} acknowledged on A, {self.holes} holes left; after the switch B "
                f"delivered {self.delivered_on_b}: {self.duplicates} of them acknowledged on A before "
                f"({self.past_a_markdelete} past A's markDeletePosition {self.a_markdelete}: ack holes; "
                f"{self.snapshot_lag} before it: B's markDeletePosition {self.b_markdelete} lagged), "
                f"{self.unacked_missing_on_b} unacknowledged messages never delivered on B; B's markDeletePosition "
                f"settled {self.b_followed_s} s after the last ack on A")


def figures(columns: dict, topic: str, a_cursor: dict, b_cursor: dict) -> Figures:
    sent = {r["uid"] for r in evidence.rows(columns, kind="send_ok", topic=topic)}
    on_a = {r["uid"]: r for r in evidence.rows(columns, kind="receive", topic=topic, cluster="blue")}
    acked = {r["uid"] for r in evidence.rows(columns, kind="ack", topic=topic, cluster="blue")}
    on_b = {r["uid"] for r in evidence.rows(columns, kind="receive", topic=topic, cluster="green")}
    a_md = position(a_cursor.get("markDeletePosition"))
    again = on_b & acked
    past = {u for u in again if a_md is not None and (position(on_a[u]["msg_id"]) or (0, 0)) > a_md}
    holes = set(on_a) - acked
    return Figures(len(sent), len(acked), len(holes), len(on_b), len((sent - acked) - on_b), len(again),
                   len(past), len(again - past), a_cursor.get("markDeletePosition"), b_cursor.get("markDeletePosition"),
                   b_cursor.get("followed_s"))


def judge(f: Figures, verdict: dict) -> list[tuple[str, bool | None, str]]:
    """(check suffix, ok, evidence) per check of the run."""
    spark = verdict["anomalies"]
    lost = spark.get("lost", {}).get("count")
    rows = [("nothing-lost", None if verdict.get("valid") is None else not lost,
             f"Spark over {verdict['events']} captured events: lost={lost}, "
             f"redelivered_after_ack={spark.get('redelivered_after_ack', {}).get('count')} (allowed: the duplicates)")]
    # no hole and nothing delivered on B: the switch was not exercised, nothing to judge
    exercised = f.holes > 0 or f.delivered_on_b > 0
    rows.append(("unacked-delivered-on-b", (f.unacked_missing_on_b == 0) if exercised else None, f.text()))
    rows.append(("duplicates-after-switch", (f.duplicates == 0) if f.delivered_on_b or f.acked_on_a else None,
                 f.text()))
    return rows
