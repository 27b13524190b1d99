"""An external deployment's release comes from its brokers (issue 32): ``status()`` asks
``GET /admin/v2/brokers/version`` (plain text), the bundle's versions say where it came from, and
PRODUCT.yaml's version is the brokers', a given one only a labelled fallback."""
from __future__ import annotations

import pytest

from pulsar_conformance.fixtures.deploy.external import load_external
from pulsar_conformance.reports.runner import product
from pulsar_conformance.reports.runner.request import CertifyRequest, Deployment

from ..support.loopback import admin_stub


@pytest.fixture
def broker():
    """A loopback web server answering like a broker's admin API: version as plain text."""
    answers = {"/admin/v2/brokers/version": (200, "4.2.4-vendor.7"), "/admin/v2/brokers/ready": (200, "ok"),
               "/admin/v2/brokers/health": (200, "ok")}

    with admin_stub(lambda path: answers.get(path, (404, "not found"))) as port:
        yield port, answers


def _file(tmp_path, port):
    path = tmp_path / "d.yaml"
    path.write_text(f"clusters:\n  us-east: {{service_url: 'pulsar://127.0.0.1:1', admin_url: 'http://127.0.0.1:{port}'}}\n"
                    "roles: {blue: us-east}\n")
    return path


def test_status_reports_the_brokers_version_and_its_source(tmp_path, broker):
    port, _ = broker
    status = load_external(_file(tmp_path, port), check=False).for_roles(["blue"]).status()
    assert status["pulsar_version"] == "4.2.4-vendor.7"
    assert "/admin/v2/brokers/version" in status["pulsar_version_source"]


def test_no_answer_leaves_the_version_unknown_with_the_reason(tmp_path, broker):
    port, answers = broker
    answers["/admin/v2/brokers/version"] = (403, "forbidden")
    version, source = load_external(_file(tmp_path, port), check=False).pulsar_version()
    assert version is None and "HTTP 403" in source


def test_product_version_is_the_brokers_and_a_given_one_only_a_labelled_fallback():
    request = CertifyRequest(profile=None, deployment=Deployment("external", "x.yaml"), product=None)
    given = {"product": {"vendor": "V", "name": "N", "type": "hosted", "version": "2024.1"}}
    described, _ = product.describe(request, "4.2.4", given)
    assert described["version"] == "4.2.4" and "read from the brokers" in described["description"]
    described, _ = product.describe(request, None, given)
    assert described["version"] == "2024.1" and "brokers did not report" in described["description"]


def test_the_java_client_release_is_read_from_whichever_scenario_ran_it(tmp_path):
    """versions.pulsar_client_java: the failover client's capture, or tenant migration's consumer on B."""
    import json

    from pulsar_conformance.reports.runner import identity

    assert identity.versions(tmp_path)["pulsar_client_java"] is None  # no Java scenario ran
    moved = tmp_path / "captures" / "holes-shared-java"
    moved.mkdir(parents=True)
    (moved / "tenant-migration.json").write_text(json.dumps({"java_on_b": {"java_client": "3.3.2", "received": 300}}))
    (tmp_path / "captures" / "holes-shared").mkdir()
    (tmp_path / "captures" / "holes-shared" / "tenant-migration.json").write_text(json.dumps({"java_on_b": None}))
    assert identity.versions(tmp_path)["pulsar_client_java"] == "3.3.2"


def test_the_java_client_release_of_pip188s_java_traffic_is_read_too(tmp_path):
    """A Java-only PIP-188 run (--migration-client java) records its client in migration.json's ``java``;
    the Python scenarios' migration.json has none."""
    import json

    from pulsar_conformance.reports.runner import identity

    for name, doc in (("cluster-migration", {"trigger_ns": 1}), ("cluster-migration-java", {"java": {"version": "3.3.2"}})):
        (tmp_path / "captures" / name).mkdir(parents=True)
        (tmp_path / "captures" / name / "migration.json").write_text(json.dumps(doc))
    assert identity.versions(tmp_path)["pulsar_client_java"] == "3.3.2"
