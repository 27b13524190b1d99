"""A migration as the PIP tells it, as an outcome: what the offline tests of the judge and the record step
judge (tests never import tests: this module is theirs to share)."""
from __future__ import annotations

from pulsar_conformance.conformance.protocols.metadata_migration.outcome import Outcome, Plan

S = 1_000_000_000
CLEAN = {"valid": True, "events": 10, "anomalies": {}}
MIGRATE = ("phases", "writes-refused", "ephemerals-recreated", "participants-waited", "versions-preserved",
           "after-cutover", "rest", "data-plane", "read-only-window")


def write(kind, at, ok):
    return {"kind": kind, "target": f"{kind}{at}", "sent_ns": int(at * S), "answered_ns": int((at + 0.02) * S),
            "status": 200 if ok else 500, "body": "" if ok else "Write operations not allowed during migrations",
            "ok": ok}


def as_the_pip_tells_it(run_dir) -> Outcome:
    """On a standalone: writes refused from PREPARATION to COMPLETED, then accepted; Spark's verdict clean."""
    phases = [("NOT_STARTED", 0), ("PREPARATION", 1.0), ("COPYING", 1.5), ("COMPLETED", 3.0)]
    writes = [write(k, t, not (1.0 <= t < 3.0)) for t, k in
              ((0.5, "namespace"), (1.2, "namespace"), (1.6, "policy"), (2.0, "topic"), (3.2, "namespace"),
               (3.3, "policy"), (3.4, "topic"))]
    return Outcome(
        "migrate", Plan(timeout_s=120.0), run_dir, {"status": 200, "body": None, "ok": True},
        [{"ns": int(t * S), "phase": p, "target": None if p == "NOT_STARTED" else "oxia://x/default"} for p, t in phases],
        writes, 2, kept={w["target"]: True for w in writes if w["ok"]},
        comparison={"compared": 100, "same": 95, "missing": 0, "version_changed": 0, "value_differs": 0,
                    "rewritten_after_cutover": 5, "examples": {"version_changed": []}},
        oxia_ephemerals=["/loadbalance/brokers/127.0.0.1:8080", "/ledgers/available/bk-0"],
        cas_after={"update": 200, "read_back": {"retentionTimeInMinutes": 77}},
        restarted_on_oxia={"metadata_url": "oxia://x/default", "kept": {"namespace3.2": True}, "namespace_created": 204},
        log_marks={"ephemerals": 10, "participants_ready": 20, "copy": 21, "copied": 40, "completed": 41},
        verdict=dict(CLEAN), markers=[{"ts_ns": 1, "label": "start"}], metadata_nodes=100, metadata_bytes=5000,
        judged=MIGRATE)
