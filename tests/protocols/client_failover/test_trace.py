"""Trace validation of PIP-121 runs (conformance/protocols/client_failover/trace.py): what a real client did,
projected onto the client-failover spec with the check interval bounding the hidden checks. A
good run is a behaviour; a switch before the threshold, to a cluster that is down, or to the
second secondary while the first is up, is not."""
from __future__ import annotations

import pytest

from pulsar_conformance.conformance.protocols.client_failover.client import FailoverConfig
from pulsar_conformance.conformance.protocols.client_failover.trace import Event, validate_events

CONFIG = FailoverConfig("primary", ("s1", "s2"), interval_ms=200, failover_threshold=3, switch_back_threshold=3)
S = 1_000_000_000


def at(seconds: float) -> int:
    return int(seconds * S)


GOOD = [Event(at(1.0), "down", "primary"), Event(at(1.66), "switch", "s1", "primary"),
        Event(at(5.0), "up", "primary"), Event(at(5.65), "switch", "primary", "s1")]


def test_a_run_as_the_client_should_behave_is_a_behaviour_of_the_spec():
    result = validate_events(GOOD, CONFIG, 0)
    assert result.ok, result.problem
    assert result.hidden_steps >= 4  # two failed and two ok probes before the switches, at least


@pytest.mark.parametrize(("events", "why"), [
    # failed over 0.25 s after the primary went down: one check at most, three needed
    ([Event(at(1.0), "down", "primary"), Event(at(1.25), "switch", "s1", "primary")], "before the threshold"),
    # switched back 0.3 s after the primary came up: three ok probes need 0.4 s at least
    ([*GOOD[:3], Event(at(5.3), "switch", "primary", "s1")], "switch-back before the threshold"),
    # went to s1, which was down
    ([Event(at(0.5), "down", "s1"), Event(at(1.0), "down", "primary"), Event(at(1.8), "switch", "s1", "primary")],
     "to a cluster that is down"),
    # went to s2 while s1, first in the list, was up
    ([Event(at(1.0), "down", "primary"), Event(at(1.8), "switch", "s2", "primary")], "not the first reachable"),
    # switched with the primary up all along
    ([Event(at(3.0), "switch", "s1", "primary")], "without a failure"),
])
def test_a_corrupted_run_is_rejected(events, why):
    result = validate_events(events, CONFIG, 0)
    assert not result.ok, why
    assert "tick" in result.problem and "client" in result.problem, result.problem
