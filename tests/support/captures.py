"""A clean capture's rows (every message sent, received and acknowledged once), for tests that
damage one column and expect the capture refused."""
from __future__ import annotations

TOPIC, SUB = "persistent://t/ns/a", "s1"


def clean_rows(n: int) -> list[dict]:
    """``n`` messages of producer p0 sent, received and acked once by consumer c1."""
    rows = []
    for seq in range(1, n + 1):
        base = {"run_id": "r", "cluster": None, "topic": TOPIC, "uid": f"p0/{seq}", "producer": "p0", "seq": seq,
                "key": None, "msg_id": None}
        rows += [{**base, "ts_ns": 1_700_000_000_000_000_000 + seq, "client": "p0", "subscription": None,
                  "kind": "send_ok", "redelivery_count": None},
                 {**base, "ts_ns": 1_700_000_000_000_100_000 + seq, "client": "c1", "subscription": SUB,
                  "kind": "receive", "redelivery_count": 0},
                 {**base, "ts_ns": 1_700_000_000_000_200_000 + seq, "client": "c1", "subscription": SUB,
                  "kind": "ack", "redelivery_count": None}]
    return rows
