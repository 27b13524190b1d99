"""Switch-over figures, whatever moved the clients (a migration, a failover): how long after the
instant that caused it something happened, the longest silence, and what was delivered again
after the switch. The figures explain a verdict; the checks judge requirements."""
from __future__ import annotations

from collections.abc import Iterable
from itertools import pairwise


def seconds(from_ns: int, to_ns: int) -> float:
    return round((to_ns - from_ns) / 1e9, 3)


def after(from_ns: int, to_ns: int | None) -> float | None:
    """Seconds from the cause to the effect, or None when the effect never happened."""
    return None if to_ns is None else seconds(from_ns, to_ns)


def longest_gap_s(times: Iterable[int]) -> float:
    """The longest time between two successive events (e.g. acknowledged sends), in seconds."""
    ordered = sorted(times)
    return round(max((b - a for a, b in pairwise(ordered)), default=0) / 1e9, 3)


def first_after(times: Iterable[int], at_ns: int) -> int | None:
    """The first event strictly after ``at_ns``."""
    return min((t for t in times if t > at_ns), default=None)


def duplicates_after(receives: list[dict], at_ns: int | None) -> int:
    """Deliveries from ``at_ns`` on of a message (``uid``) already delivered before them, in
    delivery order: what a switch made a consumer read again."""
    seen, again = set(), 0
    for row in receives:
        if row["uid"] in seen and at_ns is not None and row["ts_ns"] >= at_ns:
            again += 1
        seen.add(row["uid"])
    return again
