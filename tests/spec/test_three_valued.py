"""A spec check has three outcomes: a search cut short, or a z3 "unknown", is neither a pass nor a kill."""
from __future__ import annotations

import json
import subprocess
import sys

from pulsar_conformance.spec.core import mutants
from pulsar_conformance.spec.core.bmc import FactResult
from pulsar_conformance.spec.core.check import Budget, check
from pulsar_conformance.spec.protocols.client_failover import ClientFailover
from pulsar_conformance.spec.protocols.cluster_migration import ClusterMigration
from pulsar_conformance.spec.protocols.policy_sync import PolicySync


def _check(*args):
    done = subprocess.run([sys.executable, "-m", "pulsar_conformance", "spec", "check", *args, "--json"],
                          capture_output=True, text=True, timeout=600, check=False)
    return done.returncode, json.loads(done.stdout)


def test_a_search_cut_short_by_its_time_budget_is_unknown_exit_2():
    # the old Report.ok said PASS here: nothing expected to hold was broken in the little it searched
    rc, doc = _check("cluster-migration", "--depth", "10", "--examples", "5", "--steps", "10", "--max-seconds", "0.5")
    assert rc == 2 and doc["status"] == "unknown" and doc["ok"] is False, doc["budget_short"]
    assert any("z3 BMC reached depth" in s and "of 10" in s for s in doc["budget_short"]), doc["budget_short"]


def test_control_the_same_check_within_its_budget_passes():
    rc, doc = _check("client-failover", "--depth", "5", "--examples", "20", "--max-seconds", "300")
    assert rc == 0 and doc["status"] == "pass" and doc["budget_short"] == []


def test_a_broken_property_fails_whatever_the_budget():
    spec = ClusterMigration(mutant="append-after-terminate")
    # BMC finds the broken invariant in a few depths, then runs out of time long before depth 60
    report = check(spec, ("z3",), Budget(depth=60, max_seconds=5))
    assert report.budget_short() and "no_write_after_termination" in report.violations
    assert report.status == "fail", report.to_text()


def test_z3_unknown_on_a_fact_is_no_pass(monkeypatch):
    from pulsar_conformance.spec.core import check as check_module

    monkeypatch.setattr(check_module, "prove_fact", lambda spec, decl: FactResult(decl.name, "unknown", {"z3": "unknown"}))
    report = check(PolicySync(variant="as-proposed"), ("z3",), Budget(depth=2))
    assert report.status == "unknown" and any("could not decide fact" in s for s in report.budget_short())


def test_z3_unknown_on_a_fact_is_no_kill(monkeypatch):
    class OneMutant(PolicySync):
        MUTANTS = tuple(m for m in PolicySync.MUTANTS if m.name == "winner-is-oldest")

    (row,) = mutants.run_mutants(OneMutant, Budget(depth=4, examples=30, steps=20))["mutants"]
    assert "newest_wins" in row["z3"]["broke"]  # control: z3 refutes the mutant's fact
    monkeypatch.setattr(mutants, "prove_fact", lambda spec, decl: FactResult(decl.name, "unknown", {"z3": "unknown"}))
    (row,) = mutants.run_mutants(OneMutant, Budget(depth=4, examples=30, steps=20))["mutants"]
    assert "newest_wins" not in row["z3"]["broke"], row  # the old code counted "not proved" as a kill


def test_client_failover_default_report_is_three_valued():
    report = check(ClientFailover(), ("explore",), Budget(max_states=100_000))
    assert report.status == "pass" and report.to_json()["status"] == "pass"
