"""A run records, judges read the record (issue 49, point 1), for PIP-454: no scenario module imports a
judge or takes Spark's verdict; the record step (record.py) takes Spark's verdict after the run, saves it,
and records the judge's rows; the registered participants are counted by the judge from the source's
ephemeral paths the run recorded."""
from __future__ import annotations

import json
from types import SimpleNamespace

from pulsar_conformance.conformance.harness import evidence
from pulsar_conformance.conformance.harness import outcome as saved
from pulsar_conformance.conformance.protocols.metadata_migration import judge, record
from pulsar_conformance.conformance.protocols.metadata_migration.outcome import Outcome
from pulsar_conformance.conformance.run import CertifyRun

from ...support.spark_stand_in import stand_in_spark
from .made_outcomes import CLEAN
from .made_outcomes import as_the_pip_tells_it as _outcome

TOPOLOGY = ["/loadbalance/brokers/127.0.0.1:8080", "/ledgers/available/bk-0", "/ledgers/available/bk-1"]


def _checks(rows) -> dict:
    return {r.check.rsplit("/", 1)[-1]: r for r in rows}


def test_a_run_spark_never_checked_leaves_the_data_plane_unknown(tmp_path):
    out = _outcome(tmp_path)
    out.verdict = None  # as the scenario saves it
    row = _checks(judge.judge(out))["data-plane"]
    assert row.ok is None and "never taken" in row.evidence


def test_the_record_step_takes_sparks_verdict_saves_it_and_records_the_judges_rows(tmp_path, monkeypatch):
    run = CertifyRun(out=tmp_path, profile="metadata-migration", seed=1)
    out = _outcome(run.directory("captures", "migrate"))
    out.verdict = None
    saved.save(out, out.run_dir)
    checked = stand_in_spark(monkeypatch, CLEAN)
    monkeypatch.setattr(evidence, "read_capture", lambda run_dir: {"kind": []})
    out.other_source = {"status": 400, "ok": False}  # what a test adds after the run is saved with the verdict
    rec = record.judged(run, SimpleNamespace(node=SimpleNamespace(nodeid="t::test", user_properties=[])), out)
    assert checked == [out.run_dir]
    assert json.loads((out.run_dir / "verdict.json").read_text()) == CLEAN
    again = saved.load(Outcome, out.run_dir)
    assert again.verdict == CLEAN and again.other_source == {"status": 400, "ok": False}
    verdicts = {r["check"].rsplit("/", 1)[-1]: r["verdict"] for r in rec.rows}
    assert verdicts["data-plane"] == "pass" and verdicts["writes-refused"] == "pass"
    record.judged(run, SimpleNamespace(node=SimpleNamespace(nodeid="t::again", user_properties=[])), out)
    assert checked == [out.run_dir]  # a verdict taken is not taken again


def test_every_broker_and_bookie_registered_in_the_source_must_be_in_the_target(tmp_path):
    """R03 on a topology, from the source's ephemeral paths the run recorded: two bookies registered in the
    source, one of them missing from Oxia, fails; with both in Oxia it passes."""
    out = _outcome(tmp_path)
    out.source_ephemerals = TOPOLOGY + ["/ledgers/available/readonly"]  # a folder, no bookie
    row = _checks(judge.judge(out))["ephemerals-recreated"]
    assert row.ok is False and "1 broker(s), 2 bookie(s)" in row.evidence
    out.oxia_ephemerals = TOPOLOGY
    saved.save(out, tmp_path)
    assert _checks(judge.judge(saved.load(Outcome, tmp_path)))["ephemerals-recreated"].ok is True
