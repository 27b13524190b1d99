"""One way to wait for a condition: every poll of the suite (a broker ready, dockerd answering, a
replicator connected, a port open) goes through ``wait_until``, so timeouts read alike."""
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
