"""What the two live suites of PIP-188 share (test_cluster_migration.py and
test_cluster_migration_regions.py; tests never import tests): recording an outcome's rows, and the
precondition of the namespace-level scenarios (does the release have namespace-level migration?)."""
from __future__ import annotations

from ...harness.recorder import Recorder
from . import judge, observe, scenario
from .checks import CHECKS
from .outcome import Outcome


def judged(certify_run, request, out: Outcome) -> None:
    """Save what the scenario read into its outcome, record judge.judge's rows, finish the test."""
    scenario.save(out)
    rec = Recorder(certify_run, request, out, CHECKS)
    rec.record(judge.judge(out))
    rec.finish()


def lacking(certify_run, request, blue, namespace: str, scenario_name: str) -> bool:
    """True, with ``<scenario>/namespace-level-migration`` not applicable (judge.namespace_level), when
    the release has no namespace-level migration: a scenario built on it has nothing to observe then."""
    answer = observe.probe_namespace_migration(blue.admin(), namespace)
    if not answer.lacks:
        return False
    rec = Recorder(certify_run, request, None, CHECKS)
    rec.record([judge.namespace_level(scenario_name, answer)])
    rec.finish()
    return True
