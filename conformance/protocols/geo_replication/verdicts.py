"""Verdicts of the geo-replication scenario as a pure function of what it left behind (the
capture, its Spark verdict, whether the outage was reached), so that a recorded or corrupted
capture is judged by exactly the code the live test uses (tests/reports/test_verdicts.py)."""
from __future__ import annotations

from pathlib import Path

import pyarrow.compute as pc
import pyarrow.dataset as ds

from pulsar_conformance.fixtures.capture.schema import RECEIVE, event_files

from ...run import verdict_of
from .checks import CHECKS


def deliveries(run_dir: Path) -> dict[str, int]:
    """Receive events per subscription, read back from the capture."""
    files = event_files(run_dir)
    if not files:
        return {}
    table = ds.dataset(files, format="parquet").to_table(columns=["subscription", "kind"],
                                                         filter=pc.field("kind") == RECEIVE)
    counts = table.group_by("subscription").aggregate([("kind", "count")]).to_pylist()
    return {row["subscription"]: row["kind_count"] for row in counts}


def judge(run_dir: Path, verdict: dict, outage: dict, failures: list, markers: list) -> list[dict]:
    """The check rows (``record`` keyword arguments, without ``test``) for GEO-R01 and GEO-R02."""
    counts = ", ".join(f"{k}={v['count']}" for k, v in verdict["anomalies"].items() if v["count"])
    seen = ", ".join(f"{sub} {n}" for sub, n in sorted(deliveries(run_dir).items())) or "none"
    evidence = f"{verdict['events']} events; deliveries per subscription: {seen}; anomalies: {counts or 'none'}"
    capture_verdict = verdict_of(verdict["valid"])
    return [
        {"check": "geo-replication/blue-to-green", "kind": "deployment", "requirements": CHECKS.requirements("geo-replication/blue-to-green"),
         "verdict": capture_verdict, "evidence": evidence,
         "details": {"capture": f"captures/{Path(run_dir).name}", "send_failures": failures[:5]}},
        {"check": "geo-replication/after-outage", "kind": "deployment", "requirements": CHECKS.requirements("geo-replication/after-outage"),
         "verdict": capture_verdict if outage["reached"] else "unknown",
         "evidence": f"{outage['why']}; after healing: {evidence}",
         "details": {"capture": f"captures/{Path(run_dir).name}", "markers": markers}},
    ]
