"""At-least-once redelivery is not a new consume (issue 28, PIP188-R01 through the Key_Shared trace).

A synthetic recorded outcome the size of the 4.2.4 one: one Key_Shared key, 12 messages around the
switch (6 stored on blue, 6 on green), 13 deliveries. Message 6, the last on blue, is delivered, the
migration closes its consumer before the ack, and blue delivers it again to the reconnected
consumer, which acknowledges it this time. Pulsar promises at-least-once delivery of what was not
acknowledged: that run is a behaviour of the spec. The same second delivery after the ack is a
duplicate the spec refuses, charged to PIP188-R15 only; a delivery order broken on the subscription
is charged to PIP188-R02, not to R01 (publish order).
"""
from __future__ import annotations

from pathlib import Path

from pulsar_conformance.conformance.protocols.cluster_migration import judge, outcome
from pulsar_conformance.fixtures.capture.schema import COLUMN_NAMES

TOPIC = "persistent://mig/live/keyshared"
PRODUCER, SUB, KEY = "p-ks", "ks", "k1"
BLUE_LEDGER, GREEN_LEDGER = 10, 20
MS = 1_000_000


def _row(ts_ms: float, kind: str, seq: int, *, subscription: str | None = None, msg_id: str | None = None,
         redelivery_count: int | None = None, client: str = "c-ks") -> dict:
    return {"run_id": "synthetic", "ts_ns": int(ts_ms * MS), "client": client if subscription else PRODUCER,
            "cluster": "blue", "topic": TOPIC, "subscription": subscription, "kind": kind,
            "uid": f"{PRODUCER}/{seq}", "producer": PRODUCER, "seq": seq, "key": KEY, "msg_id": msg_id,
            "redelivery_count": redelivery_count}


def _msg_id(seq: int) -> str:
    return f"{BLUE_LEDGER}:{seq - 1}:-1:-1" if seq <= 6 else f"{GREEN_LEDGER}:{seq - 7}:-1:-1"


def _run(*, ack_6_before_redelivery: bool = False, swap: tuple[int, int] | None = None) -> outcome.CapturedRun:
    """Sends at 100 ms apart, each delivered 10 ms and acknowledged 20 ms after its send; message
    6 delivered at 610 ms, its consumer closed unacknowledged (the migration), delivered again at
    650 ms (redelivery count 1) and acknowledged then (or, ``ack_6_before_redelivery``, acknowledged
    at 620 ms and delivered again anyway). ``swap``: two deliveries exchanged (an order mutant)."""
    rows = []
    for seq in range(1, 13):
        at = seq * 100.0
        rows.append(_row(at, "send_ok", seq, msg_id=_msg_id(seq)))
        rows.append(_row(at + 10, "receive", seq, subscription=SUB, msg_id=_msg_id(seq), redelivery_count=0))
        if seq != 6:
            rows.append(_row(at + 20, "ack", seq, subscription=SUB, msg_id=_msg_id(seq)))
    if ack_6_before_redelivery:
        rows.append(_row(620, "ack", 6, subscription=SUB, msg_id=_msg_id(6)))
    rows.append(_row(650, "receive", 6, subscription=SUB, msg_id=_msg_id(6), redelivery_count=1))
    rows.append(_row(660, "ack", 6, subscription=SUB, msg_id=_msg_id(6)))
    if swap:
        a, b = (next(r for r in rows if r["kind"] == "receive" and r["seq"] == s) for s in swap)
        a["ts_ns"], b["ts_ns"] = b["ts_ns"], a["ts_ns"]
    rows.sort(key=lambda r: r["ts_ns"])
    columns = {name: [r[name] for r in rows] for name in COLUMN_NAMES}
    blue = outcome.TopicState("blue", TOPIC, {BLUE_LEDGER}, "Terminated", "true", 6)
    green = outcome.TopicState("green", TOPIC, {GREEN_LEDGER}, "LedgerOpened", None, 6)
    return outcome.CapturedRun(Path("synthetic"), int(650 * MS), columns, {TOPIC: (blue, green)},
                             {(TOPIC, SUB): "Key_Shared"})


def test_an_unacknowledged_message_delivered_again_is_a_behaviour_of_the_spec():
    v = judge.judge_pair(_run(), TOPIC, PRODUCER, SUB)
    assert v.modelled and len(v.parts) == 1, v.evidence  # one key, validated on its own
    part = v.parts[0]
    assert (part.messages, part.from_blue, part.from_green, part.receives) == (12, 6, 6, 13)
    assert v.ok is True, v.evidence
    assert part.redeliveries == 1 and part.figures()["redeliveries_unacked"] == 1
    assert "12 messages around the switch" in v.evidence and "13 deliveries" in v.evidence
    assert "1 of them at-least-once redeliveries of a message not yet acknowledged" in v.evidence
    assert v.requirements == ["PIP188-R01", "PIP188-R02", "PIP188-R04"]


def test_a_message_delivered_again_after_its_ack_is_charged_to_r15_only():
    v = judge.judge_pair(_run(ack_6_before_redelivery=True), TOPIC, PRODUCER, SUB)
    assert v.ok is False and v.parts[0].finding == "redelivery", v.evidence
    assert v.requirements == ["PIP188-R15"]
    assert v.parts[0].redeliveries == 0


def test_a_delivery_order_broken_on_the_subscription_is_charged_to_r02_not_r01():
    v = judge.judge_pair(_run(swap=(3, 4)), TOPIC, PRODUCER, SUB)
    assert v.ok is False and v.parts[0].finding == "order", v.evidence
    assert v.requirements == ["PIP188-R02"]
