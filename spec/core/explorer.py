"""Breadth-first exploration of the concrete state graph.

Breadth-first so that the first violation found for an invariant comes with a shortest
trace. Reports distinct states, depth and states/s the way model-checking write-ups do.
"""
from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from .backend import CONCRETE
from .interpreter import initial_state
from .model import Spec, Violation, membership


@dataclass
class ExploreResult:
    distinct_states: int
    depth: int  # deepest BFS level fully or partly expanded
    complete: bool  # the whole reachable graph was explored
    seconds: float
    transitions: int
    violations: dict[str, Violation] = field(default_factory=dict)
    stopped_by: str = ""

    @property
    def states_per_second(self) -> float:
        return self.distinct_states / self.seconds if self.seconds > 0 else float("inf")

    def to_json(self) -> dict:
        return {
            "distinct_states": self.distinct_states,
            "depth": self.depth,
            "complete": self.complete,
            "seconds": round(self.seconds, 3),
            "states_per_second": round(self.states_per_second),
            "transitions": self.transitions,
            "stopped_by": self.stopped_by,
            "violations": sorted(self.violations),
        }


def explore(
    spec: Spec,
    *,
    invariants=None,
    max_states: int = 2_000_000,
    max_depth: int | None = None,
    max_seconds: float | None = None,
    stop_at_first: bool = False,
    on_state: Callable | None = None,
) -> ExploreResult:
    invariants = spec.checked_invariants() if invariants is None else invariants
    started = time.perf_counter()
    init = initial_state(spec)
    # parent[state] = (previous state, ground action index); the initial state maps to None
    parent: dict = {init: None}
    frontier = [init]
    violations: dict[str, Violation] = {}
    inv_methods = [(inv.name, inv.method) for inv in invariants]
    grounds = spec.ground_actions
    methods = [(i, g.decl.method, g.args) for i, g in enumerate(grounds)]
    inside = {var: membership(typ) for var, typ in spec.var_types.items()}
    kit = CONCRETE
    transitions = 0
    depth = 0
    stopped_by = ""

    def check(state):
        for name, method in inv_methods:
            if name not in violations and not method(state, kit):
                violations[name] = _trace(spec, parent, state, name)
        if on_state is not None:
            on_state(state)

    check(init)
    while frontier:
        if max_depth is not None and depth >= max_depth:
            stopped_by = "max_depth"
            break
        next_frontier = []
        for state in frontier:
            for index, method, args in methods:
                guard, effect = method(state, kit, *args)
                if not guard:
                    continue
                if callable(effect):
                    effect = effect()
                for var, value in effect.items():
                    if not inside[var](value):
                        break
                else:
                    transitions += 1
                    nxt = state._replace(**effect)
                    if nxt in parent:
                        continue
                    parent[nxt] = (state, index)
                    next_frontier.append(nxt)
                    check(nxt)
            if stop_at_first and violations:
                stopped_by = "violation"
                break
            if len(parent) >= max_states:
                stopped_by = "max_states"
                break
            if max_seconds is not None and time.perf_counter() - started > max_seconds:
                stopped_by = "max_seconds"
                break
        if stopped_by:
            break
        frontier = next_frontier
        if frontier:
            depth += 1
    seconds = time.perf_counter() - started
    return ExploreResult(
        distinct_states=len(parent),
        depth=depth,
        complete=not stopped_by,
        seconds=seconds,
        transitions=transitions,
        violations=violations,
        stopped_by=stopped_by,
    )


def _trace(spec: Spec, parent: dict, state, invariant: str) -> Violation:
    states, labels = [state], []
    link = parent.get(state)
    while link is not None:
        prev, index = link
        states.append(prev)
        labels.append(spec.ground_actions[index].label(spec))
        link = parent.get(prev)
    states.reverse()
    labels.reverse()
    return Violation(invariant=invariant, states=states, labels=labels, engine="explore")


@dataclass(frozen=True)
class _Target:
    """A reach query as the explorer's invariant: 'not there yet' (explore checks invariants)."""

    name: str
    holds: Callable

    def method(self, state, _kit) -> bool:
        return not self.holds(state)


def reach(spec: Spec, holds: Callable, *, max_states: int = 1_000_000, max_depth: int | None = None,
          max_seconds: float | None = None) -> tuple[Violation | None, ExploreResult]:
    """The shortest trace to a state where ``holds`` (breadth first, so no shorter one exists),
    or None with how far the search went: unreachable if it was complete, unknown if not."""
    result = explore(spec, invariants=[_Target("target", holds)], max_states=max_states, max_depth=max_depth,
                     max_seconds=max_seconds, stop_at_first=True)
    return result.violations.get("target"), result
