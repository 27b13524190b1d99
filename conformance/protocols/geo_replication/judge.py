"""Verdicts of the geo-replication scenario as a pure function of its outcome (outcome.py): Spark's
verdict over the capture, whether the outage was reached, the deliveries per subscription. A
recorded or corrupted capture is judged by exactly the code the live test uses."""
from __future__ import annotations

from ...harness.rows import Row, row
from .outcome import Outcome


def judge(out: Outcome) -> list[Row]:
    """GEO-R01 (everything acknowledged on blue delivered on green, once, in order) and GEO-R02
    (what was published during the outage arrives once it is back, judged only if it was reached).
    An outcome without Spark's verdict (its record step never took it) is refused with the fix."""
    if out.verdict is None:
        raise ValueError(f"the geo-replication outcome in {out.run_dir} has no Spark verdict: its record step "
                         "(record.judged) did not take it; take it with harness/afterwards.spark_verdict(run_dir), "
                         "set it as the outcome's verdict and save the outcome, then judge it")
    counts = ", ".join(f"{k}={v['count']}" for k, v in out.verdict["anomalies"].items() if v["count"])
    seen = ", ".join(f"{sub} {n}" for sub, n in sorted(out.deliveries.items())) or "none"
    evidence = f"{out.verdict['events']} events; deliveries per subscription: {seen}; anomalies: {counts or 'none'}"
    duplicates = answered_as_duplicates(out)
    if duplicates:  # a lost send the source cluster never stored: not replication's loss (docs/findings.md F-GEO-1)
        evidence += (f"; {duplicates} send(s) acknowledged as a duplicate (message id -1:-1) and stored on no cluster, "
                     "blue's own subscription included")
    valid = out.verdict["valid"]
    prefix = f"geo-replication/{out.name}/" if out.name else "geo-replication/"
    return [
        row(f"{prefix}blue-to-green", valid, evidence, send_failures=out.failures[:5], duplicate_acks=duplicates),
        row(f"{prefix}after-outage", valid if out.outage.reached else None,
            f"{out.outage.why}; after healing: {evidence}", markers=out.markers),
    ]


def answered_as_duplicates(out: Outcome) -> int:
    """The sends the broker acknowledged as duplicates (message id -1:-1: deduplication's answer to a sequence id it
    already stored), read from the capture's rows (none where the outcome was loaded without its capture)."""
    kinds, ids = out.columns.get("kind") or [], out.columns.get("msg_id") or []
    return sum(k == "send_ok" and str(m).startswith("-1:-1") for k, m in zip(kinds, ids, strict=False))
