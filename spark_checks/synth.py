"""Synthetic captures with a known number of every anomaly class (the checks' ground truth).

The clean base is what a well-behaved run looks like: P producers on T topics, every message
delivered once to two must-see subscriptions (each served by two consumers, keys split
between them, as Key_Shared does) and acknowledged. It also carries legitimate noise that a
checker must not flag: redeliveries with a redelivery count, and failed sends that were never
delivered. Anomalies are then injected on disjoint messages ("slots") spaced far enough
apart that no injection can change another one's verdict, so the expected counts are exact.

Layout of message i (0-based, global): producer p = i % P, seq = i // P + 1, key = seq % K,
topic = p % T, sent at BASE + i µs. Two messages of one (producer, key) are K*P µs apart,
which is what lets a ``nonmonotonic`` injection overtake exactly one successor.
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from pulsar_conformance.errors import UsageError
from pulsar_conformance.fixtures.capture.manifest import write_manifest
from pulsar_conformance.fixtures.capture.schema import SCHEMA

from .classes import DUPLICATE, LOST, NONMONOTONIC, RECOVERED, REDELIVERED_AFTER_ACK, UNEXPECTED

GROUND_TRUTH = "ground_truth.json"
PRODUCERS = 4
TOPICS = 2
KEYS = 8
SUBSCRIPTIONS = ("s1", "s2")
BASE_NS = 1_780_000_000_000_000_000
STEP_NS = 1_000  # between consecutive sends
LATENCY_NS = 5_000_000  # send -> receive
ACK_AFTER_NS = 100_000  # receive -> ack
SLOT_STRIDE = 2 * KEYS * PRODUCERS  # keeps every injection's neighbourhood clean
EVENTS_PER_MESSAGE = 1 + 2 * len(SUBSCRIPTIONS)
CHUNK_MESSAGES = 400_000  # messages per Parquet file: bounds the generator's memory


@dataclass(frozen=True)
class Injection:
    lost: int
    duplicate: int
    redelivered_after_ack: int
    recovered: int
    nonmonotonic: int
    unexpected: int
    legit_redelivery: int
    failed_send: int


def default_per_class(events: int) -> int:
    return max(5, min(1_000, events // 100_000))


def generate(out: str | os.PathLike, *, events: int, seed: int, per_class: int | None = None,
             clean: bool = False, run_id: str | None = None) -> dict:
    """Write a capture of about ``events`` rows to ``out``; returns the ground truth."""
    out = Path(out)
    per_class = default_per_class(events) if per_class is None else per_class
    n = 0 if clean else per_class
    noise = per_class  # legitimate look-alikes stay in clean captures too: they must not count
    injection = Injection(n, n, n, n, n, n, noise, noise)
    messages = events // EVENTS_PER_MESSAGE
    run_id = run_id or f"synth{seed}"
    rng = np.random.default_rng(seed)

    slots = _choose_slots(rng, messages, injection)
    sub_of = {i: int(rng.integers(0, len(SUBSCRIPTIONS))) for name in ("lost", "duplicate", "redelivered_after_ack",
              "nonmonotonic", "legit_redelivery") for i in slots[name]}

    events_dir = out / "events"
    events_dir.mkdir(parents=True, exist_ok=True)
    for stale in events_dir.glob("*.parquet"):
        stale.unlink()
    total = 0
    for file_index, start in enumerate(range(0, messages, CHUNK_MESSAGES)):
        stop = min(messages, start + CHUNK_MESSAGES)
        table = _chunk(run_id, start, stop, slots, sub_of)
        if file_index == 0 and injection.unexpected:
            table = pa.concat_tables([table, _ghosts(run_id, injection.unexpected)])
        pq.write_table(table, events_dir / f"part-synth-{file_index:05d}.parquet", row_group_size=1 << 20)
        total += table.num_rows

    topics = [_topic(t) for t in range(TOPICS)]
    write_manifest(
        out,
        run_id=run_id,
        must_see=[{"topic": t, "subscription": s} for t in topics for s in SUBSCRIPTIONS],
        allowed=[RECOVERED],
        scenario={"synthetic": True, "seed": seed, "events": events, "per_class": per_class, "clean": clean},
    )
    uids = {name: [_uid(run_id, i) for i in sorted(indices)] for name, indices in slots.items()}
    truth = {
        "events": total,
        "messages": messages,
        "seed": seed,
        "clean": clean,
        "counts": {
            LOST: injection.lost,
            DUPLICATE: injection.duplicate,
            UNEXPECTED: injection.unexpected,
            # received by both subscriptions although the send failed or is unknown
            RECOVERED: injection.recovered * len(SUBSCRIPTIONS),
            NONMONOTONIC: injection.nonmonotonic,
            REDELIVERED_AFTER_ACK: injection.redelivered_after_ack,
        },
        "injected_uids": {name: values[:1000] for name, values in uids.items()},
    }
    (out / GROUND_TRUTH).write_text(json.dumps(truth, indent=1) + "\n")
    return truth


def _choose_slots(rng, messages: int, injection: Injection) -> dict[str, set[int]]:
    names = ("lost", "duplicate", "redelivered_after_ack", "recovered", "nonmonotonic",
             "legit_redelivery", "failed_send")
    wanted = {name: getattr(injection, name) for name in names}
    available = max(0, (messages - 2 * SLOT_STRIDE) // SLOT_STRIDE)
    if sum(wanted.values()) > available:
        raise UsageError(
            f"{sum(wanted.values())} injections need {sum(wanted.values()) * SLOT_STRIDE * EVENTS_PER_MESSAGE:,} "
            f"events or more, but only {messages * EVENTS_PER_MESSAGE:,} were asked for",
            "raise --events or lower --per-class",
        )
    # The offset spreads injections over producers, topics and keys; slots stay at least
    # SLOT_STRIDE - 2*P*T apart, more than the K*P reach of a nonmonotonic injection.
    count = sum(wanted.values())
    offsets = rng.integers(0, 2 * PRODUCERS * TOPICS, size=count)
    chosen = (rng.choice(available, size=count, replace=False) + 1) * SLOT_STRIDE + offsets
    slots, at = {}, 0
    for name in names:
        slots[name] = {int(i) for i in chosen[at: at + wanted[name]]}
        at += wanted[name]
    return slots


def _topic(t: int) -> str:
    return f"persistent://synth/ns/topic-{t}"


def _uid(run_id: str, i: int) -> str:
    return f"p{i % PRODUCERS}/{i // PRODUCERS + 1}"  # capture format /2: <producer>/<seq>


def _in(index: np.ndarray, members: set[int]) -> np.ndarray:
    return np.isin(index, np.fromiter(members, dtype=np.int64, count=len(members)))


def _chunk(run_id: str, start: int, stop: int, slots: dict[str, set[int]], sub_of: dict[int, int]) -> pa.Table:
    i = np.arange(start, stop, dtype=np.int64)
    p = i % PRODUCERS
    seq = i // PRODUCERS + 1
    key = seq % KEYS
    topic = p % TOPICS
    ts_send = BASE_NS + i * STEP_NS
    producers = pa.array([f"p{x}" for x in range(PRODUCERS)]).take(pa.array(p))
    uid = pc.binary_join_element_wise(
        pa.array([f"p{x}/" for x in range(PRODUCERS)]).take(pa.array(p)), pc.cast(pa.array(seq), pa.string()), ""
    )
    keys = pa.array([f"k{x}" for x in range(KEYS)]).take(pa.array(key))
    topics = pa.array([_topic(x) for x in range(TOPICS)]).take(pa.array(topic))
    msg_id = pc.binary_join_element_wise(
        pc.cast(pa.array(topic + 100), pa.string()), pc.cast(pa.array(i), pa.string()), pa.scalar("-1:-1"), ":"
    )
    recovered, failed = _in(i, slots["recovered"]), _in(i, slots["failed_send"])
    alternate = (i // SLOT_STRIDE) % 2 == 0
    send_kind = np.where(recovered | failed, np.where(alternate, "send_unknown", "send_err"), "send_ok")
    base = {"uid": uid, "producer": producers, "seq": pa.array(seq), "key": keys, "topic": topics}

    parts = [_rows(run_id, base, ts_send, client=producers, kind=send_kind, subscription=None,
                   msg_id=pc.if_else(pa.array(send_kind == "send_ok"), msg_id, pa.nulls(len(i), pa.string())),
                   redelivery=None)]
    chosen_sub = np.full(len(i), -1, dtype=np.int64)
    if sub_of:
        at = np.fromiter(sub_of.keys(), dtype=np.int64, count=len(sub_of))
        which = np.fromiter(sub_of.values(), dtype=np.int64, count=len(sub_of))
        here = (at >= start) & (at < stop)
        chosen_sub[at[here] - start] = which[here]
    for j, sub in enumerate(SUBSCRIPTIONS):
        mask_sub = chosen_sub == j
        lost = _in(i, slots["lost"]) & mask_sub
        delivered = ~(lost | failed)
        late = _in(i, slots["nonmonotonic"]) & mask_sub
        # Overtaken by exactly one successor of the same (producer, key): see module docstring.
        ts_recv = ts_send + LATENCY_NS + j * 500 + np.where(late, (3 * KEYS * PRODUCERS * STEP_NS) // 2, 0)
        clients = pa.array([f"c-t{t}-{sub}-{h}" for t in range(TOPICS) for h in range(2)]).take(
            pa.array(topic * 2 + key % 2))
        common = dict(client=clients, subscription=sub, msg_id=msg_id)
        parts.append(_rows(run_id, base, ts_recv, kind="receive", redelivery=0, mask=delivered, **common))
        parts.append(_rows(run_id, base, ts_recv + ACK_AFTER_NS, kind="ack", redelivery=None, mask=delivered, **common))
        dup = _in(i, slots["duplicate"]) & mask_sub
        parts.append(_rows(run_id, base, ts_recv + 30_000, kind="receive", redelivery=0, mask=dup, **common))
        legit = _in(i, slots["legit_redelivery"]) & mask_sub
        parts.append(_rows(run_id, base, ts_recv + 30_000, kind="receive", redelivery=1, mask=legit, **common))
        again = _in(i, slots["redelivered_after_ack"]) & mask_sub
        ts_again = ts_recv + ACK_AFTER_NS + 1_000_000
        parts.append(_rows(run_id, base, ts_again, kind="receive", redelivery=0, mask=again, **common))
        parts.append(_rows(run_id, base, ts_again + ACK_AFTER_NS, kind="ack", redelivery=None, mask=again, **common))
    return pa.concat_tables(parts)


def _rows(run_id, base, ts, *, client, kind, subscription, msg_id, redelivery, mask=None) -> pa.Table:
    n = len(ts)
    columns = {
        "run_id": pa.array([run_id]).take(pa.array(np.zeros(n, dtype=np.int64))),
        "ts_ns": pa.array(ts, pa.int64()),
        "client": client,
        "cluster": pa.nulls(n, pa.string()),
        "topic": base["topic"],
        "subscription": pa.nulls(n, pa.string()) if subscription is None else pa.array([subscription] * 1).take(
            pa.array(np.zeros(n, dtype=np.int64))),
        "kind": pa.array(kind, pa.string()) if not isinstance(kind, str) else pa.array([kind]).take(
            pa.array(np.zeros(n, dtype=np.int64))),
        "uid": base["uid"],
        "producer": base["producer"],
        "seq": base["seq"],
        "key": base["key"],
        "msg_id": msg_id,
        "redelivery_count": pa.nulls(n, pa.int32()) if redelivery is None else pa.array(
            np.full(n, redelivery, dtype=np.int32)),
    }
    table = pa.table([columns[f.name] for f in SCHEMA], schema=SCHEMA)
    return table if mask is None else table.filter(pa.array(mask))


def _ghosts(run_id: str, count: int) -> pa.Table:
    """Deliveries of messages nobody sent (e.g. left over from another run)."""
    rows = [(run_id, BASE_NS + j * 1_000_000, "c-t0-s1-0", None, _topic(0), "s1", "receive", f"ghost:{j}",
             "ghost", j + 1, None, f"99:{j}:-1:-1", 0) for j in range(count)]
    columns = list(zip(*rows, strict=True))
    return pa.table([pa.array(c, f.type) for c, f in zip(columns, SCHEMA, strict=True)], schema=SCHEMA)
