"""Trace validation over a small interface: a protocol projects what a run captured onto its
spec's actions (``Projected``), and the harness judges whether that is a behaviour of the spec.

A protocol writes only its projection (which captured events are which spec steps, which actions
the capture cannot see, how many of those may hide between two observations); the judging, and
what an invariant broken along the behaviour means, is the same for every protocol."""
from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from pulsar_conformance.spec.core.interpreter import Observed, ValidationResult, validate
from pulsar_conformance.spec.core.model import Spec


@dataclass(frozen=True)
class Projected:
    spec: Spec
    steps: list[Observed]
    hidden: tuple[str, ...]  # actions of the spec the capture cannot see
    max_hidden: int | None = None  # hidden steps allowed between two observed ones (None: the validator's default)
    # a hidden step that changes nothing an observer could see (keeps the search small)
    quiet: Callable | None = None


def unobserved(spec: Spec, observed: Iterable[str]) -> tuple[str, ...]:
    """Every action of the spec the capture does not see: those it adds later included."""
    seen = set(observed)
    return tuple(a.name for a in spec.actions if a.name not in seen)


def check(p: Projected) -> ValidationResult:
    options = {} if p.max_hidden is None else {"max_hidden": p.max_hidden}
    if p.quiet is not None:
        options["quiet"] = p.quiet
    return validate(p.spec, p.steps, hidden=p.hidden, **options)


def broken_that_must_hold(spec: Spec, result: ValidationResult) -> list[tuple[int, str]]:
    """Invariants broken along the behaviour that the variant says hold: a variant that documents
    an invariant as violated (a known finding) does not turn that into a new one."""
    return [(i, name) for i, name in result.broken if spec.expectation(spec.invariant(name)) == "holds"]
