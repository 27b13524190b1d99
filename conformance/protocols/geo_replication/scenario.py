"""Geo-replication blue -> green through a replication outage: the traffic, the cut and the heal,
and the outcome (outcome.py) the capture leaves. It judges nothing: Spark's verdict of the capture
is taken after it, by the record step (record.py, harness/afterwards.py).

A producer on blue sends keyed messages at a steady rate in three phases: replication up,
replication cut (the suite's fault proxy resets the blue<->green link), replication healed.
A subscription on blue and one on green must each see every acknowledged message once, in
order per key. The timeline markers (cut, heal) go into the capture directory for the report.
"""
from __future__ import annotations

import random
import time
from pathlib import Path

import pulsar

from pulsar_conformance.fixtures.capture import Capture
from pulsar_conformance.fixtures.deploy.base import FaultUnsupported
from pulsar_conformance.output import progress
from pulsar_conformance.wait import wait_until

from ...harness import outcome as saved
from ...harness import timeline
from ...harness.deadline import CLIENT_CALL_DEADLINE_S, Hung, within
from . import observe
from .outcome import Outage, Outcome

KEYS = [f"k{i}" for i in range(8)]
RATE = 400  # messages/s: slow enough to draw a timeline, fast enough to finish in seconds


def _phase(producer, rng, count, failures):
    def done(result, _msg_id):
        if result != pulsar.Result.Ok:
            failures.append(str(result))

    interval = 20 / RATE
    for start in range(0, count, 20):
        began = time.monotonic()
        for _ in range(min(20, count - start)):
            producer.send_async(b"x" * 64, done, key=rng.choice(KEYS))
        time.sleep(max(0.0, interval - (time.monotonic() - began)))
    producer.flush()


def _counting_listener(counts, name):
    def listener(consumer, message):
        counts[name] += 1
        consumer.acknowledge(message)

    return listener


def _wait(predicate, seconds):
    return wait_until(predicate, timeout=seconds, interval=0.2)


def run(deployment, namespace: str, run_dir: Path, *, messages: int, seed: int) -> Outcome:
    """Send ``messages`` on ``namespace`` (replicated blue <-> green) in three phases (up, cut,
    healed), wait for both subscriptions to drain, and return the outcome, saved beside the capture
    with no Spark verdict yet (``verdict`` None: record.judged takes it)."""
    per_phase = messages // 3
    rng = random.Random(seed)
    topic = f"persistent://{namespace}/geo-smoke"
    line, failures = timeline.Timeline(), []
    counts = {"c-blue": 0, "c-green": 0}
    outage = Outage()
    blue = deployment.clusters["blue"].client()
    green = deployment.clusters["green"].client()
    try:
        with Capture(run_dir, must_see=[(topic, "audit-blue"), (topic, "billing-green")], allowed=["recovered"],
                     scenario={"seed": seed, "messages": per_phase * 3, "rate": RATE,
                               "operations": "send, cut blue<->green, send, heal, send"}) as capture:
            # Subscriptions and the producer exist before the cut: in a namespace replicated to an
            # unreachable peer, creating a topic hangs (docs/deployments.md, findings).
            capture.consumer(green, topic, "billing-green", name="c-green", cluster="green",
                             message_listener=_counting_listener(counts, "c-green"))
            capture.consumer(blue, topic, "audit-blue", name="c-blue", cluster="blue",
                             message_listener=_counting_listener(counts, "c-blue"))
            producer = capture.producer(blue, topic, name="p-blue", cluster="blue",
                                        batching_enabled=True, batching_max_publish_delay_ms=5)
            progress(f"sending {3 * per_phase} messages in three phases: replication up, cut, healed")
            _phase(producer, rng, per_phase, failures)
            try:
                deployment.faults.cut("blue", "green")
                line.mark("replication cut blue<->green")
                time.sleep(1.0)  # in-flight replication settles before we measure the silence
                green_at_cut = counts["c-green"]
                _phase(producer, rng, per_phase, failures)
                time.sleep(1.0)
                silent = counts["c-green"] == green_at_cut
                deployment.faults.heal("blue", "green")
                line.mark("replication healed")
                outage = Outage(silent, "green received nothing while the link was cut" if silent else
                                f"green kept receiving during the cut ({counts['c-green'] - green_at_cut} messages): "
                                "the cut did not stop replication")
            except FaultUnsupported as error:
                outage = Outage(False, f"the deployment cannot cut replication: {error}")
                _phase(producer, rng, per_phase, failures)
            _phase(producer, rng, per_phase, failures)
            sent = 3 * per_phase - len(failures)
            # Wait for the backlog to drain; the verdict itself comes from the capture, not these counters.
            _wait(lambda: counts["c-green"] >= sent and counts["c-blue"] >= sent, 120)
            time.sleep(1.0)  # late duplicates, if any, land in the capture too
    finally:
        for name, client in (("blue", blue), ("green", green)):
            try:  # a close stuck in C++ must not hang the certification (harness/deadline.py)
                within(CLIENT_CALL_DEADLINE_S, f"{name} client close()", client.close)
            except Hung as hung:
                line.hung([hung.call])
    # markers.json for the report; verdict.json is written by the record step with Spark's verdict
    timeline.save(run_dir, "geo-replication", None, line.markers, None)
    out = Outcome(run_dir, None, outage, failures, line.markers, observe.deliveries(run_dir))
    saved.save(out, run_dir)
    return out
