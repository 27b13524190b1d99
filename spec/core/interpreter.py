"""Concrete semantics: initial state, enabled actions, successors, trace replay and validation.

An action is enabled when its guard holds AND its successor lies inside every variable's
domain; the z3 encoding asserts the same domains on every state, so a bound blocks an
action in both interpreters alike (the differential test holds them to it).
"""
from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

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


# ------------------------------------------------------------- trace validation


@dataclass(frozen=True)
class Observed:
    """One step an observer saw: the action's label and, optionally, what it saw of its effect.

    ``check(before, after)`` holds when the step did what the observation says (a message
    stored on blue, not refused; the message a consumer got is the one at the cursor). Without
    it any enabled occurrence of the action matches. ``note`` is how the step reads in the
    observation, for reports.
    """

    label: str
    check: Callable[[Any, Any], bool] | None = None
    note: str = ""
    # hidden steps the spec may take just before this one, when the observer's clock bounds them
    # (e.g. a client's periodic check cannot run more often than its interval); None: the default
    max_hidden: int | None = None

    def show(self) -> str:
        return f"{self.label} [{self.note}]" if self.note else self.label


@dataclass
class ValidationResult:
    """Whether an observed trace is a behaviour of the spec once hidden steps are filled in.

    ``ok``: every observed step is enabled, and does what was observed, in some state the spec
    reaches from the previous one by at most ``max_hidden`` hidden steps. ``states`` and
    ``labels`` are one witness behaviour (hidden steps included; labels[i] leads from states[i]
    to states[i + 1]); on failure, up to the last observed step accepted. ``reached`` holds
    every state the spec can be in just before the step that failed. ``broken`` lists
    (observed steps accepted when the state was reached, invariant) along the witness, as
    ReplayResult does: the caller decides what a broken invariant means for its verdict.
    """

    ok: bool
    steps: int  # observed steps accepted
    states: list
    labels: list[str]
    hidden_steps: int  # hidden steps in the witness
    problem: str = ""
    failed_step: int | None = None  # 1-based index of the first observed step nothing enables
    reached: list = field(default_factory=list)
    broken: list[tuple[int, str]] = field(default_factory=list)
    # per label: the 1-based observed step it is, or 0 for a hidden step the validator filled in
    observed: list[int] = field(default_factory=list)


@dataclass
class _Node:
    state: Any
    parent: _Node | None
    label: str | None  # the step that led here
    observed: int  # observed steps accepted on the way here
    hidden: int  # hidden steps on the way here


def validate(spec: Spec, observed: list[str | Observed], hidden: tuple[str, ...] | list[str] = (),
             max_hidden: int = 8, quiet: Callable[[Any, Any], bool] | None = None) -> ValidationResult:
    """Trace validation with actions the observer cannot see.

    Between two observed steps the spec may take up to ``max_hidden`` steps (or the step's own
    ``Observed.max_hidden``) of the actions named in ``hidden`` (breadth-first), each one
    ``quiet(before, after)`` when given: a hidden step must not do what the observer would have
    seen. An action may be both hidden and observed (a periodic check is seen only when it
    switches). Every state consistent with the observations so far is kept, not just one, so an
    early choice of hidden steps cannot hide a later fit: the result is exact up to the bound.
    The first observed step enabled (with its ``check``) in none of the states reachable from
    the previous one is reported with those states.
    """
    names = {a.name for a in spec.actions}
    unknown = set(hidden) - names
    if unknown:
        raise ValueError(f"hidden actions {sorted(unknown)} are not actions of {spec.name}; it has {sorted(names)}")
    hidden_grounds = tuple(g for g in spec.ground_actions if g.decl.name in set(hidden))
    steps = [o if isinstance(o, Observed) else Observed(o) for o in observed]
    checked = spec.checked_invariants()
    start = _Node(initial_state(spec), None, None, 0, 0)
    frontier = {start.state: start}
    for i, obs in enumerate(steps):
        bound = max_hidden if obs.max_hidden is None else obs.max_hidden
        closure = _hidden_closure(spec, frontier, hidden_grounds, bound, quiet)
        try:
            ground = find_ground(spec, obs.label)
        except KeyError as error:
            return _failed(spec, frontier, closure, i, str(error), checked)
        after: dict = {}
        enabled = 0
        for node in closure:
            nxt = apply(spec, node.state, ground)
            if nxt is None:
                continue
            enabled += 1
            if obs.check is not None and not obs.check(node.state, nxt):
                continue
            if nxt not in after:
                after[nxt] = _Node(nxt, node, obs.label, i + 1, node.hidden)
        if not after:
            within = f"within {bound} hidden step{'' if bound == 1 else 's'} ({', '.join(sorted(set(hidden))) or 'none'})"
            why = (f"is enabled in {enabled} of the {len(closure)} states reachable {within}, "
                   "but in none of them does what was observed" if enabled else
                   f"is not enabled in any of the {len(closure)} states reachable {within}")
            return _failed(spec, frontier, closure, i, f"step {i + 1}: {obs.show()} {why}", checked)
        frontier = after
    best = min(frontier.values(), key=lambda n: n.hidden)
    states, labels, broken = _witness(spec, best, checked)
    return ValidationResult(True, len(steps), states, labels, best.hidden, broken=broken, observed=_observed(best))


def _hidden_closure(spec: Spec, frontier: dict, grounds: tuple[GroundAction, ...], bound: int,
                    quiet: Callable[[Any, Any], bool] | None = None) -> list[_Node]:
    """Every state reachable from ``frontier`` by at most ``bound`` quiet hidden steps, fewest hidden first."""
    layer = sorted(frontier.values(), key=lambda n: n.hidden)
    seen = {n.state: n for n in layer}
    for _ in range(bound):
        grown = []
        for node in layer:
            for ground in grounds:
                nxt = apply(spec, node.state, ground)
                if nxt is not None and nxt not in seen and (quiet is None or quiet(node.state, nxt)):
                    seen[nxt] = child = _Node(nxt, node, ground.label(spec), node.observed, node.hidden + 1)
                    grown.append(child)
        if not grown:
            break
        layer = grown
    return sorted(seen.values(), key=lambda n: n.hidden)


def _witness(spec: Spec, node: _Node, checked) -> tuple[list, list[str], list[tuple[int, str]]]:
    path = []
    while node is not None:
        path.append(node)
        node = node.parent
    path.reverse()
    broken = []
    for n in path[1:]:
        broken += [(n.observed, name) for name in violated(spec, n.state, checked) if (n.observed, name) not in broken]
    return [n.state for n in path], [n.label for n in path[1:]], broken


def _observed(node: _Node) -> list[int]:
    """Per step of the witness ending at ``node``: the observed step it is (1-based), 0 when hidden."""
    out = []
    while node.parent is not None:
        out.append(node.observed if node.observed > node.parent.observed else 0)
        node = node.parent
    return out[::-1]


def _failed(spec: Spec, frontier: dict, closure: list[_Node], index: int, problem: str, checked) -> ValidationResult:
    """The witness up to the last observed step accepted, and every state reachable after it."""
    last = min(frontier.values(), key=lambda n: n.hidden)
    states, labels, broken = _witness(spec, last, checked)
    return ValidationResult(False, index, states, labels, last.hidden, problem, index + 1,
                            [n.state for n in closure], broken, _observed(last))
