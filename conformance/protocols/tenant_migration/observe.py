"""What the tenant-migration scenario reads of A and B: the subscription's cursor on each, A's
replicator to B (where it starts, whether it has caught up), both cursors polled over time, and where
B stored each message (a reader's view: it moves no subscription). A and B are the deployment's
clusters; Pulsar knows them by their ``.name``, which need not be the suite's role."""
from __future__ import annotations

import time

import pulsar

from pulsar_conformance.fixtures.capture.schema import format_msg_id
from pulsar_conformance.fixtures.deploy.admin import or_refusal
from pulsar_conformance.wait import wait_until

from ...harness.deadline import CLIENT_CALL_DEADLINE_S, within
from ...harness.replication import replicated, replicator  # noqa: F401 - read as observe.replicated by the scenarios

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


def replicator_start(a, b, topic: str) -> dict:
    """Where A's replicator to B starts (its cursor ``pulsar.repl.<B's cluster name>`` on A), read once
    the replicator shows in A's stats and its cursor exists: ledger cursors open asynchronously, so the
    replicator shows before its cursor does. Empty values if neither came within 20 s each."""
    wait_until(lambda: "error" not in replicator(a, b, topic), timeout=20, interval=0.3)

    def opened() -> dict | None:
        stats = or_refusal(a.admin().topic_internal_stats, topic)
        return (stats.get("cursors") or {}).get(f"pulsar.repl.{b.name}")
    found = wait_until(opened, timeout=20, interval=0.3) or {}
    return {k: found.get(k) for k in ("markDeletePosition", "readPosition")}


def stored_on(client, topic: str) -> dict[str, str]:
    """uid -> ``ledger:entry`` where B stored it, read by a reader (it moves no subscription)."""
    return dict(stored_all(client, topic))


def stored_all(client, topic: str, side: str = "B") -> list[tuple[str, str]]:
    """(uid, ``ledger:entry``) for every entry the cluster of ``client`` holds (``side`` names it in a hung
    call's evidence), in its order: a message stored twice is listed twice."""
    reader = within(CLIENT_CALL_DEADLINE_S, f"reader on {side}",
                    lambda: client.create_reader(topic, pulsar.MessageId.earliest))
    found = []
    try:
        while True:
            try:
                message = within(CLIENT_CALL_DEADLINE_S, f"read on {side}", lambda: reader.read_next(2000))
            except pulsar.Timeout:
                return found
            found.append((message.properties().get("uid", ""), format_msg_id(message.message_id())))
    finally:
        within(CLIENT_CALL_DEADLINE_S, f"close the reader on {side}", reader.close)


def stall_evidence(deployment, a, b, topic: str, *, log_from: int = 0) -> dict:
    """What tells a replicator that did not resume from a link the suite did not heal: A's replicator
    cursor (internal stats), B's view of the topic (msgInCount), the suite's proxy routes between A and B
    (Faults.link_state: None where the deployment has none), and A's log lines about the replicator or the topic since ``log_from``
    (the line count before the heal), at most 40 of them."""
    stats = or_refusal(a.admin().topic_internal_stats, topic)
    on_b = or_refusal(b.admin().topic_stats, topic)
    short = topic.rsplit("/", 1)[-1]
    said = [line for line in deployment.broker_log("blue").splitlines()[log_from:]
            if "eplicat" in line or short in line]
    return {"replicator_cursor": (stats.get("cursors") or {}).get(f"pulsar.repl.{b.name}"),
            "b_msg_in": {k: on_b.get(k) for k in ("msgInCounter", "msgInCount", "publishers") if k in on_b},
            "links": deployment.faults.link_state("blue", "green"),
            "a_log": said[-40:]}
