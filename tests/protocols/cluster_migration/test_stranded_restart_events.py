"""The recorded stranded-restart run (tests/data/migration/stranded-restart-3.13.0, F-188-11) judged by the
scenario's own judge, for issue 47's one event, one requirement: subscription ``parked``'s backlog left on
blue by its restart failed PIP188-R02 and R04 (their texts) and, through Spark's lost count, the producer
MUST PIP188-R03, whose text (producers re-send what blue did not persist) those messages do not break."""
from __future__ import annotations

import json
from pathlib import Path

from pulsar_conformance.conformance.protocols.cluster_migration import judge, outcome
from pulsar_conformance.conformance.protocols.cluster_migration.checks import CHECKS
from pulsar_conformance.conformance.protocols.cluster_migration.outcome import NamespaceMigrationAnswer
from pulsar_conformance.conformance.run import verdict_of
from pulsar_conformance.reports.bundle.events import failing_events

from .recorded import outcome_of

DATA = Path(__file__).resolve().parents[2] / "data" / "migration" / "stranded-restart-3.13.0"
TOPIC = "persistent://mig/stranded-restart/orders"


def _stranded(verdict: dict | None = None):
    out = outcome_of(outcome.load_run(DATA), "stranded-restart")
    out.verdict = json.loads((DATA / "verdict.json").read_text())  # outcome_of reads the other run's
    parked = next(s for s in judge.with_figures(out).topics[TOPIC].subscriptions if s.name == "parked")
    out.facts = {"topic": TOPIC, "restart": True, "backlog": parked.blue_missing, "restart_s": 7.1}
    out.answers = {"loaded": NamespaceMigrationAnswer("mig/stranded-restart", "loaded", True, None, "ok")}
    if verdict is not None:
        out.verdict = verdict
    return out, parked


def _rows(out) -> dict:
    rows = {r.check: r for r in judge.judge(out)}
    assert not any(r.raised for r in rows.values()), [r.evidence for r in rows.values() if r.raised]
    return rows


def test_the_stranded_backlog_is_one_event_and_not_r03s_failure():
    out, parked = _stranded()
    assert parked.blue_missing == out.verdict["anomalies"]["lost"]["count"] == 207
    rows = _rows(out)
    drained = rows["stranded-restart/parked/backlog-drained"]
    lost = rows["stranded-restart/spark/lost"]
    event = "stranded-restart/parked/backlog-left-on-blue"
    assert drained.ok is False and drained.details["event"] == event  # R02 and R04: their own texts
    assert lost.ok is None and lost.details["event"] == event  # R03: was fail, a second failure of the same event
    assert lost.evidence.startswith("the same event as stranded-restart/parked/backlog-drained (PIP188-R02, PIP188-R04), "
                                    "not a second independent failure"), lost.evidence
    assert f"every one of Spark's {parked.blue_missing} lost messages" in lost.evidence
    # the parked subscription's own drain row shows the same event and breaks R02/R04's texts: it stays failed
    drain = rows["stranded-restart/orders/parked/drained-before-green"]
    assert drain.ok is False and drain.details["same_event_as"].startswith("stranded-restart/parked/backlog-drained")
    recorded = [{"check": r.check, "kind": "deployment", "requirements": CHECKS.requirements(r.check, r.requirements),
                 "verdict": verdict_of(r.ok), "details": r.details} for r in rows.values()]
    events = failing_events(recorded)
    assert list(events) == [event], events  # one event, whatever the rows it fails
    assert not any("PIP188-R03" in r["requirements"] for r in events[event])


def test_a_lost_message_of_another_subscription_keeps_r03s_failure():
    out, parked = _stranded()
    spark = dict(out.verdict, anomalies=dict(out.verdict["anomalies"]))
    spark["anomalies"]["lost"] = dict(spark["anomalies"]["lost"], count=parked.blue_missing + 1)
    lost = _rows(_stranded(spark)[0])["stranded-restart/spark/lost"]
    assert lost.ok is False and "event" not in lost.details
