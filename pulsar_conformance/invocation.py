"""How to call this very ``pulsar-conformance`` again: the words a printed next step starts with.

A certify run's last lines say what to run next (``results``, ``verify``). Printed as a bare
``pulsar-conformance`` they named a command that was not on the PATH after the README's set-up (the
CLI sat in ``.tox/certify/bin/``; issue 51): what is printed now is the program that is running,
spelled as the user can type it from where they are.
"""
from __future__ import annotations

import os
import shlex
import shutil
import sys
from pathlib import Path

PROGRAM = "pulsar-conformance"


def me(argv0: str | None = None, *, cwd: Path | None = None, path: str | None = None) -> str:
    """``pulsar-conformance`` when that name on the PATH is this program; else its path (relative to the
    working directory when under it: ``.venv/bin/pulsar-conformance``); ``python -m pulsar_conformance``
    when run that way."""
    argv0 = sys.argv[0] if argv0 is None else argv0
    if not argv0 or Path(argv0).name != PROGRAM:
        return shlex.join([sys.executable, "-m", "pulsar_conformance"])
    program = Path(argv0)
    if not program.is_absolute() and program.parent == Path("."):
        found = shutil.which(argv0, path=path)
        program = Path(found) if found else program
    program = program.absolute()
    on_path = shutil.which(PROGRAM, path=path if path is not None else os.environ.get("PATH"))
    if on_path and _same(Path(on_path), program):
        return PROGRAM
    here = (cwd or Path.cwd()).absolute()
    if here == Path(here.anchor):
        return shlex.quote(str(program))
    try:
        relative = str(program.relative_to(here))
        return shlex.quote(relative if "/" in relative else f"./{relative}")
    except ValueError:
        return shlex.quote(str(program))


def _same(a: Path, b: Path) -> bool:
    try:
        return a.samefile(b)
    except OSError:
        return a.absolute() == b.absolute()
