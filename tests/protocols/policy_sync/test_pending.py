"""What counts as an event still to consume on a cluster (scenario._unconsumed): not one its synchronizer was
delivered and failed to apply, which 4.2.4 never acknowledges nor redelivers (the delete-race scenario
never settled for it)."""
from __future__ import annotations

from pulsar_conformance.conformance.protocols.policy_sync import scenario
from pulsar_conformance.fixtures.deploy.metadata_sync import SUBSCRIPTION


def _stats(backlog: int, unacked: int) -> dict:
    return {"subscriptions": {SUBSCRIPTION: {"msgBacklog": backlog, "unackedMessages": unacked}}}


def test_events_delivered_and_never_acknowledged_are_not_pending():
    assert scenario._unconsumed(_stats(3, 3)) == 0  # three failed applies: settled
    assert scenario._unconsumed(_stats(5, 3)) == 2  # two not delivered yet: pending
    assert scenario._unconsumed(_stats(0, 0)) == 0
    assert scenario._unconsumed({}) == 0  # no subscription yet: nothing the stats can say
    assert scenario._unacknowledged(_stats(5, 3)) == 3
