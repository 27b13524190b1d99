"""A spec's state as a person writes about it: enum values by name, arrays indexed by an enum as
maps, and the expressions over that view (``spec explore --reach``, ``simulate --until``).

    current != 'primary' and not up[current]      # client-failover: on a dead secondary
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .expression import ExpressionError, compile_expression, shown
from .model import ArrayT, EnumT, Spec


def _same(_typ, v):
    return v


def value(typ, raw, scalar: Callable[[Any, Any], Any] = _same) -> Any:
    """One variable's value in the readable view; ``scalar(typ, v)`` writes a number or a boolean
    (ITF wraps integers, for one)."""
    if isinstance(typ, EnumT):
        return typ.names[raw]
    if isinstance(typ, ArrayT):
        items = [value(typ.elem, x, scalar) for x in raw]
        if isinstance(typ.index, EnumT):
            return dict(zip(typ.index.names, items, strict=True))
        return items
    return scalar(typ, raw)


def readable(spec: Spec, state) -> dict[str, Any]:
    return {var: value(typ, getattr(state, var)) for var, typ in spec.var_types.items()}


def raw(typ, shown, scalar: Callable[[Any, Any], Any] = _same) -> Any:
    """The inverse of ``value``: a readable value back to the interpreters' representation;
    ``scalar(typ, v)`` reads a number or a boolean first (ITF's wrapped integers)."""
    if isinstance(typ, EnumT):
        if shown not in typ.names:
            raise ValueError(f"{shown!r} is not one of {list(typ.names)}")
        return typ.names.index(shown)
    if isinstance(typ, ArrayT):
        if isinstance(typ.index, EnumT):
            if not isinstance(shown, dict) or set(shown) != set(typ.index.names):
                raise ValueError(f"expected a map with keys {list(typ.index.names)}, got {shown!r}")
            return tuple(raw(typ.elem, shown[name], scalar) for name in typ.index.names)
        if not isinstance(shown, list | tuple) or len(shown) != typ.size:
            raise ValueError(f"expected {typ.size} values, got {shown!r}")
        return tuple(raw(typ.elem, x, scalar) for x in shown)
    shown = scalar(typ, shown)
    if not typ.contains(shown):
        raise ValueError(f"{shown!r} is outside {typ}")
    return shown


def changes(spec: Spec, before, after) -> list[str]:
    """``var: old -> new`` for each variable a step changed, as people read the values."""
    a, b = spec.show_state(before), spec.show_state(after)
    return [f"{v}: {a[v]} -> {b[v]}" for v in spec.var_types if a[v] != b[v]]


def predicate(spec: Spec, expression: str) -> Callable[[Any], bool]:
    """``expression`` checked against the expression language (``expression.py``; never given to
    ``eval``) and built once, then evaluated over a state's readable view.

    Raises ExpressionError (a ValueError) naming the problem and its fix: text outside the
    language, an unknown name, a failing or too costly evaluation on the initial state. Later
    states may still fail (a key absent, a division by zero): ``holds`` raises ExpressionError
    then, which the command line reports as bad input."""
    from .interpreter import initial_state

    evaluate = compile_expression(spec, expression)

    def holds(state) -> bool:
        view = readable(spec, state)
        try:
            return bool(evaluate(view))
        except ExpressionError as error:
            raise ExpressionError(f"{shown(expression)} fails on the state "
                                  f"{', '.join(f'{k}={v}' for k, v in spec.show_state(state).items())}: {error.problem}",
                                  error.fix) from error

    init = initial_state(spec)
    try:
        bool(evaluate(readable(spec, init)))
    except ExpressionError as error:
        raise ExpressionError(f"{shown(expression)} fails on the initial state: {error.problem}", error.fix) from error
    return holds
