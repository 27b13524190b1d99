"""A schedule of tester steps, the history a live run of it records, and their files.

A step is what the tester does (an operation of the spec, or a fault the spec does not model); the
history entry of a step says when it was invoked and completed on the real clusters and what came of
it (Jepsen's history). A schedule file holds the steps alone: replaying it performs the same steps
in fresh namespaces, whatever Hypothesis would pick today.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from pulsar_conformance.errors import UsageError
from pulsar_conformance.files import write_atomic

FORMAT = "pulsar-conformance-schedule/1"
KINDS = ("operation", "fault")


@dataclass(frozen=True)
class Step:
    action: str  # the spec action performed (an operation) or the adapter's fault
    kind: str = "operation"  # operation | fault
    args: tuple[tuple[str, int], ...] = ()  # the action's parameters, as the spec names them

    def label(self) -> str:
        if not self.args:
            return self.action
        return f"{self.action}({', '.join(f'{k}={v}' for k, v in self.args)})"

    def arg(self, name: str) -> int:
        return dict(self.args)[name]

    def to_json(self) -> dict:
        return {"action": self.action, "kind": self.kind, "args": dict(self.args)}

    @classmethod
    def from_json(cls, doc) -> Step:
        if not isinstance(doc, dict) or not isinstance(doc.get("action"), str) or doc.get("kind", "operation") not in KINDS:
            raise ValueError(f"a step is {{action, kind (operation|fault), args}}, not {str(doc)[:80]}")
        args = doc.get("args") or {}
        if not isinstance(args, dict) or not all(isinstance(k, str) and type(v) is int for k, v in args.items()):
            raise ValueError(f"step {doc['action']}: args are name -> whole number, not {str(args)[:80]}")
        return cls(doc["action"], doc.get("kind", "operation"), tuple(sorted(args.items())))


@dataclass
class Entry:
    """One step as the live clusters took it: invoke and complete times (ns, the tester's clock), the
    result (``ok``, ``error`` or ``not-reached``: the state the step waits for did not come within its
    bound) and what was said (an error, a figure)."""

    index: int
    step: Step
    invoke_ns: int
    complete_ns: int = 0
    result: str = "ok"
    said: str = ""
    closing: bool = False  # a step the adapter added to reach the judged state (heal, sync, switch)

    def to_json(self) -> dict:
        return {"index": self.index, **self.step.to_json(), "invoke_ns": self.invoke_ns,
                "complete_ns": self.complete_ns, "result": self.result, "said": self.said, "closing": self.closing}


@dataclass
class Schedule:
    protocol: str
    name: str
    seed: int
    steps: list[Step] = field(default_factory=list)
    history: list[Entry] = field(default_factory=list)
    origin: str = "generated"  # generated | shrinking | replay

    def to_json(self) -> dict:
        return {"format": FORMAT, "protocol": self.protocol, "name": self.name, "seed": self.seed,
                "origin": self.origin, "steps": [s.to_json() for s in self.steps]}


def write(path: Path, schedule: Schedule, **extra) -> Path:
    write_atomic(path, json.dumps({**schedule.to_json(), **extra}, indent=1) + "\n")
    return path


MAX_BYTES = 1 << 20  # a schedule is a few hundred steps at most: a larger file is not one of ours


def read(path: str | Path, protocol: str | None = None) -> Schedule:
    """A schedule file (``--replay``), checked before anything starts: a bad one is the user's input."""
    path = Path(path)
    fix = "give a file explore wrote (failing/<schedule>.json or a line of schedules.jsonl saved alone)"
    if not path.is_file():
        raise UsageError(f"--replay {path}: no such file", fix)
    if path.stat().st_size > MAX_BYTES:
        raise UsageError(f"--replay {path}: {path.stat().st_size} bytes is not a schedule (at most {MAX_BYTES})", fix)
    try:
        doc = json.loads(path.read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise UsageError(f"--replay {path}: not JSON ({error})", fix) from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise UsageError(f"--replay {path}: not a schedule (format {FORMAT!r} expected)", fix)
    if protocol is not None and doc.get("protocol") != protocol:
        raise UsageError(f"--replay {path}: a schedule of {doc.get('protocol')!r}, not of {protocol!r}",
                         f"replay it with its own profile ({doc.get('protocol')})")
    try:
        steps = [Step.from_json(s) for s in doc.get("steps") or []]
    except ValueError as error:
        raise UsageError(f"--replay {path}: {error}", fix) from None
    if not steps:
        raise UsageError(f"--replay {path}: the schedule has no step", fix)
    seed = doc.get("seed")
    return Schedule(doc["protocol"], str(doc.get("name") or path.stem), seed if type(seed) is int else 0, steps,
                    origin="replay")


def history_json(schedule: Schedule) -> list[dict]:
    return [e.to_json() for e in schedule.history]
