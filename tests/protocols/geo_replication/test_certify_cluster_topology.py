"""``certify --topology cluster`` (issue 31): the geo-replication profile on two clusters of
ZooKeeper + 2 bookies + 2 brokers each, not one standalone per cluster. CI's profile on the cluster
topology: it is the cheapest live profile (about 2.5 minutes here), and it exercises lookups across
brokers, replication between multi-broker clusters and the capture/Spark path end to end.

The other profiles on the cluster topology are a documented command (docs/deployments.md)."""
from __future__ import annotations

import json

import pytest

from ...support.certify import certify

pytestmark = [pytest.mark.pulsar, pytest.mark.spark]


def test_geo_replication_certifies_on_multi_broker_clusters(tmp_path):
    out = tmp_path / "bundle"
    code, summary = certify(out, "geo-replication", "--topology", "cluster", timeout=1200)
    verdicts = {r["id"]: r["verdict"] for r in summary["requirements"] if r["id"].startswith("GEO-")}
    assert verdicts == {"GEO-R01": "pass", "GEO-R02": "pass"}, verdicts
    assert code == 0
    # the verdicts came from clusters of two brokers: each cluster's service URL lists both
    clusters = json.loads((out / "deployment.json").read_text())["deployment"]["clusters"]
    assert sorted(c["name"] for c in clusters) == ["blue", "green"]
    assert all(c.get("brokers") == 2 and len(c["service_url"].split(",")) == 2 for c in clusters), clusters
    assert "--topology cluster" in (out / "reproduce.md").read_text()
