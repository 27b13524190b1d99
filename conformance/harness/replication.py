"""A source cluster's geo-replicator to a target as the source's topic stats show it: what the protocols built on
geo-replication (geo-replication, tenant migration) read to know whether the target has caught up."""
from __future__ import annotations


def replicator(a, b, topic: str) -> dict:
    """A's replicator to B as A's topic stats show it. Pulsar keys it by B's cluster name, which on a
    user's deployment is not the suite's role (``green`` may be ``us-west``)."""
    return a.admin().replication_to(topic, b.name)


def replicated(a, b, topic: str) -> bool:
    """A's replicator to B is connected and has nothing left to send: B holds every entry A has."""
    stats = replicator(a, b, topic)
    return stats.get("connected") is True and stats.get("replicationBacklog") == 0
