"""The checks as straightforward Python over pyarrow batches: the readable reference.

It is the definition the faster engines are tested against (tests assert equal counts and
examples), and the baseline of ``bench spark``. Memory grows with the number of
(subscription, uid) pairs, so it is meant for small and medium captures.
"""
from __future__ import annotations

from collections import defaultdict

import pyarrow.dataset as ds

from .capture_input import NEEDED, CaptureInput
from .classes import (
    DUPLICATE,
    LOST,
    MAX_EXAMPLES,
    NONMONOTONIC,
    RECOVERED,
    REDELIVERED_AFTER_ACK,
    UNEXPECTED,
)

_SENDS = ("send_ok", "send_err", "send_unknown")


def run_checks(capture: CaptureInput) -> dict:
    sent_ok: dict[str, tuple] = {}  # uid -> (topic, ts, producer, seq, key)
    failed_kinds: dict[str, set] = defaultdict(set)
    deliveries: dict[tuple, list] = defaultdict(list)  # (topic, sub, uid) -> [(ts, rc, client, producer, seq, key)]
    first_ack: dict[tuple, int] = {}
    events = sends = 0
    for batch in ds.dataset(list(capture.files), format="parquet").to_batches(columns=list(NEEDED)):
        columns = [batch.column(name).to_pylist() for name in NEEDED]
        events += batch.num_rows
        for ts, client, topic, sub, kind, uid, producer, seq, key, rc in zip(*columns, strict=True):
            if kind == "receive":
                deliveries[(topic, sub, uid)].append((ts, rc or 0, client, producer, seq, key))
            elif kind == "ack":
                pair = (topic, sub, uid)
                if pair not in first_ack or ts < first_ack[pair]:
                    first_ack[pair] = ts
            elif kind in _SENDS:
                sends += 1
                if kind == "send_ok":
                    if uid not in sent_ok or ts < sent_ok[uid][1]:
                        sent_ok[uid] = (topic, ts, producer, seq, key)
                else:
                    failed_kinds[uid].add(kind)

    found: dict[str, list[tuple]] = {c: [] for c in (LOST, DUPLICATE, UNEXPECTED, RECOVERED, NONMONOTONIC,
                                                     REDELIVERED_AFTER_ACK)}
    first_deliveries = []
    for (topic, sub, uid), rows in deliveries.items():
        rows.sort(key=lambda r: (r[0], r[1]))
        ts0, _, client0, producer0, seq0, key0 = rows[0]
        sent = uid in sent_ok or uid in failed_kinds
        if sent:  # a uid never sent has no producer order (docs/spark-checks.md)
            first_deliveries.append((topic, sub, client0, producer0, key0, ts0, seq0, uid))
        ack = first_ack.get((topic, sub, uid))
        base = {"topic": topic, "subscription": sub, "uid": uid, "producer": producer0, "seq": seq0}
        unexplained = sum(1 for r in rows[1:] if r[1] == 0 and (ack is None or r[0] <= ack))
        if unexplained:
            found[DUPLICATE].append(((-unexplained, -len(rows), ts0, uid),
                                     {**base, "deliveries": len(rows), "unexplained": unexplained}))
        if ack is not None:
            after = [r[0] for r in rows if r[0] > ack]
            if after:
                found[REDELIVERED_AFTER_ACK].append(((-len(after), -(max(after) - ack), ts0, uid),
                                                     {**base, "acked_ts_ns": ack, "after_ack": len(after),
                                                      "last_ts_ns": max(after)}))
        if uid not in sent_ok:
            if sent:
                kind = "send_unknown" if "send_unknown" in failed_kinds[uid] else "send_err"
                found[RECOVERED].append(((ts0, uid), {**base, "send_kind": kind, "first_ts_ns": ts0}))
            else:
                found[UNEXPECTED].append(((-len(rows), ts0, uid),
                                          {**base, "deliveries": len(rows), "first_ts_ns": ts0}))

    for entry in capture.manifest["must_see"]:
        topic, sub = entry["topic"], entry["subscription"]
        for uid, (send_topic, ts, producer, seq, key) in sent_ok.items():
            if send_topic == topic and (topic, sub, uid) not in deliveries:
                found[LOST].append(((ts, uid), {"topic": topic, "subscription": sub, "uid": uid, "producer": producer,
                                                "seq": seq, "key": key, "sent_ts_ns": ts}))

    # Order is per consumer client (docs/spark-checks.md); equal timestamps give the benefit of the doubt.
    first_deliveries.sort(key=lambda r: (r[0], r[1], r[2], r[3], r[4] is None, r[4] or "", r[5], r[6]))
    group, highest = None, None
    for topic, sub, client, producer, key, ts, seq, uid in first_deliveries:
        if (topic, sub, client, producer, key) != group:
            group, highest = (topic, sub, client, producer, key), seq
            continue
        if seq < highest:
            found[NONMONOTONIC].append(((-(highest - seq), ts, uid),
                                        {"topic": topic, "subscription": sub, "client": client, "producer": producer,
                                         "key": key, "uid": uid, "seq": seq, "after_seq": highest, "ts_ns": ts}))
        else:
            highest = seq

    counts = {name: len(items) for name, items in found.items()}
    examples = {name: [doc for _, doc in sorted(items, key=lambda item: item[0])[:MAX_EXAMPLES]]
                for name, items in found.items()}
    return {"events": events, "sends": sends, "counts": counts, "examples": examples}
