"""PIP188-R06 in the namespace-level scenarios: blue's answer to the namespace-level migration
call, in the case the scenario met (a namespace with loaded bundles, or one just created), recorded
as the verdict with the answer as its evidence (observe.NamespaceMigrationAnswer)."""
from __future__ import annotations

from ...harness.recorder import Recorder
from .checks import CHECKS
from .observe import NamespaceMigrationAnswer, ask_namespace_migration


def record(rec, scenario: str, answer: NamespaceMigrationAnswer) -> None:
    """``<scenario>/namespace-level-migration``: not applicable where the release has no such
    endpoint, else pass or fail on blue's answer. A 404 that names the namespace is the suite's
    own mistake (it asked about a namespace it had not created), never the release's."""
    if answer.lacks:
        rec.not_applicable(f"{scenario}/namespace-level-migration", answer.describe())
        return
    if answer.status == 404:
        raise RuntimeError(f"the suite asked blue about a namespace blue does not have: {answer.describe()}")
    rec(f"{scenario}/namespace-level-migration", answer.ok, answer.describe(), case=answer.case,
        status=answer.status)


def probe(admin, namespace: str) -> NamespaceMigrationAnswer:
    """Whether the release has namespace-level migration at all, before a scenario builds on it:
    ``false`` (the default, so nothing changes) on ``namespace``. Only ``lacks`` is read from it:
    on a namespace that has no topic yet, some releases fail the call where they accept it once
    the bundles load (the namespace-migration scenario judges both cases)."""
    return ask_namespace_migration(admin, namespace, "fresh", migrated=False)


def lacking(certify_run, request, blue, namespace: str, scenario: str) -> bool:
    """True, with ``<scenario>/namespace-level-migration`` not applicable, when the release has no
    namespace-level migration: a scenario built on it has nothing to observe then."""
    answer = probe(blue.admin(), namespace)
    if not answer.lacks:
        return False
    rec = Recorder(certify_run, request, None, CHECKS)
    record(rec, scenario, answer)
    rec.finish()
    return True
