"""The geo-replication record step (record.judged, issue 49 point 1): Spark's verdict of the capture is
taken after the scenario returned (which leaves ``verdict`` None), saved with the outcome, then judged."""
from __future__ import annotations

from types import SimpleNamespace

import pytest

from pulsar_conformance.conformance.harness import outcome as saved
from pulsar_conformance.conformance.protocols.geo_replication import judge, record
from pulsar_conformance.conformance.protocols.geo_replication.outcome import Outage, Outcome

SPARK = {"valid": False, "events": 36, "anomalies": {"lost": {"count": 10, "examples": []}}}


class FakeRecorder:
    made: list = []

    def __init__(self, certify_run, request, outcome, checks, *, client=None):
        self.outcome, self.rows, self.finished = outcome, [], False
        FakeRecorder.made.append(self)

    def record(self, rows):
        self.rows += list(rows)

    def finish(self):
        self.finished = True


def test_the_record_step_takes_sparks_verdict_saves_it_then_judges(tmp_path, monkeypatch):
    asked = []

    def spark_verdict(run_dir, columns=None, *, name=""):
        asked.append((run_dir, name))
        return SPARK

    monkeypatch.setattr(record.afterwards, "spark_verdict", spark_verdict)
    monkeypatch.setattr(record, "Recorder", FakeRecorder)
    FakeRecorder.made = []
    out = Outcome(tmp_path, None, Outage(True, "green received nothing while the link was cut"), [], [],
                  {"audit-blue": 18, "billing-green": 8})
    saved.save(out, tmp_path)  # as scenario.run leaves it
    assert saved.load(Outcome, tmp_path).verdict is None
    record.judged(SimpleNamespace(), SimpleNamespace(), out)
    assert asked == [(tmp_path, "geo-replication")]
    assert saved.load(Outcome, tmp_path).verdict == SPARK
    (rec,) = FakeRecorder.made
    assert rec.finished and [(r.check, r.ok) for r in rec.rows] == [(r.check, r.ok) for r in judge.judge(out)]
    assert [r.ok for r in rec.rows] == [False, False] and "lost=10" in rec.rows[0].evidence


def test_an_outcome_without_sparks_verdict_is_refused_with_the_fix(tmp_path):
    out = Outcome(tmp_path, None, Outage(True, "cut"), [], [], {})
    with pytest.raises(ValueError, match=r"no Spark verdict: its record step \(record.judged\) did not take it"):
        judge.judge(out)
