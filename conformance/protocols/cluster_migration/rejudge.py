"""A saved PIP-188 run judged again (``pulsar-conformance judge BUNDLE``; conformance/harness/rejudge.py):
as record.judged judges it, by ``judge.judge``. The judge computes the producer and subscription figures
from what the run recorded (the capture's rows beside outcome.json, each topic's states and placement, the
clients the traffic made: ``judge.with_figures``); an outcome saved before issue 49 also holds the figures
its scenario computed, and they are ignored (loading leaves them out), so a fixed judge changes its verdicts.
Spark's verdict is read as saved (``verdict``), not taken again."""
from __future__ import annotations

from ...harness.rejudge import Judged
from . import judge
from .checks import CHECKS
from .outcome import Outcome


def client(out: Outcome) -> str | None:
    """The Java client's scenarios (``<level>-migration-java``, checks.py) are recorded with
    ``client="java"``; the Python client's name none (Recorder's default)."""
    return "java" if out.name.endswith("-java") else None


JUDGED = (Judged(Outcome, judge.judge, CHECKS, client=client),)
