"""After a PIP-454 scenario has run (issue 49, point 1): what the judges read is taken from the run
directory, then the outcome's rows recorded. The same role as every protocol's record.py.

The scenario (scenario.py) saves its outcome with no Spark verdict (``verdict`` None); ``judged`` takes
Spark's verdict over the traffic's capture (harness/afterwards.py, which writes ``verdict.json``), saves
the outcome again (outcome.json carries the verdict and whatever the test module added after the run,
as ``judge BUNDLE`` reads it back), and records ``judge.judge``'s rows, as rejudge.py judges a saved run."""
from __future__ import annotations

from ...harness import afterwards
from ...harness import outcome as saved
from ...harness.recorder import Recorder
from . import judge
from .checks import CHECKS
from .outcome import Outcome


def judged(certify_run, request, out: Outcome) -> Recorder:
    """Spark's verdict taken over ``out``'s capture (once: a run judged twice is checked once), ``out`` saved
    with it, and judge.judge's rows recorded; the recorder, for the test to ``finish``."""
    if out.verdict is None:
        out.verdict = afterwards.spark_verdict(out.run_dir, name=out.name)
    saved.save(out, out.run_dir)
    rec = Recorder(certify_run, request, out, CHECKS)
    rec.record(judge.judge(out))
    return rec
