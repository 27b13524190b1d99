"""A saved PIP-136 run judged again (``pulsar-conformance judge BUNDLE``; conformance/harness/rejudge.py):
as test_policy_sync judges it: a scenario's by ``judge.judge``, the enabling probe's and the
synchronizer stats' by ``judge.judge_enabling`` and ``judge.judge_syncer``."""
from __future__ import annotations

from ...harness.rejudge import Judged
from . import judge
from .checks import CHECKS
from .outcome import Enabling, Outcome, SyncerStats

JUDGED = (Judged(Outcome, judge.judge, CHECKS), Judged(Enabling, judge.judge_enabling, CHECKS),
          Judged(SyncerStats, judge.judge_syncer, CHECKS))
