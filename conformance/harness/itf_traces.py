"""Every live trace a check validated, saved in the bundle as an ITF file (issue 49, point 3), so
``pulsar-conformance spec replay SPEC FILE`` checks it against the spec again, with nothing of the
suite but the spec.

A trace check (a protocol's ``trace.py``) replays the live history through its spec and gets one
spec behaviour: the realized sequence of spec states, the hidden actions the validator filled in
included. The judge attaches it to the row (``attach``: a ``LiveTrace``, held in memory only); the
recorder, when it writes the row, writes the behaviour as
``captures/<scenario>/traces/<check>[.<part>].itf.json`` and names the file in the row's
``details.itf`` (relative to the bundle). So it is written by the judging afterwards, live (the record
step) and again by ``pulsar-conformance judge BUNDLE`` into the new bundle, never by a scenario;
a judge called without a recorder (offline tests of a judge) writes nothing. The bundle's manifest
is made after the tests (and after re-judging), so the files are sealed with the rest.

The file's ``#meta`` names the spec, variant and constants (what ``spec replay`` builds the spec
from), the check and the capture; each state's ``#meta`` the action into it and, for a step the
run observed, ``observed`` (the observation, as the check's evidence shows it); a step without it
was filled in. A live trace the spec REJECTED is saved as its accepted prefix, with the step the
spec refused after it in ``#meta.rejected`` (label, note, problem): ``spec replay`` replays the
prefix and then answers REJECTED, exit 1, naming that step, since the live trace is not a behaviour.
An invariant broken along an accepted trace is in ``#meta.invariants_broken``; replay (which judges
steps, not invariants) accepts such a file.
"""
from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from pulsar_conformance.files import write_atomic
from pulsar_conformance.spec.core import itf
from pulsar_conformance.spec.core.model import Spec, Violation

FOLDER = "traces"
SUFFIX = ".itf.json"
# a row validates a few traces (a Key_Shared pair one per key, a check two variants); a capture's
# trace files stay a handful however many keys or pairs a run has
MAX_PER_ROW = 4
MAX_PER_CAPTURE = 48


@dataclass
class LiveTrace:
    """One live history as a spec behaviour: ``labels[i]`` leads from ``states[i]`` to ``states[i + 1]``."""

    spec: Spec
    states: list
    labels: list[str]
    # per label: what the run observed of the step (its note), or None for a step the check filled in
    observed: list[str | None]
    engine: str  # how the check reached the behaviour: trace-validation (hidden steps) or replay
    part: str = ""  # what tells it from the row's other traces: a variant, a key
    rejected: dict | None = None  # the step the spec refused after the last state: label, note, problem
    broken: list = field(default_factory=list)  # (step, invariant) broken along the behaviour

    def document(self, *, check: str, capture: str) -> dict:
        doc = itf.to_itf(self.spec, Violation("", list(self.states), list(self.labels), self.engine), kind="live-trace",
                         description=f"the live history of {check} ({capture}) as a behaviour of {self.spec.name}")
        meta = doc["#meta"]
        meta.update({"check": check, "capture": capture, "part": self.part or None,
                     "observed_steps": sum(1 for o in self.observed if o is not None),
                     "filled_in_steps": sum(1 for o in self.observed if o is None)})
        if self.rejected is not None:
            meta["rejected"] = self.rejected
        if self.broken:
            meta["invariants_broken"] = [{"after_observed_step": i, "invariant": name} for i, name in self.broken]
        for state, seen in zip(doc["states"][1:], self.observed, strict=True):
            if seen is not None:
                state["#meta"]["observed"] = seen
        return doc


def from_validation(spec: Spec, result, steps: Sequence, *, part: str = "") -> LiveTrace:
    """The witness of ``interpreter.validate`` (``result``) over the observed ``steps`` (``Observed``)."""
    marks = result.observed if len(result.observed) == len(result.labels) else [0] * len(result.labels)
    notes = [(steps[n - 1].show() if 0 < n <= len(steps) else None) for n in marks]
    rejected = None
    if not result.ok and result.failed_step is not None and result.failed_step <= len(steps):
        refused = steps[result.failed_step - 1]
        rejected = {"observed_step": result.failed_step, "label": refused.label, "note": refused.note,
                    "problem": result.problem}
    return LiveTrace(spec, result.states, result.labels, notes, "trace-validation", part, rejected, list(result.broken))


def from_replay(spec: Spec, result, labels: Sequence[str], *, observed: Iterable[bool] | None = None,
                part: str = "", problem: str = "") -> LiveTrace:
    """The states of ``interpreter.replay`` (``result``) over ``labels``; ``observed``: per label whether the
    run saw it (default all), the others being the check's filled-in witness. A replay that stopped at a
    step the spec does not allow (``result.ok`` False) keeps it as ``rejected``."""
    seen = list(observed) if observed is not None else [True] * len(labels)
    done = len(result.states) - 1
    rejected = None
    if not result.ok and done < len(labels):
        rejected = {"step": done + 1, "label": labels[done], "note": "", "problem": problem or result.problem}
    return LiveTrace(spec, result.states, list(labels[:done]),
                     [labels[i] if seen[i] else None for i in range(done)], "replay", part, rejected,
                     list(result.broken or ()))


def attach(r, *traces: LiveTrace | None):
    """``r`` (a ``rows.Row``) with ``traces`` to save beside it; returns ``r``."""
    r.traces.extend(t for t in traces if t is not None)
    return r


def file_name(check: str, part: str = "") -> str:
    stem = ".".join(x for x in (check.replace("/", "."), part) if x)
    return re.sub(r"[^A-Za-z0-9._-]+", "_", stem) + SUFFIX


def save(traces: Sequence[LiveTrace], *, check: str, capture_dir: Path, bundle: Path,
         taken: set[str] | None = None) -> list[str]:
    """Write ``traces`` (the first ``MAX_PER_ROW``; at most ``MAX_PER_CAPTURE`` in ``taken``, the
    names a capture has so far) as ITF files under ``capture_dir/traces``; their paths relative to ``bundle``."""
    taken = set() if taken is None else taken
    capture = capture_dir.relative_to(bundle).as_posix()
    written = []
    for t in traces[:MAX_PER_ROW]:
        if len(taken) >= MAX_PER_CAPTURE:
            break
        name = file_name(check, t.part)
        for n in range(2, 100):
            if name not in taken:
                break
            name = file_name(check, f"{t.part}-{n}" if t.part else str(n))
        taken.add(name)
        path = capture_dir / FOLDER / name
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, _text(t.document(check=check, capture=capture)))
        written.append(path.relative_to(bundle).as_posix())
    return written


def _text(doc: dict) -> str:
    """The document with one state a line: a live run's trace has hundreds of states (a tenant migration's
    arrays one value a message), which ``itf.write``'s one value a line makes several times longer."""
    head = {k: v for k, v in doc.items() if k != "states"}
    body = ",\n".join(json.dumps(st, separators=(",", ":")) for st in doc["states"])
    return json.dumps(head, indent=1)[:-2] + ',\n "states": [\n' + body + "\n ]\n}\n"
