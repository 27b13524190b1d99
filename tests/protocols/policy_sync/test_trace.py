"""Counterexample -> scenario: the spec's shortest trace maps onto real operations, the realized
order is still a behaviour of the spec with the same final state, and a trace no real deployment
can follow is refused with its reason (a replay that cannot run is never a pass)."""
from __future__ import annotations

import pytest

from pulsar_conformance.conformance.protocols.policy_sync import trace as replay

REAL = ["charlie", "alpha", "bravo"]  # mapped in name order, whatever order they are listed in


def test_the_shortest_counterexample_maps_onto_writes_and_released_links():
    trace = replay.counterexample("as-implemented", "converges")
    assert len(trace) == 8 and trace[:2] == ["put(c=a)", "put(c=a)"]
    plan = replay.plan(trace, REAL)
    assert plan.clusters == {"a": "alpha", "b": "bravo", "c": "charlie"}
    shown = [s.show() for s in plan.steps]
    assert shown[:2] == ["write 1 at alpha", "write 2 at alpha"]
    assert "release alpha -> bravo" in shown and "release alpha -> charlie" in shown
    assert all(s.op == "hold" for s in plan.setup[:-1]) and plan.setup[-1].op == "freeze"
    # what ran is a behaviour of the spec, ending where the trace ends: a holds 2, b and c 1
    ok, final, _ = replay.predict("as-implemented", plan.realized)
    assert ok and final == replay.predict("as-implemented", trace)[1] == {"a": 2, "b": 1, "c": 1}
    # the PIP's rule does not even allow it (two writes of one cluster in one tick)
    assert replay.predict("as-proposed", plan.realized)[0] is False
    assert any("own event" in m for m in plan.moved)


def test_clock_ticks_freeze_one_cluster_further():
    plan = replay.plan(["clock_tick(c=b)", "put(c=b)", "deliver(e=e0, c=a)"], REAL)
    assert plan.steps[0].op == "freeze" and plan.steps[0].clocks == (("bravo", 1),)


@pytest.mark.parametrize("trace,why", [
    (["put(c=a)", "put(c=a)", "deliver(e=e1, c=b)"], "FIFO"),
    (["put(c=a)", "deliver(e=e0, c=b)", "deliver(e=e0, c=b)"], "redelivery"),
    (["put(c=a)", "put(c=a)", "deliver(e=e0, c=b)", "put(c=b)", "deliver(e=e1, c=b)"], "before it delivers"),
    (["deliver(e=e0, c=b)"], "never written"),
])
def test_a_trace_a_deployment_cannot_follow_is_refused(trace, why):
    with pytest.raises(replay.NotReplayable, match=why):
        replay.plan(trace, REAL)


def test_the_spec_clusters_follow_the_names_pulsar_compares_not_the_roles():
    """On an external deployment the roles are other clusters' names: the tie-break compares the clusters'
    own names (us-east, us-west, eu-central), so spec cluster a is the role whose cluster sorts first."""
    names = {"alpha": "us-east", "bravo": "us-west", "charlie": "eu-central"}
    trace = replay.counterexample("as-implemented", "converges")
    plan = replay.plan(trace, ["alpha", "bravo", "charlie"], name=names.get)
    assert plan.clusters == {"a": "charlie", "b": "alpha", "c": "bravo"}
    assert plan.steps[0].cluster == "charlie"  # put(c=a): written at eu-central, the smallest name
