"""The executable specs as certification verdicts: each invariant and fact of each spec run
becomes a ``model`` verdict on the requirements the catalog links to it, and every mutant the
profile names must be killed (a checker that cannot fail proves nothing).

Model verdicts judge the protocol as specified and as read in Pulsar's code, not the clusters
under test; the report shows them apart from deployment verdicts (docs/certify.md).
"""
from __future__ import annotations

import json

import pytest

from pulsar_conformance.conformance.profiles import PROFILES
from pulsar_conformance.protocols import PROTOCOLS
from pulsar_conformance.spec.catalog import load as load_catalog

from .run import CertifyRun, VerdictUnknown, record

_AREA_MARK = {p.area: getattr(pytest.mark, p.marker) for p in PROTOCOLS if p.spec}
_PROFILE = PROFILES[CertifyRun.from_env().profile] if CertifyRun.from_env().profile in PROFILES else PROFILES["smoke"]


def _marks(spec: str):
    return [pytest.mark.smoke, _AREA_MARK[spec]] if spec in _AREA_MARK else [pytest.mark.smoke]


def _linked(spec: str, variant: str, element: str) -> list[str]:
    """Requirement ids the catalog links to this spec element in this variant."""
    out = []
    for req in load_catalog().requirements:
        if not req.spec or req.spec.get("name") != spec:
            continue
        if variant not in req.spec.get("variants", [variant]):
            continue
        if element in req.spec.get("invariants", []) or element in req.spec.get("facts", []):
            out.append(req.id)
    return out


def _row_verdict(row: dict, complete: bool) -> str:
    if row["ok"]:
        return "pass"
    # An expected violation no engine found within the budget means the search did not reach
    # the violating state: unknown, unless the explorer saw every reachable state.
    if row["expected"] == "violated" and row["observed"] == "holds" and not complete:
        return "unknown"
    return "fail"


@pytest.mark.parametrize("run", [pytest.param(r, marks=_marks(r.spec), id=r.id) for r in _PROFILE.spec_runs])
def test_spec_check(run, certify_run, request):
    from pulsar_conformance.spec.core.check import ENGINES, Budget, check
    from pulsar_conformance.spec.registry import spec_class

    spec = spec_class(run.spec)(variant=run.variant)
    budget = Budget(depth=run.depth, examples=run.examples, max_states=run.max_states, seed=certify_run.seed)
    report = check(spec, ENGINES, budget)
    doc = report.to_json()
    path = certify_run.directory("spec") / f"check-{run.spec}-{run.variant}.json"
    path.write_text(json.dumps(doc, indent=2, default=str))
    complete = bool(doc["engines"].get("explore", {}).get("complete"))
    depth = doc["engines"].get("z3", {}).get("depth_reached")
    verdicts = []
    for row in doc["invariants"]:
        inductive = ", proved inductive" if row["proved_inductive"] else ""
        evidence = (f"expected {row['expected']}, observed {row['observed']}"
                    f"{' (found by ' + ', '.join(row['found_by']) + ')' if row['found_by'] else ''}"
                    f"; explorer {'complete' if complete else 'bounded'}, z3 BMC depth {depth}{inductive}")
        verdicts.append(record(certify_run, check=f"spec:{run.id}:{row['invariant']}", kind="model",
                               requirements=_linked(run.spec, run.variant, row["invariant"]),
                               verdict=_row_verdict(row, complete), evidence=evidence, test=request.node.nodeid,
                               details={"expected": row["expected"], "observed": row["observed"]}))
    for row in doc["facts"]:
        evidence = f"expected {row['expected']}, z3: {row['z3']}"
        verdicts.append(record(certify_run, check=f"spec:{run.id}:{row['fact']}", kind="model",
                               requirements=_linked(run.spec, run.variant, row["fact"]),
                               verdict="pass" if row["ok"] else "fail", evidence=evidence, test=request.node.nodeid,
                               details={"expected": row["expected"], "observed": row["observed"]}))
    failed = [v["check"] for v in verdicts if v["verdict"] == "fail"]
    unknown = [v["check"] for v in verdicts if v["verdict"] == "unknown"]
    assert not failed and report.status != "fail", (
        f"suite defect: spec {run.id} behaved unlike its documented expectations: {failed or 'induction failed'}\n"
        + report.to_text())
    if unknown or report.status == "unknown":
        raise VerdictUnknown(f"budget too small to reach: {unknown or report.budget_short()} "
                             "(raise the profile's depth/max_states, or give the engines more time)")


@pytest.mark.parametrize("run", [pytest.param(m, marks=_marks(m.spec), id=f"{m.spec}[{m.only or 'all'}]")
                                 for m in _PROFILE.mutants])
def test_mutants_are_killed(run, certify_run, request):
    from pulsar_conformance.spec.core.check import Budget
    from pulsar_conformance.spec.core.mutants import run_mutants
    from pulsar_conformance.spec.registry import spec_class

    spec_name, only = run.spec, run.only
    budget = Budget(depth=run.depth, examples=run.examples, seed=certify_run.seed,
                    **({"steps": run.steps} if run.steps else {}))
    report = run_mutants(spec_class(spec_name), budget, None, only)
    path = certify_run.directory("spec") / f"mutants-{spec_name}.json"
    path.write_text(json.dumps(report, indent=2, default=str))
    survivors = [r["mutant"] for r in report["mutants"] if not (r["killed"] and r["breaks_what_it_claims"])]
    # With one mutant selected, the per-property coverage of the whole set cannot be judged.
    uncovered = [] if only else [c["property"] for c in report["coverage"] if not c["broken_by"]]
    assert not survivors and not uncovered, (
        f"suite defect: mutants of {spec_name} survived {survivors} or properties no mutant breaks {uncovered}")
