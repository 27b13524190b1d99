"""After a tenant-migration scenario has run (issue 49, point 1): what the judges read is taken from the
run directory, then the outcome's rows recorded. The same role as every protocol's record.py.

A scenario (scenario.py, existing_data.py, cleanup.py, unloads.py, ttl.py) saves its outcome with no
Spark verdict (``verdict`` None) and no figure. ``judged`` takes Spark's verdict over the capture
(harness/afterwards.py, which writes ``verdict.json``), saves the outcome again with it (outcome.json
carries it, as ``judge BUNDLE`` reads it back), adds the switch's figures to ``tenant-migration.json``
(what a reader of the run's record finds there), and records the rows of the outcome type's judge: the
judge and client of rejudge.JUDGED, so a live run and a saved one judged again are judged alike."""
from __future__ import annotations

import dataclasses
import json
from pathlib import Path

from pulsar_conformance.files import write_atomic
from pulsar_conformance.output import progress

from ...harness import afterwards
from ...harness import outcome as saved
from ...harness.recorder import Recorder
from ...harness.rejudge import Judged
from . import judge
from .outcome import Outcome
from .rejudge import JUDGED

RECORD = "tenant-migration.json"  # the scenario's record beside the capture (timeline.save's <protocol>.json)


def judged(certify_run, request, out) -> Recorder:
    """Spark's verdict taken over ``out``'s capture, ``out`` saved with it, and its judge's rows recorded;
    the recorder, for the test to ``finish``."""
    entry = judge_of(out)
    out = with_spark(out)
    if isinstance(out, Outcome):
        figures_beside(out)
    rec = Recorder(certify_run, request, out, entry.checks, client=entry.client(out))
    rec.record(entry.judge(out))
    return rec


def judge_of(out) -> Judged:
    """The rejudge entry of ``out``'s type (its judge, checks and client); an outcome type it lacks is the
    suite's fault, said with the fix."""
    for entry in JUDGED:
        if isinstance(out, entry.outcome):
            return entry
    raise TypeError(f"{type(out).__qualname__} has no judge in tenant_migration/rejudge.py JUDGED: add its "
                    "Judged(outcome type, judge, CHECKS) there")


def with_spark(out):
    """``out`` with Spark's verdict over its capture (written to ``verdict.json`` by afterwards.spark_verdict),
    saved again as outcome.json."""
    out = dataclasses.replace(out, verdict=afterwards.spark_verdict(out.run_dir, out.columns, name=out.name))
    saved.save(out, out.run_dir)
    return out


def figures_beside(out: Outcome) -> None:
    """The switch's figures (judge.figures_of) said, and added to the scenario's record (``figures``), as
    the record of a run before issue 49 held them: read by whoever opens the run, never by a judge."""
    f = judge.figures_of(out)
    progress(f"{out.name}: {f.text()}")
    path = Path(out.run_dir) / RECORD
    doc = json.loads(path.read_text()) if path.is_file() else {}
    write_atomic(path, json.dumps({**doc, "figures": dataclasses.asdict(f)}, indent=2, default=str))
