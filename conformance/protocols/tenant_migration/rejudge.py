"""A saved tenant-migration run judged again (``pulsar-conformance judge BUNDLE``;
conformance/harness/rejudge.py): each outcome type by the judge test_tenant_migration hands it to."""
from __future__ import annotations

from ...harness.rejudge import Judged
from . import judge
from .checks import CHECKS
from .outcome import CleanupOutcome, Outcome, StartOutcome, TtlOutcome, UnloadOutcome


def client(out: Outcome) -> str | None:
    """The switch whose consumer on B is the Java client's is recorded with ``client="java"`` (_run)."""
    return "java" if out.plan.consumer_on_b == "java" else None


JUDGED = (
    Judged(Outcome, judge.judge, CHECKS, client=client),
    Judged(StartOutcome, judge.judge_start, CHECKS),  # step 2, replication over existing data
    Judged(CleanupOutcome, judge.judge_cleanup, CHECKS),  # step 5, A cleaned up
    Judged(UnloadOutcome, judge.judge_unloads, CHECKS),  # step 4, the unloads or restarts at the switch
    Judged(TtlOutcome, judge.judge_ttl, CHECKS),  # step 4 with a message TTL while B is unreachable
)
