"""z3 checks: bounded model checking, induction (Initiation and Consecution), facts.

BMC asks, depth by depth, whether some invariant can fail at exactly that depth; the
first depth that answers yes gives a shortest counterexample, read back from the model as
states and action labels.
"""
from __future__ import annotations

import inspect
import time
from dataclasses import dataclass, field

import z3

from .backend import Z3
from .formula import formula
from .model import FactDecl, Spec, Violation
from .symbolic import Encoding, as_bool


@dataclass
class BmcResult:
    depth_reached: int  # every depth <= this was fully checked
    requested_depth: int
    seconds: float
    violations: dict[str, Violation] = field(default_factory=dict)
    stopped_by: str = ""

    def to_json(self) -> dict:
        return {
            "depth_reached": self.depth_reached,
            "requested_depth": self.requested_depth,
            "seconds": round(self.seconds, 3),
            "stopped_by": self.stopped_by,
            "violations": sorted(self.violations),
        }


def bmc(spec: Spec, *, depth: int, invariants=None, max_seconds: float | None = None, stop_at_first: bool = False) -> BmcResult:
    """Depth by depth, one query: can any still-unbroken invariant fail at exactly this depth?

    A fresh solver per depth, not push/pop: measured on policy-sync, z3's one-shot
    preprocessing reaches depth 8 in a minute where the incremental solver took ten.
    """
    invariants = list(spec.checked_invariants() if invariants is None else invariants)
    started = time.perf_counter()
    enc = Encoding(spec)
    states = [enc.state("0")]
    acts: list = []
    base = [*enc.init(states[0]), *enc.domains(states[0])]
    violations: dict[str, Violation] = {}
    reached = -1
    stopped_by = ""
    for d in range(depth + 1):
        if d > 0:
            s2 = enc.state(str(d))
            act = z3.Int(f"act@{d - 1}")
            base += [*enc.domains(s2), enc.step(states[-1], s2, act)]
            states.append(s2)
            acts.append(act)
        pending = [inv for inv in invariants if inv.name not in violations]
        while pending:
            solver = z3.Solver()
            if max_seconds is not None:
                left = max_seconds - (time.perf_counter() - started)
                if left <= 0:
                    stopped_by = "max_seconds"
                    break
                solver.set("timeout", max(1, int(left * 1000)))
            solver.add(*base)
            broken_here = {inv.name: z3.Not(enc.invariant(inv, states[d])) for inv in pending}
            solver.add(z3.Or(*broken_here.values()))
            answer = solver.check()
            if answer == z3.unsat:
                break
            if answer == z3.unknown:
                stopped_by = "max_seconds" if max_seconds is not None else f"z3 unknown: {solver.reason_unknown()}"
                break
            model = solver.model()
            for name, negated in broken_here.items():
                if z3.is_true(model.eval(negated, model_completion=True)):
                    violations[name] = _read_trace(spec, enc, model, states, acts, name)
            pending = [inv for inv in pending if inv.name not in violations]
            if stop_at_first:
                break
        if stopped_by:
            break
        reached = d
        if stop_at_first and violations:
            stopped_by = "violation"
            break
    return BmcResult(reached, depth, time.perf_counter() - started, violations, stopped_by)


@dataclass(frozen=True)
class _NotYet:
    """A reach query as a BMC invariant: 'the expression does not hold yet'."""

    name: str
    spec: Spec
    expression: str

    def method(self, state, kit):
        return z3.Not(formula(self.spec, self.expression, state, kit.numeral))


def reach(spec: Spec, expression: str, *, depth: int, max_seconds: float | None = None
          ) -> tuple[Violation | None, BmcResult]:
    """The shortest trace (depth by depth) to a state where ``expression`` (over the readable
    view) holds, or None with the depth every shorter trace was ruled out to.

    Raises ``NotSymbolic`` before any solving when the expression has no z3 meaning."""
    enc = Encoding(spec)
    formula(spec, expression, enc.state("check"), enc.kit.numeral)
    result = bmc(spec, depth=depth, invariants=[_NotYet("target", spec, expression)],
                 max_seconds=max_seconds, stop_at_first=True)
    return result.violations.get("target"), result


def _read_trace(spec, enc, model, states, acts, name) -> Violation:
    concrete = [enc.read_state(model, s) for s in states]
    labels = [spec.ground_actions[model.eval(a, model_completion=True).as_long()].label(spec) for a in acts]
    return Violation(invariant=name, states=concrete, labels=labels, engine="z3-bmc")


@dataclass
class InductionResult:
    invariant: str
    initiation: bool
    consecution: bool
    counterexample: Violation | None = None  # a counterexample to induction: pre-state, step, post-state
    undecided: bool = False  # z3 answered unknown: neither proved nor refuted

    @property
    def inductive(self) -> bool:
        return self.initiation and self.consecution

    def to_json(self) -> dict:
        return {"invariant": self.invariant, "initiation": self.initiation, "consecution": self.consecution,
                "undecided": self.undecided}


def induction(spec: Spec) -> list[InductionResult]:
    """Initiation (init ⇒ inv) and Consecution (⋀ inductive invs ∧ step ⇒ inv′).

    The invariants declared inductive are proved together: each may assume all of them in
    the pre-state, which is how a strengthening invariant helps another one.
    """
    enc = Encoding(spec)
    lemmas = [i for i in spec.checked_invariants() if i.inductive and spec.expectation(i) == "holds"]
    s, s2, act = enc.state("pre"), enc.state("post"), z3.Int("act")
    results = []
    for inv in lemmas:
        init_solver = z3.Solver()
        init_solver.add(*enc.init(s), *enc.domains(s), z3.Not(enc.invariant(inv, s)))
        init_answer = init_solver.check()
        initiation = init_answer == z3.unsat
        step_solver = z3.Solver()
        step_solver.add(*enc.domains(s), *enc.domains(s2), enc.step(s, s2, act))
        step_solver.add(*(enc.invariant(lemma, s) for lemma in lemmas))
        step_solver.add(z3.Not(enc.invariant(inv, s2)))
        answer = step_solver.check()
        cti = None
        if answer == z3.sat:
            model = step_solver.model()
            label = spec.ground_actions[model.eval(act, model_completion=True).as_long()].label(spec)
            cti = Violation(inv.name, [enc.read_state(model, s), enc.read_state(model, s2)], [label], "z3-induction")
        results.append(InductionResult(inv.name, initiation, answer == z3.unsat, cti,
                                       undecided=z3.unknown in (init_answer, answer)))
    return results


@dataclass
class FactResult:
    """z3 on a fact: ``proved`` for all values, ``refuted`` with a counterexample, or ``unknown``
    (z3 gave up): a third state that neither holds the fact nor breaks it, so it can neither pass a
    check nor kill a mutant."""

    fact: str
    status: str  # proved | refuted | unknown
    counterexample: dict | None = None

    @property
    def proved(self) -> bool:
        return self.status == "proved"

    @property
    def refuted(self) -> bool:
        return self.status == "refuted"

    def to_json(self) -> dict:
        return {"fact": self.fact, "status": self.status, "proved": self.proved, "counterexample": self.counterexample}


def prove_fact(spec: Spec, decl: FactDecl) -> FactResult:
    """Prove a fact for ALL values of its arguments (unbounded integers), or refute it."""
    args = fact_arguments(decl)
    symbols = {name: (z3.Bool(name) if kind == "bool" else z3.Int(name)) for name, kind in args.items()}
    claim = as_bool(decl.method(Z3, **symbols))
    solver = z3.Solver()
    solver.add(z3.Not(claim))
    answer = solver.check()
    if answer == z3.unsat:
        return FactResult(decl.name, "proved")
    if answer == z3.sat:
        model = solver.model()
        values = {}
        for name, sym in symbols.items():
            got = model.eval(sym, model_completion=True)
            values[name] = z3.is_true(got) if args[name] == "bool" else got.as_long()
        return FactResult(decl.name, "refuted", values)
    return FactResult(decl.name, "unknown", {"z3": f"unknown: {solver.reason_unknown()}"})


def fact_arguments(decl: FactDecl) -> dict[str, str]:
    """A fact's arguments are its keyword-only parameters, annotated 'int' or 'bool'."""
    params = inspect.signature(decl.method).parameters
    return {name: (p.annotation if isinstance(p.annotation, str) else p.annotation.__name__)
            for name, p in params.items() if p.kind is inspect.Parameter.KEYWORD_ONLY}
