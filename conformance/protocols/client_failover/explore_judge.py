"""The judge of an explored PIP-121 schedule (``explore --live client-failover``; explore.py runs it): pure
functions of the outcome, as judge.py's, for a schedule of any shape.

judge.py's scenario judges are keyed by scenario name and read the moments their set-up put there (the
primary's kill, the switch-back a step waited for); a generated schedule has neither, so only what holds
for any history is judged, with judge.py's own ``common``: the trace against the client's spec variant,
the switches apart (R09), no needless reconnect (R10, the Java client's log) and nothing acknowledged
lost (R11). Each check is one ``client-failover/<scenario>/...`` pattern checks.py declares, the
schedule's name as the scenario segment.

Two things are added to the trace, because a schedule has no scenario row to judge them:

- **the checks that must have happened.** trace.py bounds the hidden checks between two observations
  from above only (a check cannot run more often than its interval), so a client that never switched
  would pass it. The Java client checks at a fixed rate (``scheduleAtFixedRate``), so between two
  observations ``G`` apart at least ``ceil((G - lag - slack) / interval) - 1`` checks ran that did not
  switch (``slack``: ``SLACK_CHECKS`` checks a starved JVM may run late; the Python client checks
  ``interval`` after its previous probe ended, whose length is not seen, so it gets none). Those checks
  are observed steps of the trace: a failover (or switch-back) the spec's client would have made by then
  and the real one did not is not a behaviour of the spec. The schedule's end (``marks["end"]``, when the
  adapter stopped watching the client) closes the last gap the same way.
- **which requirements the trace judges** (the check lets its scenario choose): those whose state the
  schedule reached, never one it did not. A passing trace judges R01 where the client failed over from
  the primary, R02 where it switched back, R03 where it failed over while s1, first in the list, was down
  (and, for the Python client, R04 with R01, R08 where it left a secondary that died); a failing trace
  judges the requirement of the step it failed at (a check that should have switched: R01 on the primary,
  R02 on a secondary; a switch too early: R01 and R04 from the primary, R02 to it; to a cluster that
  is down or not first in the list: R03). Two are left to the scenarios on the Java client: R04, whose
  failure the spec's ``java`` variant holds to be the client's (F-121-1: a failover on a failure left
  from before a switch-back), so a trace that passes says nothing of it; and R01 on a schedule where a
  failover came sooner than failoverDelay after the primary went down, for the same reason (the
  evidence says so). R08 is the Python client's (the Java client never leaves a secondary for another:
  F-121-2, its variant's behaviour).

A requirement no schedule reached gets no row here (its verdict is then the run's "not run", never a
pass), and R11 is judged only where the client switched (nothing else moves what it reads).
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, replace

from pulsar_conformance.spec.core.interpreter import Observed

from ...harness import itf_traces, projection
from ...harness.rows import Row, judges, row
from . import judge as failover
from . import trace
from .outcome import Event, FailoverConfig, Outcome

S = 1_000_000_000
# checks a starved JVM may run late (two cores: three brokers, the JVM and the suite's own engine): at
# fixed rate a late check is made up at once, so only the ends of a gap lose checks
SLACK_CHECKS = 2
PROTOCOL_PREFIX = "client-failover"


@dataclass
class ExploredOutcome(Outcome):
    """An explored schedule's outcome: an ``Outcome`` (every function of judge.py reads it as one), saved
    under its own type so a saved schedule is judged again by this module's ``judge`` and not by
    ``judge.judge``, whose table of scenario names has no schedule in it. ``marks["end"]``: when the
    adapter stopped watching the client (the last checks of the trace are counted up to it)."""


def client_of(out: Outcome) -> str:
    """The client a row judges (the recorder's ``client=``, rejudge.client's rule): the Python client's
    ``cpp`` policy runs the C++ client underneath; ``java`` and ``controlled`` are the Java client's."""
    return "cpp" if out.config.variant == "cpp" else "java"


# ------------------------------------------------------------------ the trace with the checks that must have run


def fewest_checks(gap_ns: int, config: FailoverConfig) -> int:
    """Checks a fixed-rate client made strictly inside a gap of ``gap_ns`` between two observations, at
    least: the observation lag and ``SLACK_CHECKS`` late checks taken off first. 0 for a client whose
    checks are not at a fixed rate (the Python client's)."""
    if config.variant != "java":
        return 0
    interval = config.interval_ms * 1_000_000
    usable = gap_ns - trace.OBSERVATION_LAG_NS - SLACK_CHECKS * interval
    return max(0, math.ceil(usable / interval) - 1) if usable > 0 else 0


@dataclass(frozen=True)
class _State:
    """What the observations say at a moment: which clusters' ports are open, where the client is."""

    up: tuple[tuple[str, bool], ...]
    current: str

    def is_up(self, cluster: str) -> bool:
        return dict(self.up)[cluster]


def _replayed(events: list[Event], config: FailoverConfig) -> list[_State]:
    """The observed state before each event (and after the last, at the end)."""
    up = dict.fromkeys((config.primary, *config.secondaries), True)
    current = config.primary
    states = []
    for event in events:
        states.append(_State(tuple(up.items()), current))
        if event.kind == "down":
            up[event.cluster] = False
        elif event.kind == "up":
            up[event.cluster] = True
        elif event.kind == "switch":
            current = event.cluster
    states.append(_State(tuple(up.items()), current))
    return states


def _about_switch(event: Event, before: _State, config: FailoverConfig) -> list[str]:
    """The requirement an observed switch that is no behaviour of the spec breaks."""
    primary = config.primary
    if event.origin == primary:
        first_up = next((s for s in config.secondaries if before.is_up(s)), None)
        if not before.is_up(event.cluster) or event.cluster != first_up:
            return ["PIP121-R03"]  # to a cluster that is down, or not the first that answers
        return ["PIP121-R01", "PIP121-R04"]  # the right target, too early for the policy
    if event.cluster == primary:
        return ["PIP121-R02"]
    return ["PIP121-R08"] if config.variant == "cpp" else ["PIP121-R03"]  # one secondary to another


@dataclass(frozen=True)
class About:
    """What an observed step of the trace is about: the requirements its failure breaks, and for a check
    that must have run, the gap it was counted in (from, to, how many, the cluster the client was on)."""

    requirements: tuple[str, ...]
    gap: tuple[int, int, int, str] | None = None


def steps_of(events: list[Event], config: FailoverConfig, start_ns: int,
             end_ns: int | None) -> tuple[list[Observed], list[About]]:
    """The trace's observed steps (trace.observed_steps, with the checks that must have run between
    them and up to ``end_ns``), and what each is about."""
    ordered = sorted(events, key=lambda e: e.at_ns)
    base = trace.observed_steps(ordered, config, start_ns)
    states = _replayed(ordered, config)
    interval_s = config.interval_ms / 1000
    steps: list[Observed] = []
    about: list[About] = []

    def must_have_checked(count: int, allowance: int, since_ns: int, until_ns: int, state: _State) -> None:
        """``count`` quiet checks (the first may follow ``allowance`` hidden ones: more checks may have run)."""
        for k in range(count):
            steps.append(Observed(
                "tick", check=lambda b, a: b.current == a.current, max_hidden=allowance if k == 0 else 0,
                note=(f"one of the {count} checks a client checking every {interval_s:g} s at a fixed rate made "
                      f"between +{(since_ns - start_ns) / S:.3f} s and +{(until_ns - start_ns) / S:.3f} s, "
                      f"on {state.current}, none of which switched")))
            about.append(About(("PIP121-R01",) if state.current == config.primary else ("PIP121-R02",),
                               (since_ns, until_ns, count, state.current)))

    previous = start_ns
    for i, (event, observed) in enumerate(zip(ordered, base, strict=True)):
        budget = observed.max_hidden or 0
        least = min(budget, fewest_checks(event.at_ns - previous, config))
        if least:
            must_have_checked(least, budget - least, previous, event.at_ns, states[i])
            observed = replace(observed, max_hidden=0)
        steps.append(observed)
        about.append(About(tuple(_about_switch(event, states[i], config)) if event.kind == "switch" else ()))
        previous = event.at_ns
    if end_ns is not None and end_ns > previous:
        least = fewest_checks(end_ns - previous, config)
        if least:
            # how many more ran is bounded by nothing observed after them: any number of quiet ones
            must_have_checked(least, 0, previous, end_ns, states[-1])
    return steps, about


def validated(out: Outcome):
    """The trace with the checks that must have run: (the spec's verdict, for each observed step the
    requirements its failure breaks, how many of its steps are checks that must have run). As
    trace.validation, a provider-driven Python client has none (None)."""
    if out.controlled and out.config.variant != "controlled":
        return None, [], 0
    steps, about = steps_of(out.events, out.config, out.start_ns, out.marks.get("end"))
    result = projection.check(projection.Projected(trace.spec_for(out.config), steps, hidden=("tick",),
                                                   quiet=lambda before, after: before.current == after.current))
    return result, about, len(steps) - len(out.events)


def checks_ran_late(out: Outcome, failed: About) -> str | None:
    """Why a trace that failed at a check counted as made is not the client's failure, if its own log says
    so: on a dead primary every check of the Java client logs a failed probe, so fewer logged failed probes
    in that gap than checks counted there mean its checks ran later than a fixed rate (a starved JVM), and
    the missing failover is not judged. None: nothing in the log says the count was wrong."""
    if failed.gap is None or not (out.java or {}).get("failed_probes"):
        return None
    since, until, counted, on = failed.gap
    if on != out.config.primary:
        return None  # on a secondary the checks probe the primary, which answers: nothing is logged
    logged = failover.failed_probes(out, on, since, until)
    if len(logged) >= counted:
        return None
    return (f"the client logged {len(logged)} failed probe(s) of the dead {on} between "
            f"+{(since - out.start_ns) / S:.3f} s and +{(until - out.start_ns) / S:.3f} s, where {counted} checks were "
            f"counted as made: its checks ran late (a starved JVM), so the failover they would have made is not judged")


# ------------------------------------------------------------------ which requirements the trace judges


def _early_failovers(events: list[Event], config: FailoverConfig) -> list[tuple[Event, float]]:
    """Each failover from the primary that came sooner than failoverDelay after the primary went down
    (the Java client's F-121-1), with how soon."""
    found, down_since = [], None
    for event in sorted(events, key=lambda e: e.at_ns):
        if event.cluster == config.primary and event.kind in ("down", "up"):
            down_since = event.at_ns if event.kind == "down" else None
        elif event.kind == "switch" and event.origin == config.primary and down_since is not None:
            took = (event.at_ns - down_since) / S
            if took * 1000 < config.failover_delay_ms - trace.OBSERVATION_LAG_NS / 1_000_000:
                found.append((event, took))
    return found


def reached(out: Outcome) -> tuple[list[str], str]:
    """The requirements a passing trace judges on this schedule (their states reached), and what was
    left out and why."""
    cfg = out.config
    ordered = sorted(out.events, key=lambda e: e.at_ns)
    states = _replayed(ordered, cfg)
    chosen: set[str] = set()
    for event, before in zip(ordered, states, strict=False):
        if event.kind != "switch":
            continue
        if event.origin == cfg.primary:
            chosen.add("PIP121-R01")
            if cfg.variant == "cpp":
                chosen.add("PIP121-R04")
            if len(cfg.secondaries) > 1 and not before.is_up(cfg.secondaries[0]) and any(
                    before.is_up(s) for s in cfg.secondaries[1:]):
                chosen.add("PIP121-R03")
        elif event.cluster == cfg.primary:
            chosen.add("PIP121-R02")
        if cfg.variant == "cpp" and event.origin != cfg.primary and not before.is_up(event.origin):
            chosen.add("PIP121-R08")
    left = []
    if cfg.variant == "java":
        early = _early_failovers(ordered, cfg)
        if early and "PIP121-R01" in chosen:
            chosen.discard("PIP121-R01")
            left.append("PIP121-R01 not judged by the trace: the failover at " + ", ".join(
                f"+{(e.at_ns - out.start_ns) / S:.3f} s came {took:.3f} s after the primary went down, sooner than "
                f"failoverDelay {cfg.failover_delay_ms} ms" for e, took in early)
                        + ", which the spec's java variant allows the Java client (F-121-1: a failure left from before "
                          "a switch-back), so the trace cannot tell it from a correct one")
    return sorted(chosen), "; ".join(left)


# ------------------------------------------------------------------ the rows


def prefix_of(out: Outcome) -> str:
    return f"{PROTOCOL_PREFIX}/{out.name}"


def judge(out: Outcome) -> list[Row]:
    """Every row of an explored schedule (``out.name`` is the schedule's), each naming the client it judged."""
    rows = _judged(out, prefix_of(out))
    for r in rows:
        r.details.setdefault("client", client_of(out))
    return rows


_HALF_DEAD = re.compile(r"^(\S+) half-dead: ")
_REVIVED = re.compile(r"^(\S+) revived: ")


def blind_spot(out: Outcome, prefix: str) -> Row | None:
    """PIP121-R07 over each window in which the cluster the client was on was half-dead (explore.py's
    ``half-dead-c``: its brokers killed behind its Pulsar proxy, so its port answers and nothing is served), the
    seed's own first example of what the TCP probe cannot see: the client stays. None where no such window was
    reached (a half-dead cluster the client was not on says nothing of its probe of the current one)."""
    marks = sorted(out.markers, key=lambda m: m["ts_ns"])
    end = out.marks.get("end") or (marks[-1]["ts_ns"] if marks else out.start_ns)
    switches = out.switches()
    windows = []
    for i, m in enumerate(marks):
        found = _HALF_DEAD.match(m["label"])
        if not found:
            continue
        cluster, began = found.group(1), m["ts_ns"]
        on = next((s.cluster for s in reversed(switches) if s.at_ns <= began), out.config.primary)
        if on != cluster:
            continue
        ended = next((n["ts_ns"] for n in marks[i + 1:] if (r := _REVIVED.match(n["label"])) and r.group(1) == cluster),
                     end)
        away = [s for s in switches if began < s.at_ns <= ended and s.origin == cluster]
        sent = sum(1 for t, k in zip(out.columns.get("ts_ns") or [], out.columns.get("kind") or [], strict=False)
                   if k == "send_ok" and began < t < ended)
        windows.append((cluster, began, ended, away, sent))
    if not windows:
        return None
    said = "; ".join(f"{c} half-dead for {(b - a) / S:.1f} s (its brokers killed, its Pulsar proxy answering the probe): "
                     f"the client {'stayed' if not away else 'switched to ' + away[0].cluster}, {sent} sends "
                     f"acknowledged meanwhile" for c, a, b, away, sent in windows)
    return row(f"{prefix}/tcp-probe-blind-spot", not any(w[3] for w in windows), said, windows=len(windows))


@judges("PIP121-R01", "PIP121-R02", "PIP121-R03", "PIP121-R04", "PIP121-R07", "PIP121-R08", *failover.COMMON)
def _judged(out: Outcome, prefix: str):
    blind = blind_spot(out, prefix)
    if blind is not None:
        yield blind
    v, about, forced = validated(out)
    if v is None:  # a provider moved the client: its switches have no fault behind them (trace.validation)
        yield from (failover.lost(out, prefix) if out.switches() else [])
        return
    late = None
    if v.ok:
        requirements, left = reached(out)
    else:
        failed = about[v.failed_step - 1] if v.failed_step and v.failed_step <= len(about) else About(())
        requirements = list(failed.requirements) or ["PIP121-R01"]
        left = (f"the trace judges {', '.join(requirements)}: the step it failed at is about "
                f"{'them' if len(requirements) > 1 else 'it'}")
        late = checks_ran_late(out, failed)
    rows = failover.common(replace(out, validation=v), prefix, requirements or ["PIP121-R01"])
    for r in rows:
        if r.check == f"{prefix}/trace":
            # the behaviour saved beside the row is the one validated here: with the checks that must have run
            steps, _ = steps_of(out.events, out.config, out.start_ns, out.marks.get("end"))
            r.traces = [itf_traces.from_validation(trace.spec_for(out.config), v, steps)]
            if not requirements:
                continue  # no requirement's state reached: the trace passed, but judged nothing
            if late:  # the client's own log shows fewer checks than were counted: the count is not Pulsar's failure
                r.ok, r.evidence = None, f"not judged: {late}; {r.evidence}"
            if forced:
                r.evidence += (f"; {forced} check(s) counted as made between the observations (a fixed-rate client "
                               f"every {out.config.interval_ms} ms, {SLACK_CHECKS} late checks allowed per gap)")
            if left:
                r.evidence += f"; {left}"
        elif r.check == f"{prefix}/nothing-acknowledged-lost" and not out.switches():
            continue  # R11 is about what a switch does to the traffic: no switch, no state of R11's
        yield r
