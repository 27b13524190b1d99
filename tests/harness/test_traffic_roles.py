"""A scenario whose checks read the capture by role (PIP-188: "blue", "remote") records each handle under
its cluster's role, so that an external deployment's clusters, which Pulsar knows as us-east and us-west,
are judged as the local ones (issue 32: under other names every send-counting check of PIP-188 saw none)."""
from __future__ import annotations

from pathlib import Path

from pulsar_conformance.conformance.harness.java_traffic import JavaTraffic
from pulsar_conformance.conformance.harness.traffic import Traffic


class _Cluster:
    def __init__(self, name: str):
        self.name = name


def _label(traffic: Traffic, cluster=None) -> str:
    return traffic._handle("p", "producer", "persistent://t/ns/x", None, cluster, object(), None).cluster


def test_handles_are_recorded_under_their_role_where_the_scenario_names_roles():
    east, west = _Cluster("us-east"), _Cluster("eu-central")
    roles = {"us-east": "blue", "eu-central": "remote"}
    assert _label(Traffic(None, east, [], roles=roles)) == "blue"
    assert _label(Traffic(None, east, [], roles=roles), west) == "remote"  # a handle on another cluster
    assert _label(Traffic(None, east, [])) == "us-east"  # no roles: the cluster's name, as before
    assert _label(Traffic(None, _Cluster("solo"), [], roles=roles)) == "solo"  # a cluster of no role
    java = JavaTraffic(None, east, [], run_dir=Path("/nonexistent"), version="4.2.4", roles=roles)
    assert java.label == "blue"
    assert JavaTraffic(None, east, [], run_dir=Path("/nonexistent"), version="4.2.4").label == "us-east"
