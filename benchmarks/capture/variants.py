"""Where capture's cost goes on a producer: send variants timed in one process, alternating.

Not part of the suite; a measuring script for docs/capture.md (issue 18). Against a running
broker (``--service-url``), each round runs every variant once on a fresh topic, the order
rotated round by round so that load drift hits all alike; medians are compared to ``raw``.

    python benchmarks/capture/variants.py pulsar://127.0.0.1:6650 --messages 30000 --rounds 7 \
        [--no-batching] [--variants raw,raw_uid,fast_uid,captured] [--json out.json]

Variants:
  raw          public ``Producer.send_async(payload, cb)``, no property (the bench's baseline)
  raw_uid      public ``send_async`` with the one ``uid`` property a capture adds (C++ cost of it)
  fast_uid     the capture's send path (MessageBuilder, uid) with a plain callback, nothing recorded
  fast_uid_closure  as fast_uid, with a new Python closure per message calling the callback
  fast_uid_record   as fast_uid_closure, the closure also appending the capture's outcome tuple
                    (seq, key, cluster, time_ns, Result, MessageId) to a deque that nobody drains
  captured     ``Capture.producer(...).send_async`` as shipped, close included (the bench's figure)
  rec_lean     as fast_uid_record, the tuple cut to (seq, time_ns, Result, MessageId)
  rec_nokeep   as rec_lean without keeping Result and MessageId (not a valid capture: measures
               what keeping the client's objects alive until flush costs)
  rec_str      as rec_lean, keeping int(Result) and str(MessageId) instead of the objects
  rec_ser      as rec_lean, keeping int(Result) and MessageId.serialize() bytes
  rec_keepres  as rec_ser, but keeping the Result object
  rec_keepmid  as rec_ser, but keeping the MessageId object
  rec_acc      as rec_lean, keeping int(Result) and the MessageId's four ints (ledger, entry,
               partition, batch index)
  rec_partial  as rec_lean through functools.partial(one shared function, seq), no closure
  captured_nodrain  as captured, but the writer discards the outcome buffer instead of
                    converting and writing it (the wrapper's send path and callback alone)
  captured_before  as captured, with an earlier fixtures/capture (--before)
  captured_fi1  as captured, flush_interval=1.0 (the contract's most) instead of 0.5
  captured_plain  as captured, Parquet files written without compression and dictionaries
  captured_late  as captured, but the periodic flusher is idle until close (conversion all at close)
"""
from __future__ import annotations

import argparse
import collections
import functools
import json
import os
import resource
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path

import pulsar
from _pulsar import MessageBuilder

from pulsar_conformance.fixtures.capture import Capture
from pulsar_conformance.fixtures.capture import writer as writer_module
from pulsar_conformance.fixtures.capture.bench import Countdown, producer_options


def run_variant(client, variant: str, messages: int, payload: bytes, batching: bool) -> dict:
    topic = f"persistent://public/default/bench-variants-{uuid.uuid4().hex[:8]}"
    options = producer_options(batching)
    completed = Countdown(messages)

    tmp = tempfile.TemporaryDirectory(prefix="bench-variants-") if variant.startswith("captured") else None
    capture_class = Capture
    if variant == "captured_before":
        # The capture package as committed before a change, copied to a directory of its own
        # (--before DIR holding a package "oldcap"), timed beside the working tree's.
        import oldcap.run
        capture_class = oldcap.run.Capture
    capture = None
    original_run = writer_module.CaptureWriter._run
    if tmp is not None:
        if variant == "captured_late":
            writer_module.CaptureWriter._run = lambda self: self._stop.wait()
        try:
            capture = capture_class(Path(tmp.name), flush_interval=1.0 if variant == "captured_fi1" else 0.5)
        finally:
            writer_module.CaptureWriter._run = original_run
        producer = capture.producer(client, topic, name="bench", **options)
        if variant == "captured_nodrain":
            def discard(outcomes=producer._outcomes):
                outcomes.clear()
            capture.writer._sources[:] = [discard]
    else:
        producer = client.create_producer(topic, **options)
    if variant == "captured_plain":
        import types

        import pyarrow.parquet as pq
        writer_module.pq = types.SimpleNamespace(write_table=functools.partial(
            pq.write_table, compression="none", use_dictionary=False))
    inner = producer._producer
    send = producer.send_async
    usage0 = resource.getrusage(resource.RUSAGE_SELF)
    started, cpu0, thread0 = time.perf_counter(), time.process_time(), time.thread_time()
    if variant == "raw_uid":
        for i in range(1, messages + 1):
            send(payload, completed, properties={"uid": "bench/" + str(i)})
    elif variant == "fast_uid":
        inner_send = inner.send_async
        for i in range(1, messages + 1):
            builder = MessageBuilder()
            builder.content(payload)
            builder.properties({"uid": "bench/" + str(i)})
            inner_send(builder.build(), completed)
    elif variant in ("fast_uid_closure", "fast_uid_record"):
        inner_send = inner.send_async
        outcomes = collections.deque()
        record, time_ns = outcomes.append, time.time_ns
        for i in range(1, messages + 1):
            builder = MessageBuilder()
            builder.content(payload)
            builder.properties({"uid": "bench/" + str(i)})
            if variant == "fast_uid_closure":
                def one(result, msg_id, i=i):
                    completed(result, msg_id)
            else:
                def one(result, msg_id, i=i):
                    record((i, None, None, time_ns(), result, msg_id))
                    completed(result, msg_id)
            inner_send(builder.build(), one)
    elif variant in ("rec_lean", "rec_nokeep", "rec_partial", "rec_str", "rec_ser", "rec_keepres", "rec_keepmid",
                     "rec_acc"):
        inner_send = inner.send_async
        outcomes = collections.deque()
        record, time_ns = outcomes.append, time.time_ns

        def recorded(seq, result, msg_id):
            record((seq, time_ns(), result, msg_id))
            completed(result, msg_id)

        for i in range(1, messages + 1):
            builder = MessageBuilder()
            builder.content(payload)
            builder.properties({"uid": "bench/" + str(i)})
            if variant == "rec_lean":
                def one(result, msg_id, i=i):
                    record((i, time_ns(), result, msg_id))
                    completed(result, msg_id)
            elif variant == "rec_nokeep":
                def one(result, msg_id, i=i):
                    record((i, time_ns()))
                    completed(result, msg_id)
            elif variant == "rec_str":
                def one(result, msg_id, i=i):
                    record((i, time_ns(), int(result), str(msg_id)))
                    completed(result, msg_id)
            elif variant == "rec_ser":
                def one(result, msg_id, i=i):
                    record((i, time_ns(), int(result), msg_id.serialize()))
                    completed(result, msg_id)
            elif variant == "rec_keepres":
                def one(result, msg_id, i=i):
                    record((i, time_ns(), result, msg_id.serialize()))
                    completed(result, msg_id)
            elif variant == "rec_keepmid":
                def one(result, msg_id, i=i):
                    record((i, time_ns(), int(result), msg_id))
                    completed(result, msg_id)
            elif variant == "rec_acc":
                def one(result, msg_id, i=i):
                    record((i, time_ns(), int(result), msg_id.ledger_id(), msg_id.entry_id(), msg_id.partition(),
                            msg_id.batch_index()))
                    completed(result, msg_id)
            else:
                one = functools.partial(recorded, i)
            inner_send(builder.build(), one)
    else:
        for _ in range(messages):
            send(payload, completed)
    sent = time.perf_counter()
    producer.flush()
    if not completed.done.wait(120):
        raise RuntimeError(f"{variant}: only {messages - completed.remaining} sends completed")
    closing = time.perf_counter()
    if capture is not None:
        capture.close()
    elapsed = time.perf_counter() - started
    if variant == "captured_plain":
        import pyarrow.parquet as pq
        writer_module.pq = pq
    cpu, thread_cpu = time.process_time() - cpu0, time.thread_time() - thread0
    usage = resource.getrusage(resource.RUSAGE_SELF)
    producer.close()
    if tmp is not None:
        import pyarrow.dataset as ds
        rows = ds.dataset(os.path.join(tmp.name, "events"), format="parquet").count_rows()
        tmp.cleanup()
        if rows != messages and variant != "captured_nodrain":
            raise RuntimeError(f"{variant}: {rows} rows for {messages} messages")
    return {"rate": messages / elapsed, "close_s": started + elapsed - closing, "send_loop_s": sent - started, "cpu_us_per_msg": 1e6 * cpu / messages,
            "main_thread_cpu_us_per_msg": 1e6 * thread_cpu / messages,
            "user_us_per_msg": 1e6 * (usage.ru_utime - usage0.ru_utime) / messages,
            "sys_us_per_msg": 1e6 * (usage.ru_stime - usage0.ru_stime) / messages,
            "voluntary_switches_per_msg": (usage.ru_nvcsw - usage0.ru_nvcsw) / messages,
            "involuntary_switches_per_msg": (usage.ru_nivcsw - usage0.ru_nivcsw) / messages}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("service_url")
    parser.add_argument("--messages", type=int, default=30_000)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--payload", type=int, default=100)
    parser.add_argument("--no-batching", dest="batching", action="store_false")
    parser.add_argument("--variants", default="raw,raw_uid,fast_uid,captured")
    parser.add_argument("--json", default=None)
    parser.add_argument("--before", default=None,
                        help="directory holding a package 'oldcap' (an earlier fixtures/capture) for captured_before")
    args = parser.parse_args(argv)
    variants = args.variants.split(",")
    if args.before:
        sys.path.insert(0, args.before)
    client = pulsar.Client(args.service_url, logger=pulsar.ConsoleLogger(pulsar.LoggerLevel.Warn))
    payload = b"x" * args.payload
    results: dict[str, list[dict]] = {v: [] for v in variants}
    load = [os.getloadavg()]
    try:
        run_variant(client, "raw", min(args.messages, 5_000), payload, args.batching)  # warm-up
        for round_index in range(args.rounds):
            shift = round_index % len(variants)
            for variant in variants[shift:] + variants[:shift]:
                results[variant].append(run_variant(client, variant, args.messages, payload, args.batching))
            print(f"round {round_index + 1}: " + ", ".join(
                f"{v} {results[v][-1]['rate']:,.0f}" for v in variants), file=sys.stderr, flush=True)
    finally:
        client.close()
    load.append(os.getloadavg())
    raw = statistics.median(r["rate"] for r in results[variants[0]])
    summary = {"batching": args.batching, "messages": args.messages, "rounds": args.rounds,
               "loadavg_before_after": load, "variants": {}}
    for v in variants:
        rates = [r["rate"] for r in results[v]]
        median = statistics.median(rates)
        summary["variants"][v] = {
            "median_msgs_per_s": round(median), "ratio_to_" + variants[0]: round(median / raw, 3),
            "rates": [round(r) for r in rates],
            "median_close_ms": round(1000 * statistics.median(r["close_s"] for r in results[v]), 1),
            **{f"median_{k}": round(statistics.median(r[k] for r in results[v]), 2) for k in (
                "user_us_per_msg", "sys_us_per_msg", "voluntary_switches_per_msg", "involuntary_switches_per_msg")},
            "median_cpu_us_per_msg": round(statistics.median(r["cpu_us_per_msg"] for r in results[v]), 2),
            "median_main_thread_cpu_us_per_msg": round(
                statistics.median(r["main_thread_cpu_us_per_msg"] for r in results[v]), 2),
        }
        s = summary["variants"][v]
        print(f"{v:14s} {median:>9,.0f} msg/s  {median / raw:.3f}  cpu {s['median_cpu_us_per_msg']:.1f} us/msg "
              f"(main thread {s['median_main_thread_cpu_us_per_msg']:.1f}) "
              f"close {s['median_close_ms']:.0f} ms; user {s['median_user_us_per_msg']:.1f} sys {s['median_sys_us_per_msg']:.1f} "
              f"us/msg, switches/msg {s['median_voluntary_switches_per_msg']:.2f} vol "
              f"{s['median_involuntary_switches_per_msg']:.2f} invol")
    print(f"load average before/after: {load}")
    if args.json:
        Path(args.json).write_text(json.dumps(summary, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
