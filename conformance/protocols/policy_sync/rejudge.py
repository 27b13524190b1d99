"""A saved PIP-136 run judged again (``pulsar-conformance judge BUNDLE``; conformance/harness/rejudge.py):
as test_policy_sync judges it, by ``judge.judge``."""
from __future__ import annotations

from ...harness.rejudge import Judged
from . import judge
from .checks import CHECKS
from .outcome import Outcome

JUDGED = (Judged(Outcome, judge.judge, CHECKS),)
