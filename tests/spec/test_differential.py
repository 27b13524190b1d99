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
from pulsar_conformance.spec.protocols.client_failover import ClientFailover
from pulsar_conformance.spec.protocols.cluster_migration import ClusterMigration
from pulsar_conformance.spec.protocols.policy_sync import PolicySync
from pulsar_conformance.spec.protocols.tenant_migration import TenantMigration

from .conftest import state_strategy

SPECS = [
    ClientFailover(variant="cpp"),
    ClientFailover(variant="java"),
    ClientFailover(variant="controlled"),
    ClientFailover(variant="java", mutant="bug-14442-unguarded-switch-back-check"),
    PolicySync(variant="as-proposed"),
    PolicySync(variant="as-implemented"),
    PolicySync(variant="as-proposed", mutant="delete-without-tombstone"),
    ClusterMigration(variant="auto-create"),
    ClusterMigration(variant="no-auto-create"),
    ClusterMigration(variant="auto-create", mutant="reorder-pending-on-redirect"),
    TenantMigration(variant="markdelete-only"),
    TenantMigration(variant="with-individual-acks"),
    TenantMigration(variant="with-individual-acks", mutant="copy-acks-up-to-markdelete"),
]


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: f"{s.name}-{s.variant}-{s.mutant or 'ok'}")
def test_z3_and_concrete_agree_on_random_states(spec):
    enc = Encoding(spec)
    post = enc.state("post")

    @settings(max_examples=25, deadline=None, database=None, suppress_health_check=list(HealthCheck))
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
