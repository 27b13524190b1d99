"""What an explore run leaves in its bundle, beside the certification files certify writes:

- ``schedules.jsonl``: every schedule that ran (generated, a shrinking candidate, a replay): its
  steps, its history (each step's invoke and complete time and result), its verdict and failures;
- ``failing/<schedule>.json``: the smallest failing schedule of each search, a file ``--replay`` runs;
- ``itf/<schedule>.itf.json``: each schedule as an ITF trace of the spec states the tester's steps led
  to, with Quint's model-based-testing fields (``mbt::actionTaken``, ``mbt::nondetPicks``) per state;
- ``explore.json``: the figures (schedules and steps per minute), the candidates with their replay
  counts (a generated FAIL is a candidate until its smallest schedule fails in 2 of 3 replays and the
  source explains it: docs/findings.md), the faults the deployment could not perform, the coverage.
"""
from __future__ import annotations

import json
import time
from pathlib import Path

from pulsar_conformance.files import write_atomic
from pulsar_conformance.spec.core.itf import to_itf
from pulsar_conformance.spec.core.model import Violation

from . import schedule as schedules
from .model import spec_abstract_states

REPLAYS_NEEDED = 2  # of 3: docs/findings.md's rule for a generated failure


def itf(explorer, run) -> dict:
    """The schedule as the spec's ITF trace (spec.core.itf.to_itf, as `spec explore --itf` writes one) of the states
    the tester's steps led to, each with Quint's model-based-testing fields: the action taken and its picks."""
    doc = to_itf(explorer.adapter.spec, Violation("", list(run.tracker.states), list(run.tracker.labels), "hypothesis"),
                 kind="live-schedule", description=f"schedule {run.schedule.name} ({run.schedule.origin}): {run.verdict}")
    doc["#meta"]["source"] = f"pulsar-conformance explore --live {explorer.adapter.protocol}"
    for state, step in zip(doc["states"], [None, *run.schedule.steps], strict=True):
        state["mbt::actionTaken"] = state["#meta"]["action"]
        state["mbt::nondetPicks"] = {k: {"tag": "Some", "value": {"#bigint": str(v)}} for k, v in (step.args if step else ())}
    return doc


def candidate(run) -> dict:
    replays = getattr(run, "replays", [])
    failed = sum(1 for r in replays if r.verdict == "fail")
    original = getattr(run, "original", run)
    return {"schedule": run.schedule.name, "file": f"failing/{run.schedule.name}.json",
            "failures": run.failures, "steps": len(run.schedule.steps),
            "shrunk_from": {"schedule": original.schedule.name, "steps": len(original.schedule.steps)},
            "replayed": f"{failed} of {len(replays)}",
            "status": ("candidate: fails again on replay; a finding once the source explains it"
                       if replays and failed >= REPLAYS_NEEDED else
                       "candidate: did not fail again often enough on replay (an observation)")}


def write(out: Path, explorer, found: list, missing: list[str], asked, disagree: list[str] = ()) -> dict:
    (out / "failing").mkdir(exist_ok=True)
    (out / "itf").mkdir(exist_ok=True)
    lines = []
    for run in explorer.runs:
        lines.append(json.dumps({**run.schedule.to_json(), "history": schedules.history_json(run.schedule),
                                 "verdict": run.verdict, "failures": run.failures, "error": run.error,
                                 "seconds": run.seconds, "rows": [r.check for r in run.rows]}))
        write_atomic(out / "itf" / f"{run.schedule.name}.itf.json", json.dumps(itf(explorer, run), indent=1))
    write_atomic(out / "schedules.jsonl", "\n".join(lines) + ("\n" if lines else ""))
    for run in found:
        schedules.write(out / "failing" / f"{run.schedule.name}.json", run.schedule, failures=run.failures)
    seconds = max(time.monotonic() - explorer.started, 1e-9)
    steps = sum(len(r.schedule.steps) for r in explorer.runs)
    spec_states, complete = spec_abstract_states(explorer.adapter.spec, explorer.adapter.vocabulary)
    explorer.coverage.spec_states, explorer.coverage.spec_complete = spec_states, complete
    vocabulary = [*explorer.adapter.vocabulary.operations, *(f.name for f in explorer.adapter.vocabulary.faults)]
    doc = {"protocol": explorer.adapter.protocol, "request": asked.to_json(), "seconds": round(seconds, 1),
           "schedules": len(explorer.runs), "steps": steps,
           "schedules_per_minute": round(len(explorer.runs) * 60 / seconds, 2),
           "steps_per_minute": round(steps * 60 / seconds, 1),
           "verdicts": {v: sum(1 for r in explorer.runs if r.verdict == v) for v in ("pass", "fail", "unknown")},
           "candidates": [candidate(r) for r in found], "faults_not_generated": missing,
           # a schedule whose in-process verdict (the search's) and Spark's (the recorded one) differ
           "engines_disagree": list(disagree),
           "coverage": explorer.coverage.to_json(vocabulary)}
    write_atomic(out / "explore.json", json.dumps(doc, indent=1))
    return doc
