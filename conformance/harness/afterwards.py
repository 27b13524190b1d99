"""What is judged after a scenario has run, from what it recorded (issue 49, point 1).

A scenario records: the capture's rows, the moments it marked, what admin and logs said. It computes
no verdict figure: Spark's check of the capture, a judge's figures and the spec's trace validation
all read the recorded run directory afterwards (each protocol's ``record`` step calls this module, then
its judge), so a saved run can be judged again by ``pulsar-conformance judge BUNDLE`` with the very
same functions. Spark runs on the process's shared session (spark_checks/session.py): one session
per certification, however many captures it checks.
"""
from __future__ import annotations

import json
from pathlib import Path

from pulsar_conformance.files import write_atomic
from pulsar_conformance.output import progress

from . import evidence

VERDICT_FILE = "verdict.json"


def spark_verdict(run_dir: Path, columns: dict | None = None, *, name: str = "") -> dict:
    """Spark's verdict over the capture recorded in ``run_dir``, written to ``verdict.json`` beside it
    (the report reads it there) and returned. ``columns``: the capture's rows when the caller read
    them already (``evidence.read_capture``); ``name``: the scenario, said before each progress line."""
    columns = evidence.read_capture(run_dir) if columns is None else columns
    say = (lambda text: progress(f"{name}: {text}")) if name else progress
    say(f"checking {len(columns['kind'])} captured events with Spark")
    verdict = evidence.spark_verdict(run_dir, columns)
    say(f"Spark: {({True: 'valid', False: 'INVALID', None: 'unknown'})[verdict.get('valid')]}")
    write_atomic(Path(run_dir) / VERDICT_FILE, json.dumps(verdict, indent=2, default=str))
    return verdict


def saved_verdict(run_dir: Path) -> dict | None:
    """The Spark verdict a run recorded (``verdict.json``), or None when it has none: a saved run is
    judged again by reading it, not by running Spark again (reports/runner/rejudge.py)."""
    path = Path(run_dir) / VERDICT_FILE
    if not path.is_file():
        return None
    return json.loads(path.read_text())
