"""How a protocol is written once: typed state variables, actions, invariants, mutants.

A spec subclasses :class:`Spec`. Its actions and invariants are plain methods that take
the state ``s`` (a namedtuple) and an operation kit ``k`` (:mod:`.backend`), and use only
``k``'s operations for logic over state values: ``k.And``, ``k.If``, ``k.at``... Never
Python's ``and``/``or``/``if`` on a state value. The same method then runs on Python
values (explorer, Hypothesis, trace replay) and on z3 terms (BMC, induction), so the
interpreters are derived from one definition instead of being hand-copied.

Python-level branching on the spec's *configuration* (variant, mutant, constants) is fine:
that is not state, and it is how variants and mutants live inside the one definition.
"""
from __future__ import annotations

import itertools
import numbers
from collections import namedtuple
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

# --------------------------------------------------------------------------- types


@dataclass(frozen=True)
class BoolT:
    def values(self) -> tuple:
        return (False, True)

    def contains(self, v) -> bool:
        return isinstance(v, bool)

    def show(self, v) -> str:
        return "T" if v else "F"


@dataclass(frozen=True)
class IntT:
    """An integer in [lo, hi]; the bound is part of the model (a perturbation limit)."""

    lo: int
    hi: int

    def values(self) -> range:
        return range(self.lo, self.hi + 1)

    def contains(self, v) -> bool:
        return isinstance(v, int) and not isinstance(v, bool) and self.lo <= v <= self.hi

    def show(self, v) -> str:
        return str(v)


@dataclass(frozen=True)
class EnumT:
    """Named values, represented as their index (0..n-1) in both interpreters."""

    names: tuple[str, ...]

    @property
    def lo(self) -> int:
        return 0

    @property
    def hi(self) -> int:
        return len(self.names) - 1

    def values(self) -> range:
        return range(len(self.names))

    def contains(self, v) -> bool:
        return isinstance(v, int) and not isinstance(v, bool) and 0 <= v < len(self.names)

    def show(self, v) -> str:
        return self.names[v] if self.contains(v) else f"?{v}"

    def __getitem__(self, name: str) -> int:
        return self.names.index(name)


@dataclass(frozen=True)
class ArrayT:
    """A fixed-size array indexed by an enum (or 0..n-1); a tuple in both interpreters."""

    index: EnumT | int
    elem: Any

    @property
    def size(self) -> int:
        return self.index if isinstance(self.index, int) else len(self.index.names)

    def values(self) -> Iterable[tuple]:
        return itertools.product(*(self.elem.values() for _ in range(self.size)))

    def contains(self, v) -> bool:
        return isinstance(v, tuple) and len(v) == self.size and all(self.elem.contains(x) for x in v)

    def key(self, i: int) -> str:
        return str(i) if isinstance(self.index, int) else self.index.names[i]

    def show(self, v) -> str:
        return "[" + " ".join(f"{self.key(i)}:{self.elem.show(x)}" for i, x in enumerate(v)) + "]"


# ------------------------------------------------------------------ declarations


@dataclass(frozen=True)
class ActionDecl:
    name: str
    method: Callable
    params: tuple[tuple[str, str], ...]  # (parameter, spec attribute holding its domain)
    doc: str


@dataclass(frozen=True)
class InvariantDecl:
    name: str
    method: Callable
    doc: str
    holds_in: frozenset[str] | None  # None: every variant
    violated_in: frozenset[str]  # documented differences: expected to fail, checkers show how
    inductive: bool


@dataclass(frozen=True)
class FactDecl:
    """A property over unbounded values that z3 proves or refutes outright."""

    name: str
    method: Callable
    doc: str
    holds_in: frozenset[str] | None
    violated_in: frozenset[str]


@dataclass(frozen=True)
class Mutant:
    """A named wrong variant; the spec's methods branch on ``self.mutant``."""

    name: str
    doc: str
    breaks: tuple[str, ...]  # the invariants (or facts) this mutant must violate
    variant: str | None = None  # the variant it mutates (default: the spec's default)


def action(**params: str):
    """Mark a method as an action; keyword args name each parameter's domain attribute."""

    def mark(method):
        method._spec_action = tuple(params.items())
        return method

    return mark


def invariant(*, holds_in: Iterable[str] | None = None, violated_in: Iterable[str] = (), inductive: bool = False):
    def mark(method):
        method._spec_invariant = (
            frozenset(holds_in) if holds_in is not None else None,
            frozenset(violated_in),
            inductive,
        )
        return method

    return mark


def fact(*, holds_in: Iterable[str] | None = None, violated_in: Iterable[str] = ()):
    def mark(method):
        method._spec_fact = (frozenset(holds_in) if holds_in is not None else None, frozenset(violated_in))
        return method

    return mark


def _doc(method) -> str:
    return " ".join((method.__doc__ or "").split())


# ------------------------------------------------------------------------ spec


@dataclass(frozen=True)
class GroundAction:
    """An action with every parameter fixed: one disjunct of the transition relation."""

    decl: ActionDecl
    args: tuple[int, ...]

    def label(self, spec: Spec) -> str:
        if not self.args:
            return self.decl.name
        shown = []
        for (pname, dom_attr), value in zip(self.decl.params, self.args, strict=True):
            dom = getattr(spec, dom_attr)
            shown.append(f"{pname}={dom.show(value) if hasattr(dom, 'show') else value}")
        return f"{self.decl.name}({', '.join(shown)})"


class Spec:
    """Base class of a protocol spec. Subclasses set the class attributes and methods."""

    name: str = ""
    title: str = ""
    source: str = ""  # the seed document this spec models
    VARIANTS: dict[str, str] = {}
    DEFAULT_VARIANT: str = ""
    CONSTANTS: dict[str, int] = {}  # name -> default; sizes the finite domains
    # name -> (lowest, highest) a user may ask for (--const, a trace's #meta): states grow
    # exponentially with most constants, so past a point no engine finishes; every constant has one
    CONSTANT_LIMITS: dict[str, tuple[int, int]] = {}
    # wider limits for ``spec replay`` where a trace needs them (none searches: a replay is as long as its
    # trace): a live trace is validated with the spec sized to the run (conformance/harness/itf_traces.py)
    REPLAY_LIMITS: dict[str, tuple[int, int]] = {}
    Z3_BITS: int = 16  # width of the z3 encoding's numbers (signed bit-vectors); 0 = unbounded Int
    MUTANTS: tuple[Mutant, ...] = ()
    # behaviours may end: a state with no enabled action is final, not a deadlock (Hypothesis stutters there)
    ENDS: bool = False

    def __init_subclass__(cls, **kwargs):
        """A spec's declarations checked when its class is defined: a variant named in
        ``holds_in``/``violated_in`` or by a mutant that the spec does not have would silently make
        an invariant unchecked (or a mutant unrunnable) in every variant."""
        super().__init_subclass__(**kwargs)
        if not cls.VARIANTS:  # an abstract intermediate class
            return
        problems = declaration_problems(cls)
        if problems:
            raise TypeError(f"spec {cls.name or cls.__name__}: " + "; ".join(problems))

    def __init__(self, variant: str | None = None, mutant: str | None = None, **constants: int):
        self.variant = variant or self.DEFAULT_VARIANT
        if self.variant not in self.VARIANTS:
            raise ValueError(f"unknown variant {self.variant!r} of spec {self.name}; choose one of {sorted(self.VARIANTS)}")
        self.mutant = mutant
        if mutant is not None:
            found = [m for m in self.MUTANTS if m.name == mutant]
            if not found:
                raise ValueError(f"unknown mutant {mutant!r} of spec {self.name}; choose one of {[m.name for m in self.MUTANTS]}")
            self.mutant_decl = found[0]
        unknown = set(constants) - set(self.CONSTANTS)
        if unknown:
            raise ValueError(f"unknown constants {sorted(unknown)} for spec {self.name}; it has {sorted(self.CONSTANTS)}")
        # integers (numpy's too: trace validation sizes a spec from a capture's counts), never bool or text
        wrong = {k: v for k, v in constants.items() if not isinstance(v, numbers.Integral) or isinstance(v, bool)}
        if wrong:
            raise ValueError(f"constants of spec {self.name} are integers; got {wrong}")
        self.constants = {**self.CONSTANTS, **{k: int(v) for k, v in constants.items()}}
        for key, value in self.constants.items():
            setattr(self, key, value)
        self.setup()
        self.var_types: dict[str, Any] = dict(self.variables())
        self.State = namedtuple("State", list(self.var_types))  # noqa: PYI024 - built per constants
        self.actions = self._collect("_spec_action", self._make_action)
        self.invariants = self._collect("_spec_invariant", self._make_invariant)
        self.facts = self._collect("_spec_fact", self._make_fact)
        self.ground_actions = tuple(
            GroundAction(a, args)
            for a in self.actions
            for args in itertools.product(*(tuple(getattr(self, dom).values()) for _, dom in a.params))
        )

    # -- what subclasses provide
    def setup(self) -> None:
        """Derive domains (EnumT...) from the constants; called before variables()."""

    def variables(self) -> dict[str, Any]:
        raise NotImplementedError

    def init(self, k) -> dict[str, Any]:
        raise NotImplementedError

    def describe_constants(self) -> dict[str, Any]:
        """Derived figures worth printing next to results (e.g. delays in probe counts)."""
        return {}

    # -- derived
    def _collect(self, marker, make):
        found = []
        for attr in dir(type(self)):
            method = getattr(type(self), attr)
            if hasattr(method, marker):
                found.append(make(attr, getattr(self, attr), getattr(method, marker)))
        order = {name: i for i, name in enumerate(_definition_order(type(self)))}
        return tuple(sorted(found, key=lambda d: order.get(d.name, 1 << 30)))

    @staticmethod
    def _make_action(name, method, params):
        return ActionDecl(name, method, params, _doc(method))

    @staticmethod
    def _make_invariant(name, method, marks):
        holds_in, violated_in, inductive = marks
        return InvariantDecl(name, method, _doc(method), holds_in, violated_in, inductive)

    @staticmethod
    def _make_fact(name, method, marks):
        holds_in, violated_in = marks
        return FactDecl(name, method, _doc(method), holds_in, violated_in)

    def expectation(self, decl: InvariantDecl | FactDecl) -> str:
        """'holds', 'violated' (a documented difference) or 'n/a' in this spec's variant."""
        if self.variant in decl.violated_in:
            return "violated"
        if decl.holds_in is None or self.variant in decl.holds_in:
            return "holds"
        return "n/a"

    def checked_invariants(self) -> tuple[InvariantDecl, ...]:
        return tuple(i for i in self.invariants if self.expectation(i) != "n/a")

    def invariant(self, name: str) -> InvariantDecl:
        for decl in self.invariants:
            if decl.name == name:
                return decl
        raise KeyError(name)

    def show_state(self, state) -> dict[str, str]:
        return {v: t.show(getattr(state, v)) for v, t in self.var_types.items()}

    def identity(self) -> dict[str, Any]:
        return {"spec": self.name, "variant": self.variant, "mutant": self.mutant, "constants": dict(self.constants)}


def declaration_problems(cls) -> list[str]:
    """What is wrong with a spec class's declarations, each with its fix (empty: nothing)."""
    known = set(cls.VARIANTS)
    choose = f"the variants are {', '.join(sorted(known))}"
    problems = []
    if cls.DEFAULT_VARIANT not in known:
        problems.append(f"DEFAULT_VARIANT {cls.DEFAULT_VARIANT!r} is not a variant; {choose}")
    marked = {}
    for attr in dir(cls):
        method = getattr(cls, attr)
        for marker in ("_spec_invariant", "_spec_fact"):
            if hasattr(method, marker):
                marked[attr] = getattr(method, marker)
    for name, marks in sorted(marked.items()):
        holds_in, violated_in = marks[0], marks[1]
        for field_name, names in (("holds_in", holds_in or ()), ("violated_in", violated_in)):
            unknown = sorted(set(names) - known)
            if unknown:
                problems.append(f"{name}: {field_name} names {unknown}, not variants of this spec, so the property "
                                f"would go unchecked there; fix the spelling: {choose}")
    properties = set(marked)
    for m in cls.MUTANTS:
        if m.variant is not None and m.variant not in known:
            problems.append(f"mutant {m.name}: variant {m.variant!r} is not one; {choose}")
        unknown = sorted(set(m.breaks) - properties)
        if unknown:
            problems.append(f"mutant {m.name}: breaks {unknown}, which are not invariants or facts of this spec; "
                            f"name some of {', '.join(sorted(properties))}")
    missing = sorted(set(cls.CONSTANTS) - set(cls.CONSTANT_LIMITS))
    if missing:
        problems.append(f"constants {missing} have no CONSTANT_LIMITS: give each (lowest, highest) a user may ask for")
    for name, (lo, hi) in cls.CONSTANT_LIMITS.items():
        if name not in cls.CONSTANTS:
            problems.append(f"CONSTANT_LIMITS names {name!r}, which is not a constant; the constants are "
                            f"{', '.join(cls.CONSTANTS)}")
        elif not lo <= cls.CONSTANTS[name] <= hi:
            problems.append(f"constant {name}'s default {cls.CONSTANTS[name]} is outside its limits {lo}..{hi}")
    return problems


def _definition_order(cls) -> list[str]:
    names: list[str] = []
    for klass in reversed(cls.__mro__):
        for name in vars(klass):
            if name not in names:
                names.append(name)
    return names


@dataclass
class Violation:
    """A behaviour that breaks an invariant: states and the ground actions between them."""

    invariant: str
    states: list  # State namedtuples, states[0] initial
    labels: list[str] = field(default_factory=list)  # labels[i] leads from states[i] to states[i+1]
    engine: str = ""

    @property
    def length(self) -> int:
        return len(self.labels)


def membership(typ) -> Callable[[Any], bool]:
    """A fast ``typ.contains`` for the explorer's hot loop.

    Array values repeat endlessly across states (a few dozen distinct tuples), so their
    verdicts are memoised; scalars are checked inline.
    """
    if isinstance(typ, (IntT, EnumT)):
        lo, hi = typ.lo, typ.hi
        return lambda v: v.__class__ is int and lo <= v <= hi
    if isinstance(typ, BoolT):
        return lambda v: v.__class__ is bool
    known: dict = {}

    def contains(v):
        verdict = known.get(v)
        if verdict is None:
            try:
                verdict = known[v] = typ.contains(v)
            except TypeError:  # unhashable: not a tuple of values, so not in the domain
                return False
        return verdict

    return contains
