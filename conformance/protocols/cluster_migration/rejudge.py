"""A saved PIP-188 run judged again (``pulsar-conformance judge BUNDLE``; conformance/harness/rejudge.py):
as record.judged and test_java_cluster_migration judge it, by ``judge.judge``. What the scenario saved is
judged as saved: the producer and subscription figures it computed before saving (``TopicOutcome``) are
read back, not computed again (issue 49 moves them into the judge)."""
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
