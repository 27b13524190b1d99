"""Each engine finds what it must, and the two shortest-trace engines agree on the length."""
from __future__ import annotations

import pytest

from pulsar_conformance.spec.core.bmc import bmc, induction, prove_fact
from pulsar_conformance.spec.core.check import Budget, check
from pulsar_conformance.spec.core.explorer import explore
from pulsar_conformance.spec.core.interpreter import replay
from pulsar_conformance.spec.core.machine import run_machine
from pulsar_conformance.spec.core.render import violation_table
from pulsar_conformance.spec.protocols.client_failover import ClientFailover
from pulsar_conformance.spec.protocols.policy_sync import PolicySync


def test_bfs_and_bmc_find_equally_short_counterexamples():
    spec = ClientFailover(variant="cpp", mutant="threshold-off-by-one")
    inv = [spec.invariant("no_early_failover")]
    ex = explore(spec, invariants=inv, stop_at_first=True)
    bm = bmc(spec, depth=8, invariants=inv, stop_at_first=True)
    assert "no_early_failover" in ex.violations and "no_early_failover" in bm.violations
    assert ex.violations["no_early_failover"].length == bm.violations["no_early_failover"].length
    # the counterexample replays in the concrete interpreter and ends in the broken state
    trace = bm.violations["no_early_failover"]
    result = replay(spec, trace.labels)
    assert result.ok and (result.steps, "no_early_failover") in result.broken


def test_hypothesis_shrinks_to_a_replayable_minimal_trace():
    spec = ClientFailover(variant="cpp", mutant="switch-without-probe")
    result = run_machine(spec, examples=200, steps=30, seed=1, invariants=[spec.invariant("switch_only_to_reachable")])
    assert result.violation is not None
    shortest = explore(spec, invariants=[spec.invariant("switch_only_to_reachable")], stop_at_first=True)
    # shrinking gets close to the true minimum (it is not guaranteed to reach it)
    assert result.violation.length <= shortest.violations["switch_only_to_reachable"].length + 2
    assert replay(spec, result.violation.labels).ok


def test_same_seed_same_result():
    spec = ClientFailover(variant="cpp", mutant="first-secondary-only")
    inv = [spec.invariant("bounded_failover")]
    a = run_machine(spec, examples=100, steps=30, seed=7, invariants=inv)
    b = run_machine(spec, examples=100, steps=30, seed=7, invariants=inv)
    # the mutant is killed, so both runs must find it: a run finding nothing proves no determinism
    assert a.violation is not None and b.violation is not None
    assert a.violation.labels == b.violation.labels


def test_correct_spec_passes_and_induction_holds():
    report = check(ClientFailover(variant="cpp"), budget=Budget(depth=6, examples=50, steps=30))
    assert report.ok, report.to_text()
    assert all(r.inductive for r in report.induction)


def test_induction_fails_for_a_mutant_that_breaks_an_inductive_invariant():
    spec = ClientFailover(variant="cpp", mutant="switch-without-probe")
    results = {r.invariant: r for r in induction(spec)}
    assert not results["switch_only_to_reachable"].consecution
    assert results["switch_only_to_reachable"].counterexample.labels == ["tick"]


def test_replay_rejects_a_step_the_spec_does_not_allow():
    spec = ClientFailover(variant="cpp")
    result = replay(spec, ["go_down(c=primary)", "go_down(c=primary)"])
    assert not result.ok and result.steps == 1 and "not enabled" in result.problem


def test_counterexample_table_names_actions_and_marks_changes():
    spec = ClientFailover(variant="java")
    ex = explore(spec, invariants=[spec.invariant("escape_dead_secondary")], stop_at_first=True)
    table = violation_table(spec, ex.violations["escape_dead_secondary"])
    assert "go_down(c=primary)" in table and "tick" in table and "*s1" in table


def test_policy_sync_facts_split_the_variants():
    proposed, implemented = PolicySync(variant="as-proposed"), PolicySync(variant="as-implemented")
    for name in ("order_is_total", "merge_is_commutative"):
        assert prove_fact(proposed, next(f for f in proposed.facts if f.name == name)).proved
        refuted = prove_fact(implemented, next(f for f in implemented.facts if f.name == name))
        assert not refuted.proved and refuted.counterexample


def test_policy_sync_as_implemented_diverges():
    spec = PolicySync(variant="as-implemented")
    bm = bmc(spec, depth=8, invariants=[spec.invariant("converges")], stop_at_first=True)
    assert "converges" in bm.violations


def test_java_delays_in_probes_are_derived_from_the_model():
    figures = ClientFailover(variant="java", CHECK_INTERVAL_MS=400, FAILOVER_DELAY_MS=1000).describe_constants()
    # apache/pulsar#25326's example: interval 400 ms, delay 1000 ms -> 1 + ceil(1000/400) = 4 probes
    assert figures["failed_probes_until_failover"] == 4


@pytest.mark.parametrize("bad", [{"variant": "nope"}, {"mutant": "nope"}, {"NOPE": 1}])
def test_bad_configuration_is_refused(bad):
    with pytest.raises(ValueError):
        ClientFailover(**bad)
