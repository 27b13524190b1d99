"""Trace validation of PIP-121 runs (conformance/protocols/client_failover/trace.py): what a real client did,
projected onto the client-failover spec with the check interval bounding the hidden checks. A
good run is a behaviour; a switch before the threshold, to a cluster that is down, or to the
second secondary while the first is up, is not."""
from __future__ import annotations

import pytest

from pulsar_conformance.conformance.protocols.client_failover.outcome import Event, FailoverConfig
from pulsar_conformance.conformance.protocols.client_failover.trace import validate_events

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


# ---- the Java client: the spec's java variant (delays at fixed-rate checks) and controlled variant.
# Observed steps recorded from the real Java client 4.2.4 on Pulsar 4.2.4 (checks every 500 ms,
# failoverDelay 2800 ms, switchBackDelay 5000 ms; docs/client-failover.md), seconds from its start.
JAVA = FailoverConfig("primary", ("s1", "s2"), interval_ms=500, variant="java", failover_delay_ms=2800,
                      switch_back_delay_ms=5000)
CONTROLLED = FailoverConfig("primary", ("s1", "s2"), interval_ms=500, variant="controlled")


def events(*steps) -> list[Event]:
    return [Event(at(t), kind, cluster, *origin) for t, kind, cluster, *origin in steps]


JAVA_KILL_PRIMARY = events((3.593, "down", "primary"), (7.002, "switch", "s1", "primary"),
                           (10.102, "up", "primary"), (15.507, "switch", "primary", "s1"))
# F-121-1 then F-121-2: after the switch-back the primary died again and the client left it after
# 1.0 s (2 failed probes); later it stayed 7 s on the dead s2 while s1 answered
JAVA_STALE_FAILURE = events(
    (2.408, "down", "primary"), (5.502, "switch", "s1", "primary"), (8.352, "up", "primary"), (11.852, "down", "s1"),
    (14.002, "switch", "primary", "s1"), (14.003, "down", "primary"), (15.002, "switch", "s2", "primary"),
    (16.994, "up", "s1"), (18.978, "down", "s2"), (25.998, "up", "primary"), (26.002, "switch", "primary", "s2"),
    (29.472, "up", "s2"))
# the same with Java client 3.0.7: 8 checks fit between the primary coming up (+8.841) and s1 going
# down (+12.641), one more than floor(3.8 s / 0.5 s); a budget that allowed only 7 rejected this run
JAVA_3_0_7_STALE_FAILURE = events(
    (2.394, "down", "primary"), (5.504, "switch", "s1", "primary"), (8.841, "up", "primary"), (12.641, "down", "s1"),
    (14.004, "switch", "primary", "s1"), (14.004, "down", "primary"), (16.004, "switch", "s2", "primary"),
    (19.26, "up", "s1"), (21.697, "down", "s2"), (29.393, "up", "primary"), (29.504, "switch", "primary", "s2"),
    (34.634, "up", "s2"))
JAVA_CONTROLLED = events((2.402, "point", "s1"), (2.513, "switch", "s1", "primary"), (5.402, "point", "primary"),
                         (5.508, "switch", "primary", "s1"))


@pytest.mark.parametrize(("config", "observed"), [(JAVA, JAVA_KILL_PRIMARY), (JAVA, JAVA_STALE_FAILURE),
                                                  (JAVA, JAVA_3_0_7_STALE_FAILURE), (CONTROLLED, JAVA_CONTROLLED)])
def test_what_the_real_java_client_did_is_a_behaviour_of_its_variant(config, observed):
    result = validate_events(observed, config, 0)
    assert result.ok, result.problem


def test_the_java_stale_failover_is_no_behaviour_of_a_client_that_counts_its_failed_probes():
    """F-121-1 as a trace: up to its early failover, the recorded run is not a behaviour of a client
    counting consecutive failed probes (cpp, with the 7 probes a 2800 ms delay takes at 500 ms),
    while the plain kill-primary run is."""
    counter = FailoverConfig("primary", ("s1", "s2"), interval_ms=500, failover_threshold=7, switch_back_threshold=11)
    early = validate_events(JAVA_STALE_FAILURE[:7], counter, 0)
    assert not early.ok and "+15.002 s: client primary -> s2" in early.problem, early.problem
    assert validate_events(JAVA_KILL_PRIMARY, counter, 0).ok


@pytest.mark.parametrize(("config", "observed", "why"), [
    # failed over 1.2 s after the primary died (7 failed probes at 500 ms take 3.0 s), no stale failure behind it
    (JAVA, [*JAVA_KILL_PRIMARY[:1], Event(at(4.8), "switch", "s1", "primary")], "before failoverDelay"),
    # switched back 3 s after the primary came up: switchBackDelay is 5 s
    (JAVA, [*JAVA_KILL_PRIMARY[:3], Event(at(13.1), "switch", "primary", "s1")], "before switchBackDelay"),
    # went to s1 while it was down
    (JAVA, [Event(at(1.0), "down", "s1"), *JAVA_KILL_PRIMARY[:2]], "to a cluster that is down"),
    # the Java client never leaves a secondary for another secondary (F-121-2): from the dead s2 to s1
    (JAVA, [*JAVA_STALE_FAILURE[:9], Event(at(22.5), "switch", "s1", "s2")], "secondary to secondary"),
    # followed the provider before it changed its answer
    (CONTROLLED, [Event(at(2.3), "switch", "s1", "primary"), Event(at(2.4), "point", "s1")], "before the provider"),
    # went somewhere the provider never pointed
    (CONTROLLED, [Event(at(2.4), "point", "s1"), Event(at(2.5), "switch", "s2", "primary")], "not where pointed"),
])
def test_a_corrupted_java_run_is_rejected(config, observed, why):
    result = validate_events(observed, config, 0)
    assert not result.ok, why
    assert "tick" in result.problem and "client" in result.problem, result.problem


def test_switches_closer_than_the_spec_allows_fail_r09_and_one_switch_judges_nothing():
    from pulsar_conformance.conformance.protocols.client_failover.trace import switches_apart

    # the Python client: failover at 1.66 s, back at 5.65 s: far more than 2 checks of 200 ms apart
    ok, said = switches_apart(GOOD, CONFIG)
    assert ok is True and "3.99 s apart" in said, said
    # a switch-back 0.2 s after the failover: closer than the spec's 3 checks allow
    ok, said = switches_apart([*GOOD[:2], Event(at(1.86), "switch", "primary", "s1")], CONFIG)
    assert ok is False and "at least 0.40 s" in said, said
    # the real Java client's stale failover (F-121-1): 1.0 s after its switch-back, where 7 probes take 3 s
    ok, said = switches_apart(JAVA_STALE_FAILURE, JAVA)
    assert ok is False and "1.00 s apart" in said, said
    assert switches_apart(JAVA_KILL_PRIMARY, JAVA)[0] is True
    assert switches_apart(GOOD[:2], CONFIG) is None  # one switch
    assert switches_apart(JAVA_KILL_PRIMARY, CONTROLLED) is None  # a provider's client has no thresholds
