"""Figures derived by running a spec rather than written down next to it."""
from __future__ import annotations

from .interpreter import apply, find_ground, initial_state


def probes_until(spec, *, setup: list[str], outcome: int, tick: str = "tick", limit: int = 1000) -> int:
    """Run ``setup`` from the initial state, then count ticks until ``g_last == outcome``."""
    state = initial_state(spec)
    for label in setup:
        nxt = apply(spec, state, find_ground(spec, label))
        if nxt is None:
            raise ValueError(f"{label} is not enabled while deriving figures for {spec.name}")
        state = nxt
    step = find_ground(spec, tick)
    for count in range(1, limit + 1):
        state = apply(spec, state, step)
        if state.g_last == outcome:
            return count
    raise ValueError(f"{spec.name}: no outcome {outcome} within {limit} ticks")
