"""A PIP-188 run records; its judges read only the record (issue 49, point 1).

The scenario modules import no judge and take no Spark verdict (tests/harness/test_scenarios_judge_nothing.py
scans every package's); judge.judge computes the producer and
subscription figures from what the run recorded, and gives the figures the scenario used to compute
(the recorded Java run, tests/data/migration/cluster-migration-java-4.2.4, saved them in its
outcome.json); a figure an old outcome.json carries is never read back; the record step (record.judged)
takes Spark's verdict, saves the outcome with it and writes the figures into migration.json as before.
"""
from __future__ import annotations

import json
import shutil
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

import pytest

from pulsar_conformance.conformance.harness import outcome as saved
from pulsar_conformance.conformance.protocols.cluster_migration import judge, record
from pulsar_conformance.conformance.protocols.cluster_migration.outcome import Outcome, TopicOutcome
from pulsar_conformance.conformance.run import verdict_of

from .recorded import DATA

ROOT = Path(__file__).resolve().parents[3]
JAVA = DATA.parent / "cluster-migration-java-4.2.4"
EXCLUSIVE = "persistent://mig/live-java/exclusive"
PRODUCER = "p-live-java-exclusive"


@pytest.fixture
def java(tmp_path) -> Outcome:
    """The recorded Java run (saved before issue 49: its outcome.json holds the scenario's figures), copied."""
    shutil.copytree(JAVA, tmp_path / "run")
    return replace(saved.load(Outcome, tmp_path / "run"), run_dir=tmp_path / "run")


def test_the_judge_computes_the_figures_the_scenario_used_to(java):
    recorded = json.loads((JAVA / "outcome.json").read_text())["outcome"]["topics"]
    assert all(type(o) is TopicOutcome for o in java.topics.values())  # loading left the saved figures out
    figured = judge.with_figures(java).topics
    for topic, doc in recorded.items():
        mine = json.loads(json.dumps(figured[topic].to_json(), default=str))
        assert (mine["producers"], mine["subscriptions"]) == (doc["producers"], doc["subscriptions"]), topic
    late = {(t, s.name) for t, o in figured.items() for s in o.subscriptions if s.created_after_trigger}
    assert late == {(EXCLUSIVE, "late")}  # from the handles' creation times, as the scenario had it


def test_a_figure_an_old_outcome_saved_is_not_read_back(java):
    """An outcome.json whose saved figures say a producer broke its order: the judge reads the record, in
    which it did not (before issue 49 the saved figures were judged as saved, and this was a fail)."""
    path = java.run_dir / "outcome.json"
    doc = json.loads(path.read_text())
    producers = doc["outcome"]["topics"][EXCLUSIVE]["producers"]
    next(p for p in producers if p["name"] == PRODUCER)["order_violations"] = ["seq 3 stored on green but seq 9 on blue"]
    next(s for s in doc["outcome"]["topics"][EXCLUSIVE]["subscriptions"] if s["name"] == "slow")["blue_missing"] = 9
    path.write_text(json.dumps(doc))
    rows = {r.check: verdict_of(r.ok) for r in judge.judge(replace(saved.load(Outcome, java.run_dir), run_dir=java.run_dir))}
    assert rows[f"cluster-migration-java/exclusive/{PRODUCER}/order"] == "pass"
    assert rows["cluster-migration-java/exclusive/slow/drained-before-green"] == "pass"


def test_a_changed_record_changes_the_figures(java):
    """The can-fail control: the same edit made to the record (where one send was stored) is judged."""
    o = java.topics[EXCLUSIVE]
    mine = sorted((r for r in judge._rows(java, EXCLUSIVE, "send_ok", cluster="blue") if r["producer"] == PRODUCER),
                  key=lambda r: r["seq"])
    o.placement.by_uid[mine[0]["uid"]] = "green"  # its first send stored on green, before the rest on blue
    rows = {r.check: r for r in judge.judge(java)}
    assert rows[f"cluster-migration-java/exclusive/{PRODUCER}/order"].ok is False


class FakeRecorder:
    """harness/recorder.Recorder's calls, kept."""

    made: list = []

    def __init__(self, certify_run, request, outcome, checks, *, client=None):
        self.client, self.rows, self.finished = client, [], False
        FakeRecorder.made.append(self)

    def record(self, rows):
        self.rows += list(rows)

    def finish(self):
        self.finished = True


def test_the_record_step_takes_sparks_verdict_saves_it_and_writes_the_figures(java, monkeypatch):
    """What scenario.run leaves (verdict None, migration.json without figures) made whole by record.judged."""
    spark = json.loads((JAVA / "verdict.json").read_text())
    asked = []

    def spark_verdict(run_dir, columns=None, *, name=""):
        asked.append((Path(run_dir), name, len(columns["kind"])))
        return spark

    monkeypatch.setattr(record.afterwards, "spark_verdict", spark_verdict)
    monkeypatch.setattr(record, "Recorder", FakeRecorder)
    FakeRecorder.made = []
    migration = json.loads((JAVA / "migration.json").read_text())
    # as scenario.run writes it now: each topic's states and placement only
    (java.run_dir / "migration.json").write_text(json.dumps(
        dict(migration, topics={t: o.to_json() for t, o in java.topics.items()}), indent=2, default=str))
    java.verdict = None
    record.judged(SimpleNamespace(), SimpleNamespace(), java, client="java")
    assert asked == [(java.run_dir, "cluster-migration-java", len(java.columns["kind"]))]
    assert saved.load(Outcome, java.run_dir).verdict == spark  # outcome.json saved again, with Spark's verdict
    written = json.loads((java.run_dir / "migration.json").read_text())
    assert list(written) == list(migration)
    for topic, doc in migration["topics"].items():
        for key in ("placement", "producers", "subscriptions"):  # as the scenario wrote them before
            assert written["topics"][topic][key] == doc[key], (topic, key)
    (rec,) = FakeRecorder.made
    assert rec.client == "java" and rec.finished
    assert [(r.check, r.ok) for r in rec.rows] == [(r.check, r.ok) for r in judge.judge(java)]
    recorded = {json.loads(x)["check"]: json.loads(x)["verdict"] for x in (JAVA / "checks.jsonl").read_text().splitlines()}
    assert {r.check: verdict_of(r.ok) for r in rec.rows} == recorded


def test_an_outcome_without_sparks_verdict_is_refused_with_the_fix(java):
    """What scenario.run saves before its record step: judged, it would be judged in part (Spark's rows,
    R09's lost count), so the judge refuses it and says how to take the verdict."""
    with pytest.raises(ValueError, match=r"no Spark verdict: its record step \(record.judged\) did not take it"):
        judge.judge(replace(java, verdict=None))
