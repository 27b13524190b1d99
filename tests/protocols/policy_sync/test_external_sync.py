"""An external deployment's metadata sync checked by role (issue 32), without a broker: the scenarios see
alpha, bravo and charlie; the namespace of the sync topic replicates to the clusters' own names."""
from __future__ import annotations

from types import SimpleNamespace

import pytest

from pulsar_conformance.errors import UsageError
from pulsar_conformance.fixtures.deploy import metadata_sync

NAMES = {"alpha": "us-east", "bravo": "us-west", "charlie": "eu-central"}


class _Admin:
    def __init__(self, replicated):
        self.replicated = replicated

    def dynamic_config(self):
        return {metadata_sync.SETTING: metadata_sync.TOPIC}

    def get_replication(self, tenant, namespace):
        return list(self.replicated)


def _deployment(replicated):
    clusters = {role: SimpleNamespace(name=name) for role, name in NAMES.items()}
    return SimpleNamespace(clusters=clusters, admin=lambda role: _Admin(replicated), source="x.yaml",
                           metadata_sync={"topic": metadata_sync.TOPIC})


def test_a_sync_namespace_replicated_to_the_clusters_names_is_the_sync_of_the_roles():
    assert metadata_sync.verify_external(_deployment(NAMES.values())) == metadata_sync.TOPIC


def test_a_cluster_the_namespace_does_not_reach_is_named_by_its_pulsar_name():
    with pytest.raises(UsageError) as refused:
        metadata_sync.verify_external(_deployment(["us-east", "us-west"]))
    assert "to eu-central" in str(refused.value) and "us-east, us-west, eu-central" in refused.value.fix
