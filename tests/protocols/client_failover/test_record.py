"""A failover scenario saves what it observed, judged by nothing (issue 49: a run records; judges read only
the record): its outcome's Spark verdict and trace validation are None until record.py's ``recorded``
derives them from the run directory and saves the outcome and the report's failover.json again; the judge
then gives the same rows from the live outcome and from the saved one. No scenario module imports a judge."""
from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

from pulsar_conformance.conformance.harness import afterwards, evidence, timeline
from pulsar_conformance.conformance.harness import outcome as saved
from pulsar_conformance.conformance.protocols.client_failover import judge, record, scenario, trace
from pulsar_conformance.conformance.protocols.client_failover.outcome import Event, Outcome

S = 1_000_000_000
T0 = 1_700_000_000 * S


def _scenario(run_dir: Path) -> Outcome:
    """failover-switch-back as scenario.run ends it: the primary killed and started, the client away and back."""
    faults = scenario.Faults(SimpleNamespace(), timeline.Timeline("failover-switch-back"))
    faults.events = [Event(T0 + 2 * S, "down", "primary"), Event(T0 + 5 * S, "up", "primary")]
    client = SimpleNamespace(switches=lambda: [(T0 + 2_700_000_000, "primary", "s1"),
                                               (T0 + 5_700_000_000, "s1", "primary")])
    return scenario._outcome("failover-switch-back", run_dir, record.CONFIG, faults, client, T0, [], [], False,
                             backlogs={c: {"uids": [], "complete": True, "msg_backlog": 0} for c in ("primary", "s1", "s2")})


def _spark(verdicts: list):
    def spark_verdict(run_dir, columns=None, *, name=""):
        verdict = {"valid": True, "events": len(columns["kind"]), "anomalies": {"duplicate": {"count": 0}}}
        verdicts.append(name)
        (Path(run_dir) / afterwards.VERDICT_FILE).write_text(json.dumps(verdict))
        return verdict
    return spark_verdict


def _refused(*_args, **_kwargs):
    raise AssertionError("a scenario judged what it ran")


def test_the_scenario_saves_its_outcome_with_nothing_judged(tmp_path, monkeypatch):
    for module, name in ((evidence, "spark_verdict"), (afterwards, "spark_verdict"), (timeline, "spark_verdict"),
                         (trace, "validation"), (trace, "validate_events")):
        monkeypatch.setattr(module, name, _refused)
    out = _scenario(tmp_path)
    assert out.verdict is None and out.validation is None
    assert saved.load(Outcome, tmp_path).verdict is None
    assert json.loads((tmp_path / "failover.json").read_text())["trace"] is None
    assert not (tmp_path / "verdict.json").exists()  # record.py's afterwards.spark_verdict writes it


def test_the_record_step_derives_the_verdict_and_the_validation_and_saves_them(tmp_path, monkeypatch):
    checked: list[str] = []
    monkeypatch.setattr(afterwards, "spark_verdict", _spark(checked))
    out = record.recorded(_scenario(tmp_path))
    assert checked == ["failover-switch-back"]  # Spark once, after the scenario, named after it
    assert out.verdict["valid"] is True and out.validation is not None and out.validation.ok
    back = saved.load(Outcome, tmp_path)
    assert back.verdict == out.verdict == json.loads((tmp_path / "verdict.json").read_text())
    doc = json.loads((tmp_path / "failover.json").read_text())
    assert doc["trace"]["ok"] is True and doc["trace"]["hidden_steps"] == out.validation.hidden_steps
    markers = json.loads((tmp_path / "markers.json").read_text())
    assert [m["label"] for m in markers] == ["client primary -> s1", "client s1 -> primary"]
    # the judge reads the saved outcome as the live one: the validation computed again from its events
    assert judge.judge(back) == judge.judge(out)


def test_a_run_without_a_capture_is_not_checked_by_spark(tmp_path, monkeypatch):
    """credentials.run has no capture: its verdict is {}, and the record step runs no Spark and rewrites nothing."""
    monkeypatch.setattr(afterwards, "spark_verdict", _refused)
    out = Outcome("credentials-on-switch", tmp_path, record.CONFIG, T0, [Event(T0 + S, "down", "primary")], [], {},
                  0, [], [])
    assert record.recorded(out).validation is not None and not (tmp_path / "failover.json").exists()


def test_an_outcome_spark_never_judged_leaves_r11_unknown(tmp_path):
    """A run saved before its record step (the scenario's outcome, verdict None): judged again, nothing
    acknowledged lost is unknown, never a pass, and no row raises."""
    events = [Event(T0 + 2 * S, "down", "primary"), Event(T0 + 2_700_000_000, "switch", "s1", "primary"),
              Event(T0 + 5 * S, "up", "primary"), Event(T0 + 5_700_000_000, "switch", "primary", "s1")]
    out = Outcome("failover-switch-back", tmp_path, record.CONFIG, T0, events, [], None, 0, [], [],
                  columns={"kind": [], "uid": [], "ts_ns": []})
    rows = judge.judge(out)
    lost = next(r for r in rows if r.check.endswith("/nothing-acknowledged-lost"))
    assert lost.ok is None and "Spark could not judge" in lost.evidence
    assert not any(r.raised for r in rows)
