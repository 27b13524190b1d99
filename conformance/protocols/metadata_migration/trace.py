"""The phases a PIP-454 run observed, with the faults it injected, projected onto the
metadata-migration spec and validated (conformance/harness/projection.py).

Observed: the status endpoint's phase changes (PREPARATION is ``start``, COPYING ``begin_copy``,
COMPLETED ``complete``, FAILED ``fail``), Oxia killed (``target_lost``), the coordinator's broker
killed (``coordinator_crash``), and the retry's phases. Hidden: the participants' notices,
preparations, writes, crashes and restarts, and the copy of each key. The status is polled every
50 ms, so a phase can pass unseen: ``begin_copy`` is hidden as well as observed.
"""
from __future__ import annotations

from pulsar_conformance.spec.core.interpreter import Observed, ValidationResult
from pulsar_conformance.spec.protocols.metadata_migration import FAILED, MetadataMigration

from ...harness import itf_traces, projection

ACTION = {"PREPARATION": "start", "COPYING": "begin_copy", "COMPLETED": "complete", "FAILED": "fail"}
FAULT = {"oxia": "target_lost", "coordinator": "coordinator_crash"}
HIDDEN = ("notice", "prepare", "copy", "begin_write", "end_write", "write_target", "crash", "restart", "begin_copy")


def observed_steps(doc: dict) -> list[Observed]:
    steps: list[Observed] = []
    injected = (doc.get("fault") or {}).get("injected_in")
    fault = FAULT.get(doc["plan"].get("fault") or "")
    previous = "NOT_STARTED"
    for p in doc["phases"]:
        if fault and previous == injected and p["phase"] != previous:
            if fault == "coordinator_crash" and p["phase"] == "FAILED":
                # the PIP's recovery: its coordinator_crash writes FAILED in the same step (as-proposed), so the
                # FAILED seen next is that step's effect, not a fail of a coordinator that is gone (which no
                # variant allows); as-implemented's crash leaves the phase, and the check says it did not
                steps.append(Observed(fault, check=lambda _before, after: after.phase == FAILED,
                                      note=f"{fault} in {injected}, then FAILED"))
                fault, previous = None, p["phase"]
                continue
            steps.append(Observed(fault, note=f"{fault} in {injected}"))
            fault = None
        if p["phase"] in ACTION and p["phase"] != previous:
            steps.append(Observed(ACTION[p["phase"]], note=p["phase"]))
        previous = p["phase"]
    if fault and injected:  # nothing was seen after the fault (the broker did not come back)
        steps.append(Observed(fault, note=f"{fault} in {injected}"))
    for p in (doc.get("retry") or {}).get("phases") or []:
        if p["phase"] in ACTION and p["phase"] != previous:
            steps.append(Observed(ACTION[p["phase"]], note=f"retry: {p['phase']}"))
        previous = p["phase"]
    return steps


def validate(doc: dict, variant: str) -> ValidationResult:
    spec = MetadataMigration(variant=variant)
    return projection.check(projection.Projected(spec, observed_steps(doc), hidden=HIDDEN))


def evidence(doc: dict) -> tuple[bool | None, str]:
    """Is what was observed a behaviour of the PIP (as-proposed)? And of 5.0.0-M1's model?"""
    verdict, said, _ = checked(doc)
    return verdict, said


def checked(doc: dict) -> tuple[bool | None, str, list[itf_traces.LiveTrace]]:
    """``evidence``, with the behaviour each variant's validation found (as-proposed's first), to save
    as ITF files of the bundle."""
    steps = observed_steps(doc)
    if not steps:
        return None, "no phase change observed", []
    shown = ", ".join(s.label for s in steps)
    said, witnesses = [], []
    verdict = None
    for variant in ("as-proposed", "as-implemented"):
        spec = MetadataMigration(variant=variant)
        result = projection.check(projection.Projected(spec, steps, hidden=HIDDEN))
        if variant == "as-proposed":
            verdict = result.ok
        witnesses.append(itf_traces.from_validation(spec, result, steps, part=variant))
        said.append(f"{variant}: {'a behaviour' if result.ok else 'NOT a behaviour (' + str(result.problem)[:200] + ')'}")
    return verdict, f"trace [{shown}] against the spec: {'; '.join(said)}", witnesses
