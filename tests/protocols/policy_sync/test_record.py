"""policy-sync's record step (conformance/protocols/policy_sync/record.py, the role client_failover/record.py
has): the scenario runs, then judge.judge's rows of the outcome it saved are recorded (issue 49: a run records;
judges read only the record; tests/harness/test_scenarios_judge_nothing.py scans every package's scenario modules)."""
from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

from pulsar_conformance.conformance.protocols.policy_sync import record, scenario
from pulsar_conformance.conformance.protocols.policy_sync.outcome import Event, Outcome, Policy, Step
from pulsar_conformance.conformance.run import CertifyRun, VerdictUnknown

CLUSTERS = ["alpha", "bravo", "charlie"]


def _written(value, ts, source):
    return Event(index=0, path="/admin/policies/t/ns", kind="Modified", value=value, ts=ts, source=source,
                 expected_version=None)


def _run(tmp_path):
    return CertifyRun(out=tmp_path, profile="policy-sync", seed=1), SimpleNamespace(
        node=SimpleNamespace(nodeid="policy_sync::test", user_properties=[]))


def test_judged_records_the_judges_rows_of_the_outcome_the_scenario_returned(tmp_path, monkeypatch):
    ran = []

    def run(deployment, run_dir, name, clusters, steps, **options):
        ran.append((name, clusters, options))
        events = [_written(1, 100, "alpha"), _written(2, 200, "bravo")]
        return Outcome(name, run_dir, clusters, Policy("t", "ns"), list(steps), [{"ok": True}] * len(steps),
                       dict.fromkeys(clusters, 2), True, {}, {c: events for c in clusters}, judged=options["judged"])

    monkeypatch.setattr(scenario, "run", run)
    certify_run, request = _run(tmp_path)
    out = record.judged(None, certify_run, request, "concurrent", [Step("write", cluster="alpha", value=1)],
                        judged=("converged", "newest-wins"))
    assert ran == [("concurrent", CLUSTERS, {"judged": ("converged", "newest-wins")})] and out.name == "concurrent"
    rows = [json.loads(line) for line in (tmp_path / "checks.jsonl").read_text().splitlines()]
    assert {r["check"]: r["verdict"] for r in rows} == {"policy-sync/concurrent/converged": "pass",
                                                        "policy-sync/concurrent/newest-wins": "pass"}


def test_a_backend_that_cannot_hold_a_link_leaves_the_scenario_unknown(tmp_path, monkeypatch):
    def run(*_args, **_options):
        raise NotImplementedError("this backend cannot cut one way")

    monkeypatch.setattr(scenario, "run", run)
    with pytest.raises(VerdictUnknown, match="held-link: this backend cannot cut one way"):
        record.judged(None, *_run(tmp_path), "held-link", [])
