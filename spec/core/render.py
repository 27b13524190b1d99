"""Counterexamples as people read them: a table of states with the actions between them."""
from __future__ import annotations

from .model import Spec, Violation


def violation_table(spec: Spec, violation: Violation, *, only_changed: bool = True, title: str | None = None) -> str:
    """Rows are variables, columns are states; the header names the action into each state.

    A value that changed from the previous state is marked with ``*``; with
    ``only_changed`` a variable that never changes along the trace is left out.
    """
    shown = [spec.show_state(s) for s in violation.states]
    header = ["variable", "0 init"] + [f"{i + 1} {label}" for i, label in enumerate(violation.labels)]
    rows = []
    for var in spec.var_types:
        values = [state[var] for state in shown]
        if only_changed and len(set(values)) == 1 and len(values) > 1:
            continue
        cells = [values[0]] + [("*" if v != p else "") + v for p, v in zip(values, values[1:], strict=False)]
        rows.append([var, *cells])
    widths = [max(len(str(r[c])) for r in [header, *rows]) for c in range(len(header))]

    def line(cells):
        return "  ".join(str(cell).ljust(w) for cell, w in zip(cells, widths, strict=True)).rstrip()

    title = (
        (title or f"{violation.engine}: invariant {violation.invariant} broken after {violation.length} step(s)")
        + f" [{spec.name} variant={spec.variant}{' mutant=' + spec.mutant if spec.mutant else ''}]"
    )
    return "\n".join([title, line(header), line(["-" * w for w in widths]), *(line(r) for r in rows)])


def violation_json(spec: Spec, violation: Violation) -> dict:
    return {
        "invariant": violation.invariant,
        "engine": violation.engine,
        "length": violation.length,
        "actions": list(violation.labels),
        "states": [spec.show_state(s) for s in violation.states],
    }
