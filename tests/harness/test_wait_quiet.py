"""wait_quiet: the one "until nothing moved for N seconds" of the suite (consumers drained, a policy
settled, B drained after the switch), and Traffic.stop's drain through it."""
from __future__ import annotations

import itertools
import threading
import time

from pulsar_conformance.conformance.harness.traffic import Handle, Traffic
from pulsar_conformance.wait import wait_quiet


def test_quiet_once_the_value_stops_moving():
    reads = itertools.count()
    started = time.monotonic()
    # moves for its first 5 reads, then holds 5 for good
    assert wait_quiet(lambda: min(next(reads), 5), quiet=0.1, timeout=5, interval=0.01) is True
    assert 0.1 <= time.monotonic() - started < 2


def test_a_value_that_keeps_moving_times_out():
    reads = itertools.count()
    started = time.monotonic()
    assert wait_quiet(lambda: next(reads), quiet=0.1, timeout=0.3, interval=0.01) is False
    assert 0.3 <= time.monotonic() - started < 2


def test_settled_is_asked_only_once_quiet_and_holds_the_wait():
    asked = []

    def settled():
        asked.append(time.monotonic())
        return len(asked) >= 3  # e.g. a backlog that empties on the third look

    started = time.monotonic()
    assert wait_quiet(lambda: 0, quiet=0.1, timeout=5, interval=0.01, settled=settled) is True
    assert len(asked) == 3 and asked[0] - started >= 0.1
    assert wait_quiet(lambda: 0, quiet=0.05, timeout=0.2, interval=0.01, settled=lambda: False) is False


def test_pause_is_the_work_between_two_reads():
    # the drain on B: receiving is what moves the count, and what paces the reads
    queue, count = [1, 1, 1], [0]

    def receive(_seconds):
        if queue:
            queue.pop()
            count[0] += 1
        else:
            time.sleep(0.01)

    assert wait_quiet(lambda: count[0], quiet=0.05, timeout=5, interval=0.01, pause=receive) is True
    assert count[0] == 3 and not queue


def _consumer(received: int = 0) -> Handle:
    return Handle("c", "consumer", "persistent://t/ns/x", "s", received=received)


def test_traffic_stop_drains_until_deliveries_stop():
    traffic = Traffic(capture=None, cluster=None, loads=[])
    handle = _consumer()
    traffic.handles.append(handle)

    def deliver():  # deliveries for 0.3 s after the producers stopped
        for _ in range(30):
            handle.received += 1
            time.sleep(0.01)

    feeder = threading.Thread(target=deliver)
    feeder.start()
    started = time.monotonic()
    traffic.stop(drain_seconds=10, quiet_seconds=0.2)
    took = time.monotonic() - started
    feeder.join()
    assert handle.received == 30 and traffic.stop_receiving.is_set()
    assert 0.2 <= took < 3  # waited for quiet after the last delivery, not for the whole drain


def test_traffic_stop_gives_up_at_the_drain_deadline():
    traffic = Traffic(capture=None, cluster=None, loads=[])
    handle = _consumer()
    traffic.handles.append(handle)
    stop = threading.Event()

    def deliver():
        while not stop.is_set():
            handle.received += 1
            time.sleep(0.01)

    feeder = threading.Thread(target=deliver)
    feeder.start()
    started = time.monotonic()
    try:
        traffic.stop(drain_seconds=0.4, quiet_seconds=0.2)
    finally:
        stop.set()
        feeder.join()
    assert 0.4 <= time.monotonic() - started < 3
