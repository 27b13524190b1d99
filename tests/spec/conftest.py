"""Strategies shared by the spec tests."""
from __future__ import annotations

from hypothesis import strategies as st

from pulsar_conformance import errors
from pulsar_conformance.spec.core.model import ArrayT, BoolT

# the exit code of input the suite cannot use (64 since errors.py has EXIT_BAD_INPUT, 2 before)
BAD_INPUT = getattr(errors, "EXIT_BAD_INPUT", 2)


def value_strategy(typ):
    if isinstance(typ, BoolT):
        return st.booleans()
    if isinstance(typ, ArrayT):
        return st.tuples(*(value_strategy(typ.elem) for _ in range(typ.size)))
    return st.integers(typ.lo, typ.hi)


def state_strategy(spec):
    """Any state inside the declared domains, reachable or not: the differential test wants both."""
    return st.builds(spec.State, **{v: value_strategy(t) for v, t in spec.var_types.items()})
