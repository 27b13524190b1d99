"""The projector interface (conformance/harness/projection.py): a projection that is a behaviour
of the spec passes, one that is not fails, and an invariant the variant documents as broken is
not turned into a new finding."""
from __future__ import annotations

from pulsar_conformance.conformance.harness import projection
from pulsar_conformance.spec.core.interpreter import Observed
from pulsar_conformance.spec.protocols.client_failover import ClientFailover


def test_a_behaviour_passes_and_a_step_the_spec_forbids_fails():
    spec = ClientFailover()
    quiet = lambda before, after: before.current == after.current  # noqa: E731
    ok = projection.check(projection.Projected(spec, [Observed("go_down(c=primary)"), Observed("tick")],
                                               hidden=("tick",), quiet=quiet, max_hidden=4))
    assert ok.ok
    # a switch with the primary up and no failed probe is no behaviour of the spec
    bad = projection.check(projection.Projected(
        spec, [Observed("tick", check=lambda b, a: b.current != a.current)], hidden=("tick",), quiet=quiet, max_hidden=0))
    assert not bad.ok and bad.problem


def test_unobserved_lists_every_action_the_capture_cannot_see():
    spec = ClientFailover()
    assert set(projection.unobserved(spec, ["tick"])) == {a.name for a in spec.actions} - {"tick"}
