"""What a failover scenario observed, projected onto the client-failover spec and validated.

Observed, each with its time: a cluster's service port closing (``go_down``) or opening again
(``come_up``), and the client switching (a ``tick`` whose result is the new cluster). The
client's other checks are not observable: they are hidden ``tick``s that must not switch, and
there cannot be more of them between two observations than the check interval allows (checks
start ``interval`` after the previous one finished). A switch therefore needs the spec's number
of failed (or successful) probes to fit in the time that really passed: a client that fails over
before its threshold, or to a cluster that is down, is not a behaviour of the spec.

The C++/Python client is the spec's ``cpp`` variant, the Java client its ``java`` variant (ticks at a
fixed rate; delays compared with the time since the first failed or ok probe); the spec's clusters are
``primary, s1, s2...`` in the order the client was configured with.
"""
from __future__ import annotations

import itertools

from pulsar_conformance.spec.core.interpreter import Observed, ValidationResult
from pulsar_conformance.spec.protocols.client_failover import ClientFailover

from ...harness import itf_traces, projection
from .outcome import Event, FailoverConfig, Outcome

ACTIONS = {"down": "go_down", "up": "come_up", "point": "admin_points_to"}
# a switch is seen up to 10 ms after the client made it (the pollers), a fault a few ms away from
# when the probe could first see it: a gap may look this much shorter than it was
OBSERVATION_LAG_NS = 50_000_000


def spec_for(config: FailoverConfig) -> ClientFailover:
    if config.variant == "java":
        return ClientFailover(variant="java", SECONDARIES=len(config.secondaries), CHECK_INTERVAL_MS=config.interval_ms,
                              FAILOVER_DELAY_MS=config.failover_delay_ms,
                              SWITCH_BACK_DELAY_MS=config.switch_back_delay_ms)
    return ClientFailover(variant=config.variant, SECONDARIES=len(config.secondaries),
                          FAILOVER_THRESHOLD=config.failover_threshold,
                          SWITCH_BACK_THRESHOLD=config.switch_back_threshold)


def switches_apart(events: list[Event], config: FailoverConfig) -> tuple[bool | None, str] | None:
    """PIP121-R09 on a run: consecutive switches are at least as many checks apart as the spec's
    ``no_fast_oscillation`` asks (cpp: the smaller threshold; java: the smaller delay as probes), one
    check of slack for when within its interval a switch was seen. None: nothing to judge (fewer
    than two switches, or a controlled client, which follows its provider and has no thresholds)."""
    switches = sorted((e for e in events if e.kind == "switch"), key=lambda e: e.at_ns)
    if config.variant == "controlled" or len(switches) < 2:
        return None
    spec = spec_for(config)
    least = (min(spec._probes_for(config.failover_delay_ms), spec._probes_for(config.switch_back_delay_ms))
             if config.variant == "java" else min(config.failover_threshold, config.switch_back_threshold))
    bound_s = (least - 1) * config.interval_ms / 1000
    gaps = [((b.at_ns - a.at_ns) / 1e9, a, b) for a, b in itertools.pairwise(switches)]
    gap, a, b = min(gaps, key=lambda g: g[0])
    said = (f"{len(switches)} switches; the closest two ({a.origin} -> {a.cluster}, then {b.origin} -> {b.cluster}) "
            f"{gap:.2f} s apart, where the spec's {least} checks at {config.interval_ms} ms need at least {bound_s:.2f} s")
    return gap >= bound_s, said


def spec_names(config: FailoverConfig) -> dict[str, str]:
    return {config.primary: "primary", **{name: f"s{i}" for i, name in enumerate(config.secondaries, 1)}}


def observed_steps(events: list[Event], config: FailoverConfig, start_ns: int) -> list[Observed]:
    names = spec_names(config)
    spec = spec_for(config)
    interval = config.interval_ms * 1_000_000
    steps, previous, previous_is_check = [], start_ns, True  # the client's checks count from its start
    for event in sorted(events, key=lambda e: e.at_ns):
        # checks at least an interval apart that fit strictly between the last observation and
        # this one: ceil(gap / interval), one fewer when either end is itself a check (a switch);
        # between two cluster events one more than floor(gap / interval) fits
        fit = -(-(event.at_ns - previous + OBSERVATION_LAG_NS) // interval)
        budget = max(0, fit - (1 if previous_is_check or event.kind == "switch" else 0))
        previous_is_check = event.kind == "switch"
        at = f"+{(event.at_ns - start_ns) / 1e9:.3f} s"
        if event.kind in ACTIONS:
            steps.append(Observed(f"{ACTIONS[event.kind]}(c={names[event.cluster]})", note=at, max_hidden=budget))
        else:
            origin, target = spec.clusters[names[event.origin]], spec.clusters[names[event.cluster]]
            steps.append(Observed("tick", note=f"{at}: client {event.origin} -> {event.cluster}", max_hidden=budget,
                                  check=lambda b, a, o=origin, t=target: b.current == o and a.current == t))
        previous = event.at_ns
    return steps


def validate_events(events: list[Event], config: FailoverConfig, start_ns: int) -> ValidationResult:
    # the client's own checks are the hidden steps; one that switched would have been seen
    return projection.check(projection.Projected(spec_for(config), observed_steps(events, config, start_ns),
                                                 hidden=("tick",), quiet=lambda before, after: before.current == after.current))


def evidence(result: ValidationResult, events: list[Event], start_ns: int, variant: str = "cpp") -> str:
    shown = "; ".join(f"+{(e.at_ns - start_ns) / 1e9:.3f} s {e.kind} {e.cluster}" for e in sorted(events, key=lambda e: e.at_ns))
    if result.ok:
        return (f"a behaviour of the client-failover spec ({variant}): {len(events)} observed step(s) [{shown}] with "
                f"{result.hidden_steps} hidden check(s) that did not switch")
    return f"NOT a behaviour of the spec: {result.problem} (observed: {shown})"


def validation(out: Outcome) -> ValidationResult | None:
    """The spec's verdict on a scenario's events: the auto variants judge a client that probes; a
    provider-driven Python client is judged by whether it followed (its switches have no fault
    behind them), so it has none. (The Java URL provider is the spec's controlled variant: its
    polls are the hidden ticks.)"""
    if out.controlled and out.config.variant != "controlled":
        return None
    return validate_events(out.events, out.config, out.start_ns)


def live_trace(out: Outcome, result: ValidationResult | None) -> itf_traces.LiveTrace | None:
    """The behaviour ``validation(out)`` found (``result``), to save as an ITF file of the bundle: the
    observed steps with the hidden checks it filled in (the spec and steps are those it validated)."""
    if result is None or not result.states:
        return None
    return itf_traces.from_validation(spec_for(out.config), result, observed_steps(out.events, out.config, out.start_ns))
