"""cluster-migration: incoming replication from a remote region across the blue-green switch.

The CI budget (tox.ini [testenv:spec]) checks the spec by BMC to depth 10; these tests show that
this depth reaches the states the incoming-replication invariants are about (remote messages
delivered from blue and from green, a copy blue refused resent on green and delivered), and
that the witnesses z3 finds are behaviours of the concrete interpreter too.
"""
from __future__ import annotations

import pytest
import z3

from pulsar_conformance.spec.core.backend import CONCRETE
from pulsar_conformance.spec.core.explorer import explore
from pulsar_conformance.spec.core.interpreter import initial_state, replay
from pulsar_conformance.spec.core.model import InvariantDecl
from pulsar_conformance.spec.core.symbolic import Encoding, as_bool
from pulsar_conformance.spec.protocols.cluster_migration import BLUE, GREEN, ClusterMigration

CI_DEPTH = 10  # tox.ini [testenv:spec]: spec check/mutants cluster-migration --depth 10


def _got_from_blue(spec, s, k, entry):
    return k.AnyOf([k.And(j < s.blue_cursor, k.at(s.blue, j) == entry) for j in range(spec.CAP)])


def _got_from_green(spec, s, k, entry):
    return k.AnyOf([k.And(s.green_sub, j >= s.green_sub_start, j < s.green_cursor, k.at(s.green, j) == entry)
                     for j in range(spec.CAP)])


def _crossed(spec):
    """Remote message 1 delivered from blue and remote message 2 from green."""
    m = spec.MESSAGES
    return lambda s, k: k.And(_got_from_blue(spec, s, k, m + 1), _got_from_green(spec, s, k, m + 2))


def _reach(spec, depth, final, along=None):
    """A behaviour of at most ``depth`` steps ending where ``final`` holds, passing through a
    state where ``along`` holds (z3, one query: ``policy_sync`` is a no-op step, so "exactly
    depth" covers "at most depth"). Returns the labels, or None when there is none."""
    enc = Encoding(spec)
    states = [enc.state(str(i)) for i in range(depth + 1)]
    acts = [z3.Int(f"act@{i}") for i in range(depth)]
    solver = z3.Solver()
    solver.add(*enc.init(states[0]), *(c for s in states for c in enc.domains(s)))
    solver.add(*(enc.step(a, b, act) for a, b, act in zip(states, states[1:], acts, strict=False)))
    solver.add(as_bool(final(states[-1], enc.kit)))
    if along is not None:
        solver.add(z3.Or(*(as_bool(along(s, enc.kit)) for s in states)))
    if solver.check() != z3.sat:
        return None
    model = solver.model()
    return [spec.ground_actions[model.eval(a, model_completion=True).as_long()].label(spec) for a in acts]


@pytest.mark.parametrize("variant", ["auto-create", "no-auto-create"])
def test_ci_depth_reaches_remote_messages_delivered_from_both_sides_of_the_switch(variant):
    spec = ClusterMigration(variant=variant)
    labels = _reach(spec, CI_DEPTH, _crossed(spec))
    assert labels is not None, f"BMC depth {CI_DEPTH} does not reach a remote message delivered from each side"
    result = replay(spec, labels)
    assert result.ok and result.broken == [], result.problem
    final = result.states[-1]
    assert _crossed(spec)(final, CONCRETE) and final.sside == GREEN and final.in_side == GREEN
    # the explorer agrees on the shortest such behaviour: exactly the CI depth, so it must not drop
    witness = InvariantDecl("not_crossed", lambda s, k: k.Not(_crossed(spec)(s, k)), "", None, frozenset(), False)
    shortest = explore(spec, invariants=[witness], stop_at_first=True).violations["not_crossed"]
    assert shortest.length == CI_DEPTH
    assert _reach(spec, CI_DEPTH - 1, _crossed(spec)) is None


def test_ci_depth_reaches_a_refused_copy_resent_on_green_and_delivered():
    """Blue refuses remote message 1 (topic terminated); after TopicMigrated the replicator
    resends it to green, where the subscription gets it."""
    spec = ClusterMigration()
    m = spec.MESSAGES
    refused = lambda s, k: k.And(s.in_refused, s.in_next == 1, s.in_side == BLUE)  # noqa: E731
    delivered = lambda s, k: _got_from_green(spec, s, k, m + 1)  # noqa: E731
    labels = _reach(spec, CI_DEPTH, delivered, along=refused)
    assert labels is not None
    result = replay(spec, labels)
    assert result.ok and result.broken == []
    assert any(s.in_refused for s in result.states) and delivered(result.states[-1], CONCRETE)
    assert "replicator_redirect" in labels


def test_the_refused_copy_keeps_its_place_in_the_remote_order():
    """Remote message 1 on blue, 2 refused there, resent on green after the redirect: the
    subscription gets 1 then 2, and nothing the replicator had acknowledged is lost."""
    spec = ClusterMigration()
    m = spec.MESSAGES
    labels = ["remote_write", "remote_write", "replicate_in", "admin_migrate", "migration_task",
              "replicate_in", "replicator_redirect", "replicate_in", "consume", "consumer_redirect", "consume"]
    result = replay(spec, labels)
    assert result.ok and result.broken == [], result.problem
    after_refusal = result.states[6]
    assert after_refusal.in_refused and after_refusal.blue_len == 1 and after_refusal.in_next == 2
    final = result.states[-1]
    assert final.blue[:final.blue_len] == (m + 1,) and final.green[:final.green_len] == (m + 2,)
    assert final.g_max_remote_delivered == 2 and not final.g_remote_out_of_order
    # the reordering mutant sends the refused copy after the next one: out of order on green
    mutant = ClusterMigration(mutant="incoming-replicator-reorders-on-redirect")
    bad = ["remote_write", "remote_write", "admin_migrate", "migration_task", "replicate_in",
           "replicator_redirect", "replicate_in", "consumer_redirect", "consume", "consume"]
    broken = replay(mutant, bad)
    assert broken.ok and (len(bad), "incoming_order") in broken.broken
    assert broken.states[-1].green[:2] == (m + 2, m + 1)


def test_without_a_remote_source_the_spec_is_the_local_one():
    """REMOTE=0 (trace validation of a local producer): logs of MESSAGES slots and no incoming
    replication step is ever enabled."""
    spec = ClusterMigration(MESSAGES=2, REMOTE=0)
    init = initial_state(spec)
    assert init.blue == (0, 0) and init.green == (0, 0)
    incoming = {"remote_write", "replicate_in", "replicator_redirect"}
    seen = set()
    result = explore(spec, on_state=seen.add)
    assert result.complete and not result.violations and len(seen) == result.distinct_states
    for state in seen:
        for ground in spec.ground_actions:
            if ground.decl.name in incoming:
                guard, _ = ground.decl.method(state, CONCRETE, *ground.args)
                assert not guard, (ground.decl.name, state)
