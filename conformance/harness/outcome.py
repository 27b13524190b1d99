"""A protocol's outcome saved beside its capture and loaded back, so every judge runs offline on a
recorded run (``outcome.json`` in the scenario's run directory; the capture's own files stay
beside it).

Each protocol has one outcome type (``conformance/protocols/<p>/outcome.py``, a dataclass); this
module writes any of them as JSON and reads it back into the same type, field by field from its
annotations: dataclasses, lists, tuples, sets, dicts, ``X | None`` and ``Path``. A field whose
metadata says ``saved=False`` (``unsaved()``: e.g. the capture's columns, which the capture files
hold) is left out and gets its default back; ``load(..., **given)`` supplies it, and a field made
with ``captured()`` gets the capture's rows read back from the run directory.
"""
from __future__ import annotations

import dataclasses
import json
import types
import typing
from pathlib import Path
from typing import Any

from pulsar_conformance.files import write_atomic

from . import evidence

FILE = "outcome.json"


def unsaved(**options):
    """A dataclass field kept out of ``outcome.json`` (what another file of the run holds)."""
    return dataclasses.field(metadata={"saved": False}, **options)


def captured():
    """The capture's rows (``evidence.read_capture``): not in ``outcome.json``, read back from the
    capture's own files beside it on ``load``."""
    return dataclasses.field(default_factory=dict, metadata={"saved": False, "capture": True})


def save(outcome, run_dir: Path | str, name: str = FILE) -> Path:
    path = Path(run_dir) / name
    doc = {"type": f"{type(outcome).__module__}.{type(outcome).__qualname__}", "outcome": encode(outcome)}
    write_atomic(path, json.dumps(doc, indent=2, default=str))  # in field order: a dict keeps its order
    return path


def load(cls, run_dir: Path | str, name: str = FILE, **given):
    """The ``cls`` saved in ``run_dir`` (``given``: values of the fields it does not save)."""
    path = Path(run_dir) / name
    doc = json.loads(path.read_text())
    if doc.get("type", "").rsplit(".", 1)[-1] != cls.__qualname__:
        raise TypeError(f"{path} holds a {doc.get('type')!r}, not a {cls.__qualname__}: load it with its own "
                        "protocol's outcome type")
    for f in dataclasses.fields(cls):
        if f.metadata.get("capture") and f.name not in given:
            given[f.name] = evidence.read_capture(path.parent)
    return decode(cls, doc["outcome"], **given)


def encode(value) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: encode(getattr(value, f.name)) for f in dataclasses.fields(value)
                if f.metadata.get("saved", True)}
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, set | frozenset):
        return [encode(v) for v in sorted(value, key=repr)]
    if isinstance(value, list | tuple):
        return [encode(v) for v in value]
    if isinstance(value, dict):
        return {_key(k): encode(v) for k, v in value.items()}
    return value


def _key(key) -> str:
    """JSON keys are strings; a tuple key (``(topic, subscription)``) is kept as its JSON list."""
    return json.dumps(encode(key)) if isinstance(key, tuple) else str(key)


def decode(hint, value, **given):
    """``value`` (from ``encode``) back as ``hint``."""
    if dataclasses.is_dataclass(hint):
        hints = typing.get_type_hints(hint)
        kwargs = {}
        for f in dataclasses.fields(hint):
            if not f.init:
                continue
            if f.name in given:
                kwargs[f.name] = given[f.name]
            elif f.metadata.get("saved", True) and f.name in value:
                kwargs[f.name] = decode(hints[f.name], value[f.name])
        return hint(**kwargs)
    if value is None or hint is Any:
        return value
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        kinds = [a for a in args if a is not type(None)]
        return decode(kinds[0], value) if len(kinds) == 1 else value
    if hint is Path:
        return Path(value)
    if hint in (tuple, set, frozenset):
        return hint(value)
    if origin in (list, set, frozenset):
        return origin(decode(args[0], v) for v in value) if args else origin(value)
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(decode(args[0], v) for v in value)
        return tuple(decode(a, v) for a, v in zip(args, value, strict=True)) if args else tuple(value)
    if origin is dict:
        key, item = args or (str, Any)
        return {_unkey(key, k): decode(item, v) for k, v in value.items()}
    if hint is float and isinstance(value, int):
        return float(value)
    return value


def _unkey(hint, key: str):
    if typing.get_origin(hint) is tuple:
        return decode(hint, json.loads(key))
    return hint(key) if hint in (int, float) else key
