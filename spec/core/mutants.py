"""Mutation testing of a spec: every mutant must be killed by z3 and by Hypothesis.

A mutant is killed by an engine when that engine finds a violation of an invariant (or a
fact) that is expected to hold in the mutant's variant, and that the unmutated variant does not
break at the same budget (its baseline, searched once per variant for every property its
mutants claim): a property the baseline breaks too would "kill" every mutant for free. The report also says, for every
invariant expected to hold somewhere, which mutants break it: an invariant no mutant
breaks is an invariant nobody has shown can fail.
"""
from __future__ import annotations

import time

from .bmc import bmc, prove_fact
from .check import Budget, falsify_fact
from .machine import run_machine_per_invariant
from .model import Spec


def run_mutants(spec_cls: type[Spec], budget: Budget, constants: dict | None = None, only: str | None = None) -> dict:
    constants = constants or {}
    chosen = [m for m in spec_cls.MUTANTS if not only or m.name == only]
    baselines = _baselines(spec_cls, chosen, constants, budget)
    rows = []
    for mutant in chosen:
        spec = spec_cls(variant=mutant.variant, mutant=mutant.name, **constants)
        baseline = baselines[spec.variant]
        # the search aims at what the mutant claims to break; a mutant that breaks something
        # else instead shows up as "breaks_what_it_claims": false
        claimed = set(mutant.breaks)
        invariants = [i for i in spec.invariants if spec.expectation(i) == "holds" and i.name in claimed]
        facts = [f for f in spec.facts if spec.expectation(f) == "holds" and f.name in claimed]
        started = time.perf_counter()
        z3_found = [p for p in _z3(spec, invariants, facts, budget) if p not in baseline["broke"]]
        hyp_found = [p for p in _hypothesis(spec, invariants, facts, budget) if p not in baseline["broke"]]
        rows.append({
            "mutant": mutant.name,
            "variant": spec.variant,
            "doc": mutant.doc,
            "must_break": list(mutant.breaks),
            "z3": {"killed": bool(z3_found), "broke": z3_found},
            "hypothesis": {"killed": bool(hyp_found), "broke": hyp_found},
            "killed": bool(z3_found) and bool(hyp_found),
            "breaks_what_it_claims": bool(set(mutant.breaks) & (set(z3_found) | set(hyp_found))),
            "baseline_broke": sorted(set(mutant.breaks) & set(baseline["broke"])),
            "seconds": round(time.perf_counter() - started, 2),
        })
    coverage = _coverage(spec_cls, constants, rows)
    ok = (all(r["killed"] and r["breaks_what_it_claims"] for r in rows) and all(c["broken_by"] for c in coverage)
          and not any(b["broke"] for b in baselines.values()))
    return {"spec": spec_cls.name, "ok": ok, "mutants": rows, "coverage": coverage, "baselines": baselines}


def _baselines(spec_cls, mutants, constants, budget) -> dict[str, dict]:
    """Per variant: what the unmutated spec breaks among the properties its mutants claim, with
    both engines at the mutants' budget. Empty is the only sound ground for a kill."""
    claimed: dict[str, set] = {}
    for mutant in mutants:
        variant = spec_cls(variant=mutant.variant, **constants).variant
        claimed.setdefault(variant, set()).update(mutant.breaks)
    out = {}
    for variant, names in claimed.items():
        spec = spec_cls(variant=variant, **constants)
        invariants = [i for i in spec.invariants if spec.expectation(i) == "holds" and i.name in names]
        facts = [f for f in spec.facts if spec.expectation(f) == "holds" and f.name in names]
        started = time.perf_counter()
        broke = sorted(set(_z3(spec, invariants, facts, budget)) | set(_hypothesis(spec, invariants, facts, budget)))
        out[variant] = {"checked": sorted(names), "broke": broke, "seconds": round(time.perf_counter() - started, 2)}
    return out


def _z3(spec, invariants, facts, budget) -> list[str]:
    found = []
    for decl in facts:
        if prove_fact(spec, decl).refuted:  # z3 "unknown" is no kill
            found.append(decl.name)
    if invariants:
        # only the claimed invariants are searched, and the search goes on until each of them
        # is found (or the depth runs out): a shallower claim must not hide a deeper one
        result = bmc(spec, depth=budget.depth, invariants=invariants, max_seconds=budget.max_seconds)
        found += sorted(result.violations)
    return found


def _hypothesis(spec, invariants, facts, budget) -> list[str]:
    found = [decl.name for decl in facts if falsify_fact(spec, decl, budget) is not None]
    # a kill needs a failing run, not a minimal one: shrinking was 95% of the mutants' time
    broken, _ = run_machine_per_invariant(spec, invariants, examples=budget.examples, steps=budget.steps,
                                          seed=budget.seed, shrink=False)
    return found + [v.invariant for v in broken]


def _coverage(spec_cls, constants, rows) -> list[dict]:
    """For each invariant or fact expected to hold in some variant: the mutants that break it."""
    claimed: dict[str, set] = {}
    for variant in spec_cls.VARIANTS:
        spec = spec_cls(variant=variant, **constants)
        for decl in (*spec.invariants, *spec.facts):
            if spec.expectation(decl) == "holds":
                claimed.setdefault(decl.name, set()).add(variant)
    out = []
    for name, variants in claimed.items():
        breakers = sorted(r["mutant"] for r in rows if name in r["z3"]["broke"] and name in r["hypothesis"]["broke"])
        out.append({"property": name, "holds_in": sorted(variants), "broken_by": breakers})
    return out


def mutants_text(report: dict) -> str:
    lines = [f"mutants of {report['spec']}:"]
    for variant, b in report.get("baselines", {}).items():
        state = f"BREAKS {', '.join(b['broke'])}: no kill of these counts" if b["broke"] else "holds"
        lines.append(f"  baseline {variant}: {state} ({len(b['checked'])} properties, {b['seconds']}s)")
    for r in report["mutants"]:
        mark = "killed  " if r["killed"] and r["breaks_what_it_claims"] else "SURVIVED"
        lines.append(f"  [{mark}] {r['mutant']} ({r['variant']}): z3 broke {r['z3']['broke'] or 'nothing'}; "
                     f"hypothesis broke {r['hypothesis']['broke'] or 'nothing'}  ({r['seconds']}s)")
    lines.append("coverage (property <- mutants that both engines use to break it):")
    for c in report["coverage"]:
        mark = "ok  " if c["broken_by"] else "NONE"
        lines.append(f"  [{mark}] {c['property']} ({', '.join(c['holds_in'])}) <- {', '.join(c['broken_by']) or 'no mutant'}")
    lines.append(f"  => {'PASS' if report['ok'] else 'FAIL'}")
    return "\n".join(lines)
