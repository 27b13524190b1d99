"""``certify --profile policy-sync`` on three real clusters with metadata sync (issue 15): every
PIP136 requirement gets a verdict from the clusters, each scenario records each cluster's value
over time, and the spec's counterexample replayed on the brokers diverges as the spec predicts.

The spec checks and mutants of the profile are the spec env's job (``spec ci``); this run narrows
the profile to its live scenarios. The verdicts' teeth are in test_judge.py (each one seen
failing on a made-up outcome)."""
from __future__ import annotations

import json

import pytest

from ...support.certify import certify

pytestmark = [pytest.mark.pulsar]


def test_every_pip136_requirement_gets_a_verdict_from_real_clusters(tmp_path):
    out = tmp_path / "bundle"
    code, summary = certify(out, "policy-sync", timeout=1200)
    rows = {r["id"]: r for r in summary["requirements"]}
    declared = summary["declared"]
    assert sorted(declared) == [f"PIP136-R0{i}" for i in range(1, 8)]
    undecided = {rid: rows[rid]["verdict"] for rid in declared if rows[rid]["verdict"] not in ("pass", "fail")}
    assert not undecided, undecided
    # Pulsar 4.2.4 as measured (docs/findings.md F-136-2..5): the clusters diverge, the tie goes to
    # the larger name; redeliveries change nothing, the event is published before the local write
    assert code == 1
    assert {rid: rows[rid]["verdict"] for rid in declared} == {
        "PIP136-R01": "fail", "PIP136-R02": "fail", "PIP136-R03": "fail", "PIP136-R04": "pass",
        "PIP136-R05": "pass", "PIP136-R06": "pass", "PIP136-R07": "pass"}
    checks = [json.loads(line) for line in (out / "checks.jsonl").read_text().splitlines()]
    replayed = next(c for c in checks if c["check"] == "policy-sync/replay/converged")
    assert replayed["verdict"] == "fail" and replayed["details"]["matches_spec"] is True
    assert "the divergence the spec predicts" in replayed["evidence"]
    # each scenario's values over time, per cluster, beside its capture
    markers = json.loads((out / "captures" / "held-link" / "markers.json").read_text())
    held = {m["cluster"] for m in markers if "cluster" in m}
    assert held == {"alpha", "bravo", "charlie"}
    assert "Policy values over time" in (out / "report.html").read_text()
