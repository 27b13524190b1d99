"""What the tenant-migration scenario reads of A and B: the subscription's cursor on each, whether
A's replicator to B has caught up, both cursors polled over time, and where B stored each message
(a reader's view: it moves no subscription)."""
from __future__ import annotations

import time

import pulsar

from pulsar_conformance.fixtures.capture.schema import format_msg_id
from pulsar_conformance.fixtures.deploy.admin import or_refusal
from pulsar_conformance.wait import wait_until

from ...harness.deadline import CLIENT_CALL_DEADLINE_S, within

SUBSCRIPTION = "migrating"


def cursor(cluster, topic: str) -> dict:
    stats = or_refusal(cluster.admin().topic_internal_stats, topic)
    cursor = (stats.get("cursors") or {}).get(SUBSCRIPTION) or {}
    return {k: cursor.get(k) for k in ("markDeletePosition", "individuallyDeletedMessages", "readPosition")} | (
        {"lastConfirmedEntry": stats.get("lastConfirmedEntry")}) | ({"error": stats["error"]} if "error" in stats else {})


def poll(series: list[dict], a, b, topic: str, *, until_ns: int, done=None) -> bool:
    """Both cursors every 0.5 s until ``until_ns`` or until ``done`` holds (then True)."""
    start = len(series)

    def sampled() -> bool:
        if done and done(series[start:]):
            return True
        on_b = cursor(b, topic)
        series.append({"ts_ns": time.time_ns(), "a": cursor(a, topic).get("markDeletePosition"),
                       "b": on_b.get("markDeletePosition"), "b_has": on_b.get("lastConfirmedEntry")})
        return False

    seconds = (until_ns - time.time_ns()) / 1e9
    if seconds > 0 and wait_until(sampled, timeout=seconds, interval=0.5):
        return True
    return bool(done and done(series[start:]))


def replicated(a, topic: str) -> bool:
    """A's replicator to B is connected and has nothing left to send: B holds every entry A has."""
    replicator = a.admin().replication_to(topic, "green")
    return replicator.get("connected") is True and replicator.get("replicationBacklog") == 0


def stored_on(client, topic: str) -> dict[str, str]:
    """uid -> ``ledger:entry`` where B stored it, read by a reader (it moves no subscription)."""
    return dict(stored_all(client, topic))


def stored_all(client, topic: str) -> list[tuple[str, str]]:
    """(uid, ``ledger:entry``) for every entry B holds, in B's order: a message stored twice is listed twice."""
    reader = within(CLIENT_CALL_DEADLINE_S, "reader on B", lambda: client.create_reader(topic, pulsar.MessageId.earliest))
    found = []
    try:
        while True:
            try:
                message = within(CLIENT_CALL_DEADLINE_S, "read on B", lambda: reader.read_next(2000))
            except pulsar.Timeout:
                return found
            found.append((message.properties().get("uid", ""), format_msg_id(message.message_id())))
    finally:
        within(CLIENT_CALL_DEADLINE_S, "close the reader on B", reader.close)
