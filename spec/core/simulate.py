"""Random runs of a spec (``spec simulate``), as Quint's ``run`` does: from the initial state,
each step one of the enabled ground actions, all equally likely, so a run follows what the
protocol and its environment can do rather than a search order."""
from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

from .interpreter import initial_state, successors, violated
from .model import Spec, Violation


@dataclass
class Run:
    trace: Violation  # states and the actions between them (engine "simulate")
    stopped_by: str  # "steps", "until" (the condition held), "deadlock" (nothing enabled)
    broken: list[tuple[int, str]]  # (state index, invariant) the run broke on its way


def simulate(spec: Spec, *, steps: int, seed: int, until: Callable | None = None) -> Run:
    rng = random.Random(seed)
    state = initial_state(spec)
    states, labels = [state], []
    checked = spec.checked_invariants()
    broken = [(0, name) for name in violated(spec, state, checked)]
    stopped_by = "steps"
    if until is not None and until(state):
        stopped_by = "until"
    while stopped_by == "steps" and len(labels) < steps:
        enabled = list(successors(spec, state))
        if not enabled:
            stopped_by = "deadlock"
            break
        ground, state = rng.choice(enabled)
        states.append(state)
        labels.append(ground.label(spec))
        broken += [(len(labels), name) for name in violated(spec, state, checked)]
        if until is not None and until(state):
            stopped_by = "until"
    return Run(Violation(invariant="", states=states, labels=labels, engine="simulate"), stopped_by, broken)
