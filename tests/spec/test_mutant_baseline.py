"""A mutant's kill counts only against a baseline that holds: the unmutated variant, same budget."""
from __future__ import annotations

from pulsar_conformance.spec.core.check import Budget
from pulsar_conformance.spec.core.model import Mutant
from pulsar_conformance.spec.core.mutants import run_mutants
from pulsar_conformance.spec.protocols.client_failover import ClientFailover
from pulsar_conformance.spec.protocols.policy_sync import PolicySync

BUDGET = Budget(depth=8, examples=60, steps=30)


class Misdocumented(PolicySync):
    """as-implemented does not converge (docs/findings.md); pretend it should, and point a mutant at it."""

    MUTANTS = (Mutant("stamp-local-clock", "claims a property its own variant already breaks", ("converges",),
                      "as-implemented"),)

    def expectation(self, decl):
        return "holds" if decl.name == "converges" else super().expectation(decl)


def test_a_kill_of_what_the_baseline_breaks_too_does_not_count():
    report = run_mutants(Misdocumented, BUDGET)
    assert report["baselines"]["as-implemented"]["broke"] == ["converges"], report["baselines"]
    (row,) = report["mutants"]
    # the old code counted this as killed: both engines "broke" converges, as the baseline does
    assert row["killed"] is False and row["baseline_broke"] == ["converges"], row
    assert report["ok"] is False


def test_control_against_a_baseline_that_holds_the_kill_counts():
    # client failover's mutants are the quick ones; the policy-sync pair above is the slow kind
    report = run_mutants(ClientFailover, BUDGET, only="threshold-off-by-one")
    assert report["baselines"]["cpp"]["broke"] == []
    (row,) = report["mutants"]
    assert row["killed"] is True and row["baseline_broke"] == [], row
