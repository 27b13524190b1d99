"""PIP188-R06 judged in both cases an operator meets (issue 28): the release's answer to the
namespace-level migration call is the verdict, per case, with the answer as evidence."""
import pytest

from pulsar_conformance.conformance.protocols.cluster_migration import judge
from pulsar_conformance.conformance.protocols.cluster_migration.observe import (
    ask_namespace_migration,
    probe_namespace_migration,
)
from pulsar_conformance.fixtures.deploy.admin import AdminError


class _Blue:
    def __init__(self, status=None, body=""):
        self.status, self.body, self.calls = status, body, []

    def migrate_namespace(self, namespace, migrated=True):
        self.calls.append((namespace, migrated))
        if self.status is not None:
            raise AdminError("POST", f"http://blue/admin/v2/namespaces/{namespace}/migration", self.status, self.body)


class _Rec:
    """The rows judge.namespace_level gives, as (check, ok or "not applicable", evidence, details)."""

    def __init__(self):
        self.rows = []

    def record(self, scenario, answer):
        r = judge.namespace_level(scenario, answer)
        self.rows.append((r.check, r.verdict or r.ok, r.evidence, r.details))


NOT_FOUND = ('{"reason":"org.apache.pulsar.metadata.api.MetadataStoreException$NotFoundException"}')


def test_a_fresh_namespace_refused_with_500_fails_r06_with_the_answer_while_the_loaded_case_passes():
    rec = _Rec()
    rec.record("namespace-fresh", ask_namespace_migration(_Blue(500, NOT_FOUND), "mig/fresh", "fresh"))
    rec.record("namespace-migration", ask_namespace_migration(_Blue(), "mig/moving", "loaded"))
    (fresh_check, fresh_ok, fresh_said, fresh_details), (loaded_check, loaded_ok, loaded_said, _) = rec.rows
    assert (fresh_check, fresh_ok) == ("namespace-fresh/namespace-level-migration", False)
    assert "HTTP 500" in fresh_said and "no topic yet" in fresh_said and "NotFoundException" in fresh_said
    assert fresh_details == {"case": "fresh", "status": 500}
    assert (loaded_check, loaded_ok) == ("namespace-migration/namespace-level-migration", True)
    assert "bundles are loaded" in loaded_said


def test_a_release_without_the_endpoint_is_not_applicable():
    rec = _Rec()
    answer = ask_namespace_migration(_Blue(405, "<html>Method Not Allowed</html>"), "mig/fresh", "fresh")
    rec.record("namespace-migration", answer)
    assert rec.rows[0][1] == "not applicable" and "came with Pulsar 3.2" in rec.rows[0][2]


def test_a_namespace_the_suite_never_created_is_the_suites_mistake():
    answer = ask_namespace_migration(_Blue(404, '{"reason":"Namespace does not exist"}'), "mig/x", "fresh")
    with pytest.raises(RuntimeError, match="the suite asked"):
        _Rec().record("namespace-migration", answer)


def test_the_probe_asks_false_and_only_tells_whether_the_endpoint_exists():
    blue = _Blue(500, NOT_FOUND)
    answer = probe_namespace_migration(blue, "mig/noauto")
    assert blue.calls == [("mig/noauto", False)]
    assert not answer.lacks and not answer.ok  # a scenario goes on; its migration runs on loaded bundles
