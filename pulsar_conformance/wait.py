"""Two ways to wait, and no other: every poll of the suite (a broker ready, dockerd answering, a
replicator connected, a port open, cursors sampled) goes through ``wait_until``, and every "until
nothing moved for N seconds" (consumers drained, a policy settled) through ``wait_quiet``, so
timeouts read alike."""
from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def wait_until(predicate: Callable[[], T], *, timeout: float, interval: float, what: str | None = None,
               check: Callable[[], None] | None = None) -> T:
    """``predicate()``'s first truthy value, polled every ``interval`` seconds for ``timeout``.

    ``check()`` runs before each poll and raises to stop early (the process being waited for
    died). At the timeout: ``TimeoutError('<what> not within N s')`` when ``what`` is given,
    else the last (falsy) value, for callers to whom a timeout is an answer, not an error."""
    deadline = time.monotonic() + timeout
    while True:
        if check is not None:
            check()
        value = predicate()
        if value:
            return value
        if time.monotonic() >= deadline:
            if what is not None:
                raise TimeoutError(f"{what} not within {timeout:.0f} s")
            return value
        time.sleep(min(interval, max(0.0, deadline - time.monotonic())))


def wait_quiet(read: Callable[[], object], *, quiet: float, timeout: float, interval: float,
               settled: Callable[[], bool] | None = None,
               pause: Callable[[float], object] = time.sleep) -> bool:
    """True once ``read()`` has answered the same for ``quiet`` seconds (and ``settled()`` holds
    then), False when ``timeout`` seconds pass first.

    ``read`` is what moves while something is still going on (a count of deliveries, the values
    the clusters hold); ``settled`` is asked only once it has been quiet long enough (it may be a
    costly call: a backlog over REST). ``pause(seconds)`` is what happens between two reads: a sleep
    by default, or the work that moves ``read`` (receiving the next message)."""
    deadline = time.monotonic() + timeout
    last, since = read(), time.monotonic()
    while time.monotonic() < deadline:
        pause(min(interval, max(0.0, deadline - time.monotonic())))
        now = read()
        if now != last:
            last, since = now, time.monotonic()
        if time.monotonic() - since >= quiet and (settled is None or settled()):
            return True
    return False
