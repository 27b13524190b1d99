"""Concrete semantics: initial state, enabled actions, successors, trace replay.

An action is enabled when its guard holds AND its successor lies inside every variable's
domain; the z3 encoding asserts the same domains on every state, so a bound blocks an
action in both interpreters alike (the differential test holds them to it).
"""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from .backend import CONCRETE
from .model import GroundAction, Spec, membership


class DomainError(ValueError):
    pass


def initial_state(spec: Spec):
    values = spec.init(CONCRETE)
    missing = set(spec.var_types) - set(values)
    if missing:
        raise DomainError(f"{spec.name}.init() leaves {sorted(missing)} undefined")
    state = spec.State(**values)
    for var, typ in spec.var_types.items():
        if not typ.contains(getattr(state, var)):
            raise DomainError(f"{spec.name}.init() puts {var}={getattr(state, var)!r} outside {typ}")
    return state


def apply(spec: Spec, state, ground: GroundAction):
    """The successor of ``state`` under ``ground``, or None when it is not enabled."""
    guard, effect = ground.decl.method(state, CONCRETE, *ground.args)
    if not guard:
        return None
    if callable(effect):
        effect = effect()
    inside = spec.__dict__.get("_membership")
    if inside is None:
        inside = spec._membership = {var: membership(typ) for var, typ in spec.var_types.items()}
    for var, value in effect.items():
        if not inside[var](value):
            return None
    return state._replace(**effect)


def successors(spec: Spec, state) -> Iterator[tuple[GroundAction, object]]:
    for ground in spec.ground_actions:
        nxt = apply(spec, state, ground)
        if nxt is not None:
            yield ground, nxt


def violated(spec: Spec, state, invariants) -> list[str]:
    return [inv.name for inv in invariants if not inv.method(state, CONCRETE)]


def find_ground(spec: Spec, label: str) -> GroundAction:
    for ground in spec.ground_actions:
        if ground.label(spec) == label:
            return ground
    raise KeyError(f"no action {label!r} in {spec.name}; actions look like {spec.ground_actions[0].label(spec)!r}")


@dataclass
class ReplayResult:
    """How far an observed trace is a behaviour of the spec (trace validation).

    ``ok`` is about allowedness: every step enabled where it happened. Invariants broken
    along the way are reported apart, as (step, invariant) pairs: a real system may be
    allowed to reach a state an invariant rules out only if the spec says so, and the
    caller decides what a broken invariant means for its verdict.
    """

    ok: bool
    steps: int  # steps accepted
    states: list
    problem: str = ""
    broken: list[tuple[int, str]] | None = None


def replay(spec: Spec, labels: list[str]) -> ReplayResult:
    """Run an observed sequence of actions; stop at the first one the spec does not allow."""
    state = initial_state(spec)
    states = [state]
    checked = spec.checked_invariants()
    broken: list[tuple[int, str]] = []
    for i, label in enumerate(labels):
        try:
            ground = find_ground(spec, label)
        except KeyError as error:
            return ReplayResult(False, i, states, str(error), broken)
        nxt = apply(spec, state, ground)
        if nxt is None:
            return ReplayResult(False, i, states, f"step {i + 1}: {label} is not enabled in the state reached", broken)
        state = nxt
        states.append(state)
        broken += [(i + 1, name) for name in violated(spec, state, checked)]
    return ReplayResult(True, len(labels), states, "", broken)
