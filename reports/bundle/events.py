"""Distinct failing events beside failing requirements (issue 47: one event, one requirement).

A judge charges an event to the requirement whose text it breaks and names it in that row
(``details.event``, conformance/harness/rows.py ``charged``); a row of another requirement the same
event touches names the same event (``same_event``: ``details.event`` and ``details.same_event_as``).
Where that other requirement's text is broken too, its row still fails, so one event can fail
several requirements: a summary that counts failing requirements alone counts it several times.
These pure functions count the events instead: a failing row that names no event is an event of
its own (its check), rows that name the same event are one.

A row fails when it fails one of its requirements as the report reads it
(conformance/harness/sources.py ``verdict_for``: an observation's or another client's fail is
``differs``, no failure); without the catalog, when its own verdict is ``fail``.
"""
from __future__ import annotations

from collections.abc import Iterable

from pulsar_conformance.conformance.harness import sources


def event_of(check: dict) -> str:
    """The event a recorded check row belongs to: the one it names, else its own check."""
    return (check.get("details") or {}).get("event") or check["check"]


def fails(check: dict, requirements: dict | None = None) -> bool:
    """Whether a recorded check row is a failure of any requirement it judges (``requirements``: id ->
    catalog requirement; None: the row's own verdict)."""
    if check.get("kind", "deployment") != "deployment" or check.get("verdict") != "fail":
        return False
    if requirements is None:
        return True
    known = [requirements[rid] for rid in check.get("requirements") or () if rid in requirements]
    if not known:
        return True
    return any(sources.verdict_for(req, check)[0] == "fail" for req in known)


def failing_events(checks: Iterable[dict], requirements: Iterable | None = None) -> dict[str, list[dict]]:
    """Each distinct failing event, in the order first seen, with the failing rows it explains: each
    row names its check and the requirements it failed."""
    by_id = None if requirements is None else {req.id: req for req in requirements}
    found: dict[str, list[dict]] = {}
    for check in checks:
        if not fails(check, by_id):
            continue
        found.setdefault(event_of(check), []).append({"check": check["check"],
                                                       "requirements": sources.failed(check, by_id)})
    return found


def count_failing_events(checks: Iterable[dict], requirements: Iterable | None = None) -> int:
    """How many distinct events failed: the number a summary shows beside its failing requirements."""
    return len(failing_events(checks, requirements))


def failing_requirements(checks: Iterable[dict], requirements: Iterable | None = None) -> set[str]:
    """The requirements some check row failed (as ``failing_events`` reads a failure)."""
    return {rid for rows in failing_events(checks, requirements).values() for r in rows for rid in r["requirements"]}


def summary_counts(checks: list[dict], requirements: Iterable | None = None) -> dict[str, int]:
    """``{"failing_requirements": n, "failing_events": m}`` for one run's recorded checks (its
    checks.jsonl, or summary.json's ``checks``): m <= n wherever one event failed several requirements,
    m > n where one requirement failed by several events."""
    reqs = None if requirements is None else list(requirements)
    return {"failing_requirements": len(failing_requirements(checks, reqs)),
            "failing_events": count_failing_events(checks, reqs)}
