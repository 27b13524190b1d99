"""Run the engines on a spec and judge each invariant against what the spec expects.

Every invariant says, per variant, whether it is expected to hold or expected to be
violated (a documented difference, e.g. "as proposed" vs "as implemented"). A check passes
when every engine's finding matches the expectation: an expected violation that no engine
finds fails the check just like an unexpected one does.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field

from hypothesis import HealthCheck, Verbosity, given, settings
from hypothesis import seed as hypothesis_seed
from hypothesis import strategies as st

from .backend import CONCRETE
from .bmc import bmc, fact_arguments, induction, prove_fact
from .explorer import explore
from .machine import run_machine_per_invariant
from .model import Spec, Violation
from .render import violation_json, violation_table

ENGINES = ("explore", "z3", "hypothesis")


@dataclass
class Budget:
    depth: int = 12
    examples: int = 300
    steps: int = 40
    seed: int = 0
    max_states: int = 1_000_000
    max_seconds: float = 120.0
    shrink: bool = True  # shrink Hypothesis counterexamples (z3's BMC traces are shortest anyway)


@dataclass
class Report:
    spec: Spec
    engines: dict = field(default_factory=dict)  # engine -> summary json
    violations: dict = field(default_factory=dict)  # invariant -> {engine: Violation}
    induction: list = field(default_factory=list)
    facts: list = field(default_factory=list)  # (decl, z3 FactResult, hypothesis counterexample or None)
    seconds: float = 0.0

    def invariant_rows(self) -> list[dict]:
        rows = []
        for inv in self.spec.invariants:
            expected = self.spec.expectation(inv)
            if expected == "n/a":
                continue
            found = self.violations.get(inv.name, {})
            observed = "violated" if found else "holds"
            proved = any(r.invariant == inv.name and r.inductive for r in self.induction)
            rows.append({
                "invariant": inv.name,
                "doc": inv.doc,
                "expected": expected,
                "observed": observed,
                "ok": expected == observed,
                "found_by": sorted(found),
                "proved_inductive": proved,
            })
        return rows

    def fact_rows(self) -> list[dict]:
        rows = []
        for decl, z3_result, hyp_cex in self.facts:
            expected = self.spec.expectation(decl)
            if expected == "n/a":
                continue
            observed = {"proved": "holds", "refuted": "violated"}.get(z3_result.status, "unknown")
            if hyp_cex is not None:
                observed = "violated"  # a concrete counterexample settles what z3 could not
            # random search may miss a counterexample z3 finds, but must never find one z3 disproves
            agree = not (hyp_cex is not None and z3_result.proved)
            rows.append({
                "fact": decl.name, "doc": decl.doc, "expected": expected, "observed": observed,
                "ok": expected == observed and agree,
                "z3": "proved for all values" if z3_result.proved else z3_result.counterexample,
                "z3_status": z3_result.status,
                "hypothesis": hyp_cex,
            })
        return rows

    def budget_short(self) -> list[str]:
        """Where the engines stopped before the budget asked for: what they did not search
        cannot hold, so a check with any of these is unknown, never a pass."""
        short = []
        z3_summary = self.engines.get("z3")
        if z3_summary and z3_summary["depth_reached"] < z3_summary["requested_depth"] \
                and z3_summary["stopped_by"] != "violation":
            short.append(f"z3 BMC reached depth {z3_summary['depth_reached']} of {z3_summary['requested_depth']} "
                         f"({z3_summary['stopped_by'] or 'stopped'})")
        explored = self.engines.get("explore")
        if explored and explored["stopped_by"] == "max_seconds":
            short.append(f"the explorer ran out of time after {explored['distinct_states']} states "
                         f"(depth {explored['depth']})")
        short += [f"z3 could not decide whether {r.invariant} is inductive" for r in self.induction if r.undecided]
        short += [f"z3 could not decide fact {r['fact']}" for r in self.fact_rows() if r["observed"] == "unknown"]
        return short

    @property
    def status(self) -> str:
        """pass | fail | unknown. A property expected to hold that some engine broke fails
        whatever the budget; otherwise a search that stopped short is unknown."""
        rows = self.invariant_rows() + self.fact_rows()
        broken = [r for r in rows if r["expected"] == "holds" and r["observed"] == "violated"]
        disagree = [r for r in self.fact_rows() if r["observed"] != "unknown" and not r["ok"]]
        refuted_induction = [r for r in self.induction if not r.undecided and not r.inductive]
        if broken or disagree or refuted_induction:
            return "fail"
        if self.budget_short():
            return "unknown"
        return "pass" if all(r["ok"] for r in rows) and all(r.inductive for r in self.induction) else "fail"

    @property
    def ok(self) -> bool:
        return self.status == "pass"

    def to_json(self) -> dict:
        return {
            **self.spec.identity(),
            "ok": self.ok,
            "status": self.status,
            "budget_short": self.budget_short(),
            "seconds": round(self.seconds, 3),
            "derived": self.spec.describe_constants(),
            "engines": self.engines,
            "invariants": self.invariant_rows(),
            "induction": [r.to_json() for r in self.induction],
            "facts": self.fact_rows(),
            "counterexamples": [
                violation_json(self.spec, v) for by_engine in self.violations.values() for v in by_engine.values()
            ],
        }

    def to_text(self) -> str:
        s = self.spec
        lines = [f"spec {s.name} variant={s.variant} constants={s.constants}"]
        for engine, summary in self.engines.items():
            lines.append(f"  {engine}: {_summary_text(engine, summary)}")
        derived = s.describe_constants()
        if derived:
            lines.append(f"  derived: {derived}")
        for row in self.invariant_rows():
            mark = "ok  " if row["ok"] else "FAIL"
            extra = " (proved inductive)" if row["proved_inductive"] else ""
            by = f" found by {', '.join(row['found_by'])}" if row["found_by"] else ""
            lines.append(f"  [{mark}] {row['invariant']}: expected {row['expected']}, observed {row['observed']}{by}{extra}")
        for r in self.induction:
            if not r.inductive:
                lines.append(f"  [FAIL] {r.invariant} is declared inductive but "
                             f"{'initiation' if not r.initiation else 'consecution'} fails")
                if r.counterexample:
                    lines.append(_indent(violation_table(s, r.counterexample, only_changed=False)))
        for row in self.fact_rows():
            mark = "ok  " if row["ok"] else "FAIL"
            lines.append(f"  [{mark}] fact {row['fact']}: expected {row['expected']}, z3: {row['z3']}")
        shown = set()
        for name, by_engine in self.violations.items():
            # one table per invariant is enough: the shortest one, which BFS and BMC both give
            best = min(by_engine.values(), key=lambda v: v.length)
            if name not in shown:
                shown.add(name)
                lines.append(_indent(violation_table(s, best)))
        short = self.budget_short()
        if short and self.status == "unknown":
            lines.append(f"  budget not reached: {'; '.join(short)} (raise --max-seconds, or lower --depth/--max-states)")
        lines.append(f"  => {self.status.upper()} in {self.seconds:.1f}s")
        return "\n".join(lines)


def _indent(text: str) -> str:
    return "\n".join("    " + line for line in text.splitlines())


def _summary_text(engine: str, summary: dict) -> str:
    if engine == "explore":
        return (f"{summary['distinct_states']} distinct states, depth {summary['depth']}, "
                f"{summary['states_per_second']} states/s, {'complete' if summary['complete'] else 'stopped: ' + summary['stopped_by']}")
    if engine == "z3":
        return f"BMC to depth {summary['depth_reached']} of {summary['requested_depth']} in {summary['seconds']}s"
    return f"{summary['examples']} examples, {summary['steps']} steps, seed {summary['seed']}, {summary['examples_per_second']} examples/s"


def check(spec: Spec, engines=ENGINES, budget: Budget | None = None, *, stop_at_first: bool = False) -> Report:
    budget = budget or Budget()
    started = time.perf_counter()
    report = Report(spec)
    invariants = spec.checked_invariants()

    def record(found: dict[str, Violation]):
        for name, violation in found.items():
            report.violations.setdefault(name, {})[violation.engine] = violation

    if "explore" in engines:
        result = explore(spec, invariants=invariants, max_states=budget.max_states,
                         max_seconds=budget.max_seconds, stop_at_first=stop_at_first)
        report.engines["explore"] = result.to_json()
        record(result.violations)
    if "z3" in engines:
        result = bmc(spec, depth=budget.depth, invariants=invariants, max_seconds=budget.max_seconds,
                     stop_at_first=stop_at_first)
        report.engines["z3"] = result.to_json()
        record(result.violations)
        if not stop_at_first:
            report.induction = induction(spec)
    if "hypothesis" in engines:
        found, totals = run_machine_per_invariant(spec, invariants, examples=budget.examples, steps=budget.steps,
                                                  seed=budget.seed, stop_at_first=stop_at_first,
                                                  shrink=budget.shrink)
        record({v.invariant: v for v in found})
        report.engines["hypothesis"] = totals
    for decl in spec.facts:
        if spec.expectation(decl) == "n/a":
            continue
        z3_result = prove_fact(spec, decl) if "z3" in engines else None
        hyp = falsify_fact(spec, decl, budget) if "hypothesis" in engines else None
        if z3_result is not None:
            report.facts.append((decl, z3_result, hyp))
    report.seconds = time.perf_counter() - started
    return report


def falsify_fact(spec: Spec, decl, budget: Budget):
    """Hypothesis' attempt at a fact: random values for its arguments; a counterexample or None."""
    args = fact_arguments(decl)
    strategies = {name: (st.booleans() if kind == "bool" else st.integers(-3, 3)) for name, kind in args.items()}
    found = {}

    @settings(max_examples=max(200, budget.examples), deadline=None, database=None,
              suppress_health_check=list(HealthCheck), verbosity=Verbosity.quiet, print_blob=False)
    @given(**strategies)
    def attempt(**values):
        if not decl.method(CONCRETE, **values):
            found.update(values)
            raise AssertionError(decl.name)

    try:
        hypothesis_seed(budget.seed)(attempt)()
    except AssertionError:
        return dict(found)
    return None
