"""After the geo-replication scenario has run (test_geo_replication.py): Spark's verdict of its capture
(harness/afterwards.py, verdict.json), the outcome saved again with it, judge.judge's rows recorded."""
from __future__ import annotations

from ...harness import afterwards
from ...harness import outcome as saved
from ...harness.recorder import Recorder
from . import judge
from .checks import CHECKS
from .outcome import Outcome

NAME = "geo-replication"  # the scenario, said before its progress lines


def judged(certify_run, request, out: Outcome) -> None:
    """Spark's verdict of ``out``'s capture into ``out`` (and verdict.json), outcome.json written again
    with it, the rows of judge.judge recorded, the test finished."""
    out.verdict = afterwards.spark_verdict(out.run_dir, name=NAME)
    saved.save(out, out.run_dir)
    rec = Recorder(certify_run, request, out, CHECKS)
    rec.record(judge.judge(out))
    rec.finish()
