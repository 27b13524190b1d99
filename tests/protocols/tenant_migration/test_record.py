"""A run records, judges read the record (issue 49, point 1), for tenant migration: no scenario module
imports a judge or takes Spark's verdict; the record step (record.py) takes Spark's verdict after the run,
saves it in the outcome and verdict.json, and records the judge's rows; the judge computes the figures
from what the run recorded, never from figures a saved outcome carries."""
from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest

from pulsar_conformance.conformance.harness import outcome as saved
from pulsar_conformance.conformance.harness import timeline
from pulsar_conformance.conformance.protocols.tenant_migration import judge, record
from pulsar_conformance.conformance.protocols.tenant_migration.outcome import (
    Outcome,
    Plan,
    StartOutcome,
    StartPlan,
)
from pulsar_conformance.conformance.run import CertifyRun

from ...support.spark_stand_in import stand_in_spark
from .made_outcomes import T, holes

CLEAN = {"valid": True, "events": 19, "anomalies": {"lost": {"count": 0}, "redelivered_after_ack": {"count": 0}}}


def _outcome(run_dir: Path, delivered_on_b=(3, 4, 5), *, consumer_on_b="python") -> Outcome:
    """Five messages on A, 3 a hole; B's markDeletePosition covers 1-2 and delivers ``delivered_on_b``; no
    Spark verdict yet, as the scenario saves it."""
    return holes(run_dir, delivered_on_b, Plan(messages=5, consumer_on_b=consumer_on_b), None)


def _request():
    return SimpleNamespace(node=SimpleNamespace(nodeid="t::test", user_properties=[]))


def test_an_outcome_spark_never_checked_leaves_nothing_lost_unknown(tmp_path):
    rows = {r.check.rsplit("/", 1)[-1]: r for r in judge.judge(_outcome(tmp_path))}
    assert rows["nothing-lost"].ok is None and "never taken" in rows["nothing-lost"].evidence


def test_the_record_step_takes_sparks_verdict_saves_it_and_records_the_judges_rows(tmp_path, monkeypatch):
    run = CertifyRun(out=tmp_path, profile="tenant-migration", seed=1)
    out = _outcome(run.directory("captures", "holes"), consumer_on_b="java")
    timeline.save(out.run_dir, "tenant-migration", {"a_cursor": out.a_cursor}, out.markers, None)  # as the scenario
    saved.save(out, out.run_dir)
    checked = stand_in_spark(monkeypatch, CLEAN)
    rec = record.judged(run, _request(), out)
    assert checked == [out.run_dir]  # Spark once, after the run
    assert json.loads((out.run_dir / "verdict.json").read_text()) == CLEAN
    again = saved.load(Outcome, out.run_dir, columns=out.columns)
    assert again.verdict == CLEAN  # outcome.json carries Spark's verdict, for `judge BUNDLE`
    doc = json.loads((out.run_dir / "tenant-migration.json").read_text())
    assert doc["a_cursor"] == out.a_cursor and doc["figures"]["duplicates"] == 2  # p/4, p/5 acknowledged on A
    assert rec.client == "java"
    verdicts = {r["check"].rsplit("/", 1)[-1]: r["verdict"] for r in rec.rows}
    assert verdicts["nothing-lost"] == "pass" and verdicts["unacked-delivered-on-b"] == "pass"
    assert [r.check for r in judge.judge(again)] == [r["check"] for r in rec.rows]


def test_each_outcome_type_is_recorded_by_its_rejudge_judge(tmp_path):
    start = StartOutcome("existing-data-default", tmp_path, T, StartPlan(), None, [], {}, 0, {}, {}, None, {}, {})
    assert record.judge_of(start).judge is judge.judge_start
    assert record.judge_of(_outcome(tmp_path)).judge is judge.judge
    with pytest.raises(TypeError, match="rejudge.py JUDGED"):
        record.judge_of(object())


def test_figures_an_old_outcome_saved_are_not_read_the_judge_computes_them(tmp_path):
    """An outcome.json saved before issue 49 carries the scenario's figures; the judge recomputes them from
    the capture and the cursors, so a fixed judge changes the verdict of a saved run."""
    live = _outcome(tmp_path, delivered_on_b=(4, 5))  # the hole, p/3, never came on B: lost to the application
    live.verdict = CLEAN
    saved.save(live, tmp_path)
    doc = json.loads((tmp_path / "outcome.json").read_text())
    stale = vars(judge.figures_of(live)) | {"unacked_missing_on_b": 0}  # figures that say nothing was missed
    doc["outcome"]["figures"] = stale
    (tmp_path / "outcome.json").write_text(json.dumps(doc))
    rows = {r.check.rsplit("/", 1)[-1]: r for r in judge.judge(saved.load(Outcome, tmp_path, columns=live.columns))}
    assert rows["unacked-delivered-on-b"].ok is False
    assert rows["unacked-delivered-on-b"].details["unacked_missing_on_b"] == 1
