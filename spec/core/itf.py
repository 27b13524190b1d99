"""Traces in the Informal Trace Format (ITF, Apalache ADR-015), the JSON that Apalache and Quint
read and write: counterexamples, reach traces and simulations leave the suite in it, and
``spec replay`` checks one against the spec (every step an action the spec allows).

Values: booleans as JSON booleans, integers as ``{"#bigint": "N"}``, enum values as their names,
arrays indexed by an enum as records, other arrays as lists. The action into each state is in
the state's ``#meta`` (``action``); a trace from elsewhere may leave it out.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from pulsar_conformance.files import write_atomic

from .interpreter import apply, initial_state
from .model import BoolT, Spec, Violation
from .view import changes, raw, value

SCHEMA = Path(__file__).with_name("itf.schema.json")
DESCRIPTION = "https://apalache-mc.org/docs/adr/015adr-trace.html"


def _wrap(typ, v):
    return bool(v) if isinstance(typ, BoolT) else {"#bigint": str(int(v))}


def _unwrap(_typ, doc):
    return int(doc["#bigint"]) if isinstance(doc, dict) and "#bigint" in doc else doc


def encode_value(typ, raw_value):
    return value(typ, raw_value, _wrap)


def decode_value(typ, doc):
    return raw(typ, doc, _unwrap)


def to_itf(spec: Spec, trace: Violation, *, kind: str, description: str = "") -> dict:
    labels = ["init", *trace.labels]
    return {
        "#meta": {"format": "ITF", "format-description": DESCRIPTION, "source": f"pulsar-conformance spec {spec.name}",
                  "description": description, "kind": kind, "engine": trace.engine, **spec.identity()},
        "vars": list(spec.var_types),
        "states": [{"#meta": {"index": i, "action": labels[i]},
                    **{var: encode_value(typ, getattr(state, var)) for var, typ in spec.var_types.items()}}
                   for i, state in enumerate(trace.states)],
    }


def write(path: Path, doc: dict) -> None:
    write_atomic(path, json.dumps(doc, indent=1) + "\n")


@cache
def _validator():
    import jsonschema

    schema = json.loads(SCHEMA.read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def schema_problems(doc) -> list[str]:
    """What makes ``doc`` not ITF, per the schema (empty: valid).

    jsonschema takes about 2 ms a state, so a long trace (a 16 MiB one has ~30,000 states) took
    minutes. A trace repeats itself: each state's shape (its keys and ``#meta``) and each distinct
    variable value are validated once, in a stand-in document; an error names the first state
    (and variable) that has it."""
    states = doc.get("states") if isinstance(doc, dict) else None
    if not (isinstance(states, list) and all(isinstance(st, dict) for st in states)):
        return _problems(doc, lambda parts: parts)
    shapes: dict[str, int] = {}  # a state with its values blanked -> the first state with that shape
    values: dict[str, tuple[int, str, object]] = {}  # a value -> the first (state, variable) holding it
    def blank(st: dict) -> dict:  # the schema asks only that a state's #meta be an object
        return {k: ({} if k == "#meta" and isinstance(v, dict) else v) if k.startswith("#") else True
                for k, v in st.items()}

    for i, st in enumerate(states):
        shapes.setdefault(json.dumps(blank(st), sort_keys=True), i)
        for k, v in st.items():
            if not k.startswith("#"):
                values.setdefault(json.dumps(v, sort_keys=True), (i, k, v))
    first = list(shapes.values())
    held = list(values.values())
    stand_in = [blank(states[i]) for i in first]
    stand_in.append({f"v{j}": v for j, (_, _, v) in enumerate(held)})

    def where(parts: list) -> list:
        if len(parts) > 1 and parts[0] == "states":
            if parts[1] < len(first):
                return ["states", first[parts[1]], *parts[2:]]
            if len(parts) > 2:
                i, k, _ = held[int(str(parts[2])[1:])]
                return ["states", i, k, *parts[3:]]
        return parts

    return _problems({**doc, "states": stand_in}, where)


def _problems(doc, where) -> list[str]:
    found = sorted(((where(list(e.absolute_path)), e.message) for e in _validator().iter_errors(doc)),
                   key=lambda pm: [(0, p, "") if isinstance(p, int) else (1, 0, str(p)) for p in pm[0]])
    return [f"{'/'.join(str(p) for p in parts) or '(top)'}: {message}" for parts, message in found]


@dataclass
class ReplayReport:
    ok: bool
    steps: int  # steps accepted
    problem: str = ""
    labels: list[str] = field(default_factory=list)  # the action found for each accepted step
    states: list = field(default_factory=list)


def replay(spec: Spec, doc) -> ReplayReport:
    """Check an ITF trace against ``spec``: valid ITF, the spec's variables, the initial state
    first, and every next state the result of an action enabled in the one before (the action
    its ``#meta`` names, when it names one)."""
    problems = schema_problems(doc)
    if problems:
        return ReplayReport(False, 0, "not a valid ITF trace: " + "; ".join(problems[:5]))
    missing, extra = set(spec.var_types) - set(doc["vars"]), set(doc["vars"]) - set(spec.var_types)
    if missing or extra:
        return ReplayReport(False, 0, f"the trace's vars differ from {spec.name}'s: missing {sorted(missing)}, "
                                      f"unknown {sorted(extra)}")
    states = []
    for i, item in enumerate(doc["states"]):
        try:
            states.append(spec.State(**{var: decode_value(typ, item[var]) for var, typ in spec.var_types.items()}))
        except KeyError as error:
            return ReplayReport(False, 0, f"state {i} has no value for {error}")
        except ValueError as error:
            return ReplayReport(False, 0, f"state {i}: {error}")
    if not states:
        return ReplayReport(False, 0, "the trace has no state")
    if states[0] != initial_state(spec):
        return ReplayReport(False, 0, "state 0 is not the spec's initial state: " + _diff(spec, initial_state(spec), states[0]),
                            states=states[:1])
    labels: list[str] = []
    by_label = None
    for i, (before, after) in enumerate(zip(states, states[1:], strict=False)):
        named = doc["states"][i + 1].get("#meta", {}).get("action")
        if isinstance(named, str):
            # the action the trace names, tried first: a long trace of a large instance (a live run's,
            # a ground action per message) is then one step per state, not one per ground action
            by_label = by_label if by_label is not None else {g.label(spec): g for g in spec.ground_actions}
            ground = by_label.get(named)
            if ground is not None and apply(spec, before, ground) == after:
                labels.append(named)
                continue
        leading = [g.label(spec) for g in spec.ground_actions if apply(spec, before, g) == after]
        if not leading:
            return ReplayReport(False, i, f"step {i + 1}: no action of {spec.name} ({spec.variant}) leads from state {i} "
                                          f"to state {i + 1} ({_diff(spec, before, after)})", labels, states[:i + 1])
        if named and named not in leading:
            return ReplayReport(False, i, f"step {i + 1}: the trace says {named}, but only {', '.join(leading)} "
                                          f"lead(s) from state {i} to state {i + 1}", labels, states[:i + 1])
        labels.append(named or leading[0])
    return ReplayReport(True, len(states) - 1, "", labels, states)


def _diff(spec: Spec, a, b) -> str:
    return "; ".join(changes(spec, a, b)) or "no variable changed"
