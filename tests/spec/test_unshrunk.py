"""Hypothesis without shrinking (mutant kills, CI's --no-shrink) still reports a real violation."""
from __future__ import annotations

from pulsar_conformance.spec.core.interpreter import replay
from pulsar_conformance.spec.core.machine import run_machine
from pulsar_conformance.spec.protocols.policy_sync import PolicySync


def test_an_unshrunk_failure_is_a_real_violation_that_replays():
    # stamp-local-clock: found in under a second, shrinking it took almost three minutes
    spec = PolicySync(variant="as-proposed", mutant="stamp-local-clock")
    inv = [spec.invariant("converges")]
    found = run_machine(spec, examples=150, steps=40, seed=0, invariants=inv, shrink=False)
    assert found.violation is not None and found.violation.invariant == "converges"
    result = replay(spec, found.violation.labels)
    assert result.ok and (result.steps, "converges") in result.broken
    assert found.examples < 150  # it stopped at the failure instead of searching on


def test_without_shrinking_the_correct_spec_still_holds():
    spec = PolicySync(variant="as-proposed")
    found = run_machine(spec, examples=40, steps=30, seed=0, invariants=[spec.invariant("converges")], shrink=False)
    assert found.violation is None and found.examples == 40
