"""The PIP-454 outcome saved and loaded by the harness, and judged offline from the loaded copy
exactly as from the live one: a conforming record (test_judge.py's) passes, a broken one fails."""
from __future__ import annotations

import copy

from pulsar_conformance.conformance.harness import outcome as saved
from pulsar_conformance.conformance.protocols.metadata_migration import judge
from pulsar_conformance.conformance.protocols.metadata_migration.outcome import Outcome

from .made_outcomes import MIGRATE, S
from .made_outcomes import as_the_pip_tells_it as _outcome
from .made_outcomes import write as _write


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
