"""A saved PIP-121 run judged again (``pulsar-conformance judge BUNDLE``; conformance/harness/rejudge.py):
as record.py and the test modules judge it, by ``judge.judge``, each row naming the client it judged; a schedule
of ``explore --live client-failover`` by ``explore_judge.judge``."""
from __future__ import annotations

from ...harness.rejudge import Judged
from . import explore_judge, judge
from .checks import CHECKS
from .outcome import Outcome


def client(out: Outcome) -> str:
    """The recorder's ``client=`` of record.run_scenario and the credentials tests: the Java client's
    configurations (``java``, ``controlled``: scenario.run_java, credentials.run_java) are the Java
    client's; the Python client's (``cpp``: its policy counts probes) runs the C++ client underneath."""
    return "cpp" if out.config.variant == "cpp" else "java"


# a schedule explore --live generated (explore_judge: its own outcome type, since the scenario-keyed judge
# knows no schedule's name)
JUDGED = (Judged(Outcome, judge.judge, CHECKS, client=client),
          Judged(explore_judge.ExploredOutcome, explore_judge.judge, CHECKS, client=client))
