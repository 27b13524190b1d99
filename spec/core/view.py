"""A spec's state as a person writes about it: enum values by name, arrays indexed by an enum as
maps, and Python expressions over that view (``spec explore --reach``, ``simulate --until``).

    current != 'primary' and not up[current]      # client-failover: on a dead secondary
"""
from __future__ import annotations

import ast
import builtins
from collections.abc import Callable
from typing import Any

from .model import ArrayT, EnumT, Spec

# what an expression may call: enough to count and compare, nothing that reaches outside
SAFE = {name: getattr(builtins, name)
        for name in ("len", "any", "all", "sum", "min", "max", "sorted", "set", "tuple", "list", "abs", "range")}


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
    """``expression`` compiled once, evaluated over a state's readable view.

    Raises ValueError naming the problem (syntax, an unknown name, a failing evaluation on the
    initial state) so the command line can say how to fix it."""
    try:
        code = compile(expression, "<expression>", "eval")
    except SyntaxError as error:
        raise ValueError(f"not a Python expression: {error.msg} in {expression!r}") from error
    names = [n for n in ast.walk(ast.parse(expression, mode="eval")) if isinstance(n, ast.Name)]
    bound = {n.id for n in names if isinstance(n.ctx, ast.Store)}  # comprehension variables
    unknown = sorted({n.id for n in names} - bound - set(spec.var_types) - set(SAFE) - {"True", "False", "None"})
    if unknown:
        raise ValueError(f"{expression!r} names {unknown}, which are not variables of {spec.name} "
                         f"(its variables: {', '.join(spec.var_types)})")
    def holds(state) -> bool:
        # the view as globals, not locals: a generator (its own scope) sees globals only
        return bool(eval(code, {"__builtins__": SAFE, **readable(spec, state)}))  # noqa: S307 - the user's own query

    from .interpreter import initial_state

    try:
        holds(initial_state(spec))
    except Exception as error:
        raise ValueError(f"{expression!r} fails on the initial state: {type(error).__name__}: {error}") from error
    return holds
