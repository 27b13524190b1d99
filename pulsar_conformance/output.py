"""One way to print results: a JSON document on stdout with --json, text otherwise.

With --json nothing but that one document may reach stdout, so progress and logs go to
stderr (``progress``), and libraries that print are kept off stdout by the caller.
"""
from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import Any


def emit(options: Any, document: dict, text: str | Callable[[], str] | None = None) -> None:
    """Print ``document`` as JSON when ``options.json``, else ``text`` (or the JSON, indented).

    ``options``: anything with a ``json`` flag, argparse's namespace in a command's handler or the
    typed request built from it (reports/runner/request.CertifyRequest)."""
    if getattr(options, "json", False):
        sys.stdout.write(json.dumps(document, default=_jsonable, sort_keys=False) + "\n")
        return
    if callable(text):
        text = text()
    if text is None:
        text = json.dumps(document, default=_jsonable, indent=2)
    sys.stdout.write(text.rstrip("\n") + "\n")


_sink: Callable[[str], None] | None = None


def set_progress_sink(sink: Callable[[str], None] | None) -> None:
    """Where ``progress`` writes instead of stderr: inside a pytest run, a writer past pytest's
    capture (reports/runner/phases.py), or a scenario's phases would only show after it ended."""
    global _sink
    _sink = sink


def progress(message: str) -> None:
    """Progress for people watching a long run; always stderr so --json stays clean."""
    if _sink is not None:
        _sink(message.rstrip("\n"))
        return
    sys.stderr.write(message.rstrip("\n") + "\n")
    sys.stderr.flush()


def _jsonable(value: Any) -> Any:
    if hasattr(value, "to_json"):
        return value.to_json()
    if isinstance(value, (set, frozenset, tuple)):
        return list(value)
    return str(value)
