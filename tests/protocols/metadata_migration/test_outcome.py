"""The PIP-454 outcome saved and loaded by the harness, and judged offline from the loaded copy
exactly as from the live one: a conforming record (test_judge.py's) passes, a broken one fails."""
from __future__ import annotations

import copy

from pulsar_conformance.conformance.harness import outcome as saved
from pulsar_conformance.conformance.protocols.metadata_migration import judge
from pulsar_conformance.conformance.protocols.metadata_migration.outcome import Outcome, Plan

S = 1_000_000_000
MIGRATE = ("phases", "writes-refused", "ephemerals-recreated", "participants-waited", "versions-preserved",
           "after-cutover", "rest", "data-plane", "read-only-window")


def _write(kind, at, ok):
    return {"kind": kind, "target": f"{kind}{at}", "sent_ns": int(at * S), "answered_ns": int((at + 0.02) * S),
            "status": 200 if ok else 500, "body": "" if ok else "Write operations not allowed during migrations",
            "ok": ok}


def _outcome(run_dir) -> Outcome:
    """A migration as the PIP tells it: writes refused from PREPARATION to COMPLETED, then accepted."""
    phases = [("NOT_STARTED", 0), ("PREPARATION", 1.0), ("COPYING", 1.5), ("COMPLETED", 3.0)]
    writes = [_write(k, t, not (1.0 <= t < 3.0)) for t, k in
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
        verdict={"valid": True, "events": 10, "anomalies": {}}, markers=[{"ts_ns": 1, "label": "start"}],
        metadata_nodes=100, metadata_bytes=5000, judged=MIGRATE)


def test_the_outcome_round_trips(tmp_path):
    out = _outcome(tmp_path)
    saved.save(out, tmp_path)
    assert saved.load(Outcome, tmp_path) == out


def test_the_judge_runs_on_a_loaded_outcome(tmp_path):
    live = _outcome(tmp_path)
    saved.save(live, tmp_path)
    rows = judge.judge(saved.load(Outcome, tmp_path))
    assert rows == judge.judge(live) and [r.check.rsplit("/", 1)[-1] for r in rows] == list(MIGRATE)
    verdicts = {r.check.rsplit("/", 1)[-1]: r.ok for r in rows}
    assert verdicts["writes-refused"] is True and verdicts["versions-preserved"] is True
    assert verdicts["data-plane"] is True


def test_a_broken_run_fails_on_the_loaded_outcome(tmp_path):
    broken = _outcome(tmp_path)
    broken.writes = copy.deepcopy(broken.writes)
    broken.writes[2] = _write("policy", 1.6, True)  # a write accepted inside the read-only window
    saved.save(broken, tmp_path)
    verdicts = {r.check.rsplit("/", 1)[-1]: r.ok for r in judge.judge(saved.load(Outcome, tmp_path))}
    assert verdicts["writes-refused"] is False


def test_a_broken_target_leaves_every_check_unknown(tmp_path):
    out = _outcome(tmp_path)
    out.target_broken = "oxia exited by itself"
    saved.save(out, tmp_path)
    rows = judge.judge(saved.load(Outcome, tmp_path))
    assert {r.ok for r in rows} == {None} and len(rows) == len(MIGRATE)


def test_the_zookeeper_flag_series_is_saved_and_judged_from_the_loaded_copy(tmp_path):
    # 4.2.4: the status stops at COPYING; the flag's COMPLETED, read beside it, is judged offline too
    out = _outcome(tmp_path)
    out.phases = out.phases[:-1]
    out.zookeeper_flag = {"path": "/pulsar/migration-coordinator/migration", "errors": 0, "seen": [
        {"ns": int(t * S), "phase": p, "target": "oxia://x/default", "version": v}
        for v, (p, t) in enumerate((("PREPARATION", 1.0), ("COPYING", 1.5), ("COMPLETED", 3.0)))]}
    saved.save(out, tmp_path)
    loaded = saved.load(Outcome, tmp_path)
    assert loaded == out
    verdicts = {r.check.rsplit("/", 1)[-1]: r.ok for r in judge.judge(loaded)}
    assert verdicts["phases"] is True and verdicts["read-only-window"] is True and verdicts["rest"] is False


def test_an_outcome_saved_before_the_flag_was_read_loads_without_it(tmp_path):
    import json

    out = _outcome(tmp_path)
    path = saved.save(out, tmp_path)
    doc = json.loads(path.read_text())
    del doc["outcome"]["zookeeper_flag"]
    path.write_text(json.dumps(doc))
    assert saved.load(Outcome, tmp_path).zookeeper_flag is None
