"""What the ``spec`` commands take from a user, checked before any work starts: search bounds,
``--const`` values, output paths and ITF files. Each refusal is a UsageError naming the option
(or the file's field) and what to pass instead (exit EXIT_BAD_INPUT)."""
from __future__ import annotations

import json
import math
import os
import stat
import tempfile
from pathlib import Path

from pulsar_conformance.errors import UsageError

from .core.nesting import nesting_depth

# option attribute -> (option, lowest, highest): a bound outside makes no search or one that never ends
INT_BOUNDS = {
    "depth": ("--depth", 0, 1000),
    "examples": ("--examples", 1, 1_000_000),
    "steps": ("--steps", 1, 100_000),
    "runs": ("--runs", 1, 100_000),
    "max_states": ("--max-states", 1, 100_000_000),
    "jobs": ("--jobs", 1, 64),
}
SECONDS_BOUNDS = {"max_seconds": ("--max-seconds", 7 * 86_400), "seconds": ("--seconds", 86_400)}

ITF_MAX_BYTES = 16 * 1024 * 1024  # the suite's own traces are a few KiB; Apalache's of a long run a few MiB
ITF_MAX_DEPTH = 32  # a state nests records in records a handful of levels deep


def check_bounds(args) -> None:
    """Every search bound the command has, in range; ``None`` means the option's default."""
    for attr, (option, lo, hi) in INT_BOUNDS.items():
        value = getattr(args, attr, None)
        if value is not None and not lo <= value <= hi:
            raise UsageError(f"{option} {value} is outside {lo}..{hi:,}",
                             f"pass {option} between {lo} and {hi:,} (leave it out for the default)")
    for attr, (option, hi) in SECONDS_BOUNDS.items():
        value = getattr(args, attr, None)
        if value is not None and not (math.isfinite(value) and 0 < value <= hi):
            raise UsageError(f"{option} {value} is not a time budget: it must be a number of seconds above 0 "
                             f"and at most {hi:,}", f"pass e.g. {option} 60")


def constants(items, spec_cls, option: str = "--const", *, replay: bool = False) -> dict[str, int]:
    """``NAME=N`` strings (or a NAME -> value map, from a trace's ``#meta``) as the constants of
    ``spec_cls``, each an integer within the range the spec declares (``CONSTANT_LIMITS``): a
    large constant multiplies the states, and one below the range describes no protocol. ``replay``:
    for ``spec replay``, which searches nothing, within ``REPLAY_LIMITS`` where the spec widens one."""
    pairs = []
    if isinstance(items, dict):
        pairs = [(str(k), v) for k, v in items.items()]
    else:
        for item in items:
            name, sep, text = item.partition("=")
            text = text.strip()
            if not sep or not text.lstrip("-").isdigit() or len(text) > 12:
                raise UsageError(f"bad {option} {item!r}: not NAME=INTEGER",
                                 f"use NAME=INTEGER with NAME one of {', '.join(spec_cls.CONSTANTS)}")
            pairs.append((name.strip(), int(text)))
    out = {}
    for name, value in pairs:
        if name not in spec_cls.CONSTANTS:
            raise UsageError(f"{option}: {spec_cls.name} has no constant {name!r}",
                             f"use one of {', '.join(spec_cls.CONSTANTS)} (see 'spec list')")
        if not isinstance(value, int) or isinstance(value, bool):
            raise UsageError(f"{option}: {name} is {value!r}, not an integer",
                             f"give {name} an integer in {'..'.join(map(str, _limits(spec_cls, name, replay)))}")
        lo, hi = _limits(spec_cls, name, replay)
        if not lo <= value <= hi:
            raise UsageError(f"{option} {name}={value} is outside {lo}..{hi}",
                             f"pass {name} between {lo} and {hi}: {spec_cls.name}'s states grow with it faster than "
                             "any engine can search")
        out[name] = value
    return out


def _limits(spec_cls, name: str, replay: bool = False) -> tuple[int, int]:
    wider = getattr(spec_cls, "REPLAY_LIMITS", {}) if replay else {}
    return wider.get(name, spec_cls.CONSTANT_LIMITS[name])


def out_path(value: str | None, option: str, suffixes: tuple[str, ...] = ()) -> Path | None:
    """Where a command writes, checked before any work: a known format, an existing folder the
    suite can create files in, and not a folder itself (nor a folder where the file's temporary
    sibling goes). Writing is then a rename, so nothing half-written or ``*.tmp`` stays behind."""
    if value is None:
        return None
    path = Path(value)
    if suffixes and path.suffix not in suffixes:
        raise UsageError(f"{option} {value}: write {' or '.join('FILE' + x for x in suffixes)}",
                         f"e.g. {option} client-failover{suffixes[0]}")
    if path.is_dir() or not path.name:
        raise UsageError(f"{option} {value} is a folder, where a file is expected",
                         f"pass a file name, e.g. {path / 'trace.json'}")
    if not path.parent.is_dir():
        raise UsageError(f"{option} {value}: folder {path.parent} does not exist", "create it or write elsewhere")
    if path.with_name(path.name + ".tmp").is_dir():
        raise UsageError(f"{option} {value}: {path.name}.tmp, where the file is written before it is renamed, is a folder",
                         "remove that folder or write elsewhere")
    if path.exists() and not path.is_file():
        raise UsageError(f"{option} {value} exists and is not a regular file", "pass a file name that is free or a file")
    try:  # the only reliable test of a writable folder (permissions, read-only mounts, root)
        fd, probe = tempfile.mkstemp(dir=path.parent, prefix=".pulsar-conformance-", suffix=".probe")
    except OSError as error:
        raise UsageError(f"{option} {value}: cannot write in {path.parent} ({error.strerror or error})",
                         "write to a folder you can write to") from error
    os.close(fd)
    os.unlink(probe)
    return path


def read_itf(name: str) -> dict:
    """An ITF trace file as JSON, refused before it is parsed when it is no regular file or is
    too large, and after when it nests deeper than a trace does."""
    path = Path(name)
    fix = "pass an ITF trace (spec explore/simulate --itf writes one)"
    try:
        info = path.stat()
    except OSError as error:
        raise UsageError(f"{name}: cannot read it ({error.strerror or error})", fix) from error
    if not stat.S_ISREG(info.st_mode):
        raise UsageError(f"{name} is not a regular file", fix)
    if info.st_size > ITF_MAX_BYTES:
        raise UsageError(f"{name} is {info.st_size:,} bytes; a trace is at most {ITF_MAX_BYTES:,}",
                         "replay a shorter trace (split a long run into its steps of interest)")
    try:
        with path.open("rb") as f:
            text = f.read(ITF_MAX_BYTES + 1).decode("utf-8")
        doc = json.loads(text)
    except RecursionError as error:
        raise UsageError(f"{name} nests deeper than JSON can be read", fix) from error
    except (OSError, UnicodeDecodeError, ValueError) as error:
        raise UsageError(f"{name}: not a readable JSON file ({error})", fix) from error
    if _depth(doc) > ITF_MAX_DEPTH:
        raise UsageError(f"{name} nests deeper than {ITF_MAX_DEPTH} levels, which no ITF trace of a spec does", fix)
    return doc


def _depth(doc) -> int:
    """How deep ``doc`` nests."""
    return nesting_depth(doc, _children, ITF_MAX_DEPTH)


def _children(node):
    return node.values() if isinstance(node, dict) else node if isinstance(node, list) else ()
