"""An external deployment certified for policy sync must describe and really have the sync:
a file without ``metadata_sync``, clusters without the setting, clusters that do not replicate
the topic's namespace: exit 2 naming what is missing and the fix, before anything starts."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest
import yaml

from pulsar_conformance.errors import EXIT_BAD_INPUT
from pulsar_conformance.fixtures.deploy import metadata_sync
from pulsar_conformance.fixtures.deploy.local import LocalDeployment
from pulsar_conformance.fixtures.deploy.spec import DeploymentSpec

pytestmark = [pytest.mark.pulsar]

CLUSTERS = ("alpha", "bravo", "charlie")


@pytest.fixture(scope="module")
def unsynced(tmp_path_factory):
    """The profile's three clusters (every policy-sync scenario uses alpha, bravo and charlie; a file
    with fewer is refused for the missing role first), separate configuration stores, registered
    on each other, no sync yet."""
    state = tmp_path_factory.mktemp("state")
    deployment = LocalDeployment.launch(DeploymentSpec(clusters=tuple(CLUSTERS), name="ps-bad-input",
                                                       metadata_sync="prepared"), state_dir=state)
    yield deployment
    deployment.close()


def _file(tmp_path, deployment, sync: dict | None):
    doc = {"clusters": {c.name: {"service_url": c.service_url, "admin_url": c.admin_url}
                        for c in deployment.clusters.values()}}
    if sync is not None:
        doc["metadata_sync"] = sync
    path = tmp_path / "clusters.yaml"
    path.write_text(yaml.safe_dump(doc))
    return path


def _certify(tmp_path, path):
    done = subprocess.run([sys.executable, "-m", "pulsar_conformance", "certify", "--profile", "policy-sync",
                           "--deployment", str(path), "--out", str(tmp_path / "bundle"), "--json"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == EXIT_BAD_INPUT, done.stderr[-2000:]
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "bundle").exists() or not any((tmp_path / "bundle").iterdir())
    return json.loads(done.stdout)


def test_a_file_that_does_not_describe_the_sync(tmp_path, unsynced):
    doc = _certify(tmp_path, _file(tmp_path, unsynced, None))
    assert "does not describe metadata sync" in doc["error"] and "metadata_sync:" in doc["fix"]


def test_clusters_without_the_setting_then_without_the_replicated_namespace(tmp_path, unsynced):
    path = _file(tmp_path, unsynced, {"topic": metadata_sync.TOPIC})
    doc = _certify(tmp_path / "1", path)
    assert "not configured on cluster(s) alpha, bravo, charlie" in doc["error"] and metadata_sync.SETTING in doc["fix"]
    # the topic's namespace on each cluster, replicated to itself only, and the setting on both
    tenant, namespace = metadata_sync.NAMESPACE
    for cluster in CLUSTERS:
        unsynced.admin(cluster).put_tenant(tenant, list(CLUSTERS))
        unsynced.admin(cluster).put_namespace(tenant, namespace)
        unsynced.admin(cluster).set_dynamic_config(metadata_sync.SETTING, metadata_sync.TOPIC)
    doc = _certify(tmp_path / "2", path)
    assert "does not replicate the sync topic's namespace" in doc["error"], doc
    assert "replication clusters to alpha, bravo, charlie" in doc["fix"], doc
    # a topic in a namespace that does not exist (last: from then on every configuration write of
    # these clusters fails, "producer is not started yet": docs/findings.md F-136-8)
    absent = "persistent://pulsar/absent/events"
    for cluster in CLUSTERS:
        unsynced.admin(cluster).set_dynamic_config(metadata_sync.SETTING, absent)
    doc = _certify(tmp_path / "3", _file(tmp_path, unsynced, {"topic": absent}))
    assert "does not have the sync topic's namespace pulsar/absent" in doc["error"], doc
    assert "replicate it" in doc["fix"], doc
