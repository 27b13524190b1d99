"""The z3 encoding and the concrete interpreter agree on every guard, effect and invariant.

Both are derived from the same methods, but through different kits (backend.py) and the
z3 side adds domains and frame conditions (symbolic.py): this is where they could drift.
"""
from __future__ import annotations

import pytest
import z3
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pulsar_conformance.spec.core.backend import CONCRETE
from pulsar_conformance.spec.core.interpreter import apply
from pulsar_conformance.spec.core.symbolic import Encoding
from pulsar_conformance.spec.registry import SPECS

from .conftest import state_strategy

# every spec the protocol descriptors name, each variant and each mutant (in its own variant): a
# spec or a mutant added later is covered without editing this list
VARIANTS = [(cls, variant, None) for cls in SPECS.values() for variant in cls.VARIANTS]
MUTANTS = [(cls, m.variant, m.name) for cls in SPECS.values() for m in cls.MUTANTS]
# a mutant changes a guard or an effect or two of its variant: fewer random states find a drift there
EXAMPLES = {"variant": 25, "mutant": 10}


def _id(case) -> str:
    cls, variant, mutant = case
    return f"{cls.name}-{variant or cls.DEFAULT_VARIANT}-{mutant or 'ok'}"


@pytest.mark.parametrize("case", VARIANTS + MUTANTS, ids=_id)
def test_z3_and_concrete_agree_on_random_states(case):
    cls, variant, mutant = case
    agree(cls(variant=variant, mutant=mutant), EXAMPLES["mutant" if mutant else "variant"])


def test_every_spec_of_the_descriptors_is_covered():
    """The lists above come from the registry, which comes from the descriptors: nothing to forget."""
    from pulsar_conformance.protocols import PROTOCOLS

    covered = {cls.name for cls, _, _ in VARIANTS}
    assert covered == {p.area for p in PROTOCOLS if p.spec} and "metadata-migration" in covered
    assert len(MUTANTS) == sum(len(cls.MUTANTS) for cls in SPECS.values())


def agree(spec, examples: int = 25) -> None:
    """On ``examples`` random states (reachable or not): every ground action enabled in the one
    reading iff in the other, with the same unique successor, and every invariant the same."""
    enc = Encoding(spec)
    post = enc.state("post")

    @settings(max_examples=examples, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(state=state_strategy(spec), data=st.data())
    def agree(state, data):
        pre = enc.constant_state(state)
        for ground in spec.ground_actions:
            expected = apply(spec, state, ground)
            solver = z3.Solver()
            solver.add(*enc.domains(post), enc.ground_step(ground, pre, post))
            answer = solver.check()
            label = ground.label(spec)
            if expected is None:
                assert answer == z3.unsat, f"{label}: concrete says disabled, z3 finds a successor in {state}"
                continue
            assert answer == z3.sat, f"{label}: concrete says enabled, z3 finds no successor in {state}"
            got = enc.read_state(solver.model(), post)
            assert got == expected, f"{label}: effects differ\nconcrete {expected}\nz3       {got}"
            # and the successor is unique: the encoding leaves no variable unconstrained
            solver.add(z3.Or(*[z3.Not(c) for c in _equalities(enc.constant_state(expected), post)]))
            assert solver.check() == z3.unsat, f"{label}: z3 allows a second successor"
        for inv in spec.invariants:
            concrete = bool(inv.method(state, CONCRETE))
            symbolic = z3.simplify(z3.BoolVal(True) if (v := enc.invariant(inv, pre)) is True else v)
            assert z3.is_true(symbolic) == concrete, f"invariant {inv.name} differs on {state}"

    agree()


def _equalities(a, b):
    out = []
    for x, y in zip(a, b, strict=True):
        if isinstance(x, tuple):
            out += _equalities(x, y)
        else:
            out.append(x == y)
    return out
