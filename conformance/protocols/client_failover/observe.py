"""After a scenario's client has gone: what each cluster still holds for the scenario's
subscription, so a judge can tell an acknowledged send that is *stranded* (stored, still in some
cluster's backlog, never read) from one that is *gone* (PIP121-R11).

The namespace is replicated among the clusters, but a subscription is not: a send stored on the
primary just before it was killed may sit in the primary's backlog while the consumer reads on s1.
Each backlog is read by a throw-away consumer on the same subscription that never acknowledges, so
reading changes nothing; ``msgBacklog`` from the admin stats is kept beside it as a cross-check.
"""
from __future__ import annotations

import time

from ...harness.deadline import CLIENT_CALL_DEADLINE_S, within

# a backlog larger than this is counted (admin) but not read message by message: a scenario sends
# a few thousand messages; the judge then knows it could not attribute every missing uid
READ_AT_MOST = 20_000
RECEIVE_TIMEOUT_MS = 1_500


def backlogs(deployment, topic: str, subscription: str, clusters) -> dict[str, dict]:
    """Per cluster: ``{"msg_backlog": n, "uids": [...], "complete": bool}`` or ``{"error": text}``."""
    return {name: _backlog(deployment.clusters[name], topic, subscription) for name in clusters}


def _backlog(cluster, topic: str, subscription: str) -> dict:
    try:
        stats = cluster.admin().topic_stats(topic)
    except Exception as error:  # noqa: BLE001 - a cluster left down or without the topic is evidence
        return {"error": f"topic stats: {type(error).__name__}: {str(error)[:300]}"}
    sub = (stats.get("subscriptions") or {}).get(subscription)
    if sub is None:  # the consumer never subscribed here: nothing can be stranded on this cluster
        return {"msg_backlog": 0, "uids": [], "complete": True, "subscribed": False}
    expected = int(sub.get("msgBacklog") or 0)
    if expected == 0:
        return {"msg_backlog": 0, "uids": [], "complete": True, "subscribed": True}
    try:
        uids = within(CLIENT_CALL_DEADLINE_S * 4, f"read {cluster.name}'s backlog", _read, cluster, topic,
                      subscription, min(expected, READ_AT_MOST))
    except Exception as error:  # noqa: BLE001 - unreadable (a hung read too) is said; the judge leaves it unknown
        return {"msg_backlog": expected, "error": f"reading the backlog: {type(error).__name__}: {str(error)[:300]}"}
    return {"msg_backlog": expected, "uids": uids, "complete": len(uids) >= expected, "subscribed": True}


def _read(cluster, topic: str, subscription: str, count: int) -> list[str]:
    import pulsar

    client = cluster.client(operation_timeout_seconds=10)
    try:
        consumer = client.subscribe(topic, subscription, consumer_type=pulsar.ConsumerType.Exclusive,
                                    consumer_name="backlog-reader")
        uids: list[str] = []
        deadline = time.monotonic() + 60
        while len(uids) < count and time.monotonic() < deadline:
            try:
                message = consumer.receive(timeout_millis=RECEIVE_TIMEOUT_MS)
            except pulsar.Timeout:
                break
            uids.append(message.properties().get("uid", ""))
        consumer.close()  # no acknowledgement: the backlog stays as it was
        return uids
    finally:
        client.close()


def stored_on(deployment, cluster: str, topic: str) -> int | None:
    """How many messages ``cluster`` stored on ``topic`` (its msgInCounter; None: not answered)."""
    admin = deployment.clusters[cluster].admin()
    stats = admin.get_or_refusal(admin.topic_path(topic) + "/stats")
    return stats.get("msgInCounter") if "error" not in stats else None
