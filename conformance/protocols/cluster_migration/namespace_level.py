"""The precondition the namespace-level scenarios share (test_cluster_migration_regions.py): does
the release have namespace-level migration at all? If not, ``<scenario>/namespace-level-migration``
is recorded not applicable (judge.namespace_level) and the scenario has nothing to observe."""
from __future__ import annotations

from ...harness.recorder import Recorder
from . import judge, observe
from .checks import CHECKS


def lacking(certify_run, request, blue, namespace: str, scenario: str) -> bool:
    """True, with ``<scenario>/namespace-level-migration`` not applicable, when the release has no
    namespace-level migration."""
    answer = observe.probe_namespace_migration(blue.admin(), namespace)
    if not answer.lacks:
        return False
    rec = Recorder(certify_run, request, None, CHECKS)
    rec.record([judge.namespace_level(scenario, answer)])
    rec.finish()
    return True
