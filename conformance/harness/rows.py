"""Verdict rows: what a protocol's judge (``judge.py``) returns, and nothing more.

A judge is a pure function from its protocol's outcome to rows (Jepsen's checkers are the model):
it reaches no cluster and records nothing, so a recorded run (``harness.outcome``) is judged offline
by exactly the code the live scenario uses. The scenario hands the rows to ``Recorder.record``,
which applies the catalog, the hazards and the client's sources, and writes them.

One event, one requirement (issue 47): an event is charged to the requirement whose text it breaks
(``charged``: ``details.event`` names it); a row of another requirement it touches says "the same event
as ..." (``same_event``) and is no second independent failure: unknown where its own text is not
broken, its failure kept, and counted with the event, where it is.

Judges stay check-safe without a recorder: ``from_judge`` turns a judge of one check that raises
into that check's ``unknown`` row, and ``@judges`` makes a judge of several checks (a generator of
rows) yield a ``<name>/raised`` row for the requirements it judges after the rows it made before it
raised: a bug in one judge costs its own verdicts only.
"""
from __future__ import annotations

import functools
import inspect
import traceback
from dataclasses import dataclass, field

NOT_APPLICABLE = "not applicable"


@dataclass
class Row:
    check: str
    ok: bool | None
    evidence: str
    requirements: list[str] | None = None  # None: those the check declares (checks.py)
    details: dict = field(default_factory=dict)
    verdict: str | None = None  # NOT_APPLICABLE, or None: from ``ok``
    # a judge raised: ``check`` is ``<name>/raised`` (declared by no checks.py) and ``requirements``
    # are those the judge judges
    raised: bool = False
    # the spec behaviours the check validated (itf_traces.LiveTrace), in memory: the recorder saves them
    # as ITF files of the bundle and names them in ``details.itf``
    traces: list = field(default_factory=list, compare=False, repr=False)


def row(check: str, ok: bool | None, evidence: str, *, requirements: list[str] | None = None, **details) -> Row:
    return Row(check, ok, evidence, requirements, details)


def charged(r: Row, event: str) -> Row:
    """``r`` is the row an event is charged to (the requirement whose text it breaks): it names the
    event (``details.event``, a stable id) so a summary counts one failing event however many rows
    it touches (reports/bundle/events.py)."""
    r.details["event"] = event
    return r


def same_event(r: Row, event: str, home: str, why: str, *, broken: bool) -> Row:
    """``r`` also touches the event charged to ``home`` (its check and requirement): it names the
    same event and says so first. ``broken``: the event breaks ``r``'s own requirement's text too, so
    its failure stands (counted with the event, not as a second one); otherwise a failure ``r`` shows
    only through the event is not its requirement's: unknown (the state it is about was not reached
    past the event), never a pass. A row that passed or was unknown keeps its verdict."""
    r.details["event"] = event
    r.details["same_event_as"] = home
    if r.ok is False and not broken:
        r.ok = None
        r.evidence = (f"the same event as {home}, not a second independent failure: {why}; not judged past it; "
                      f"{r.evidence}")
    else:
        r.evidence = f"the same event as {home}: {why}; {r.evidence}"
    return r


def not_applicable(check: str, reason: str, *, requirements: list[str] | None = None, **details) -> Row:
    """The release lacks what ``check`` judges (``reason``: how it showed it)."""
    return Row(check, None, reason, requirements, details, verdict=NOT_APPLICABLE)


def from_judge(check: str, fn, /, *args, details: dict | None = None, **kwargs) -> Row:
    """``check``'s row from a judge ``fn(*args, **kwargs)`` returning ``(ok, evidence)`` or
    ``(ok, evidence, figures)`` (figures become details); ``unknown`` with the error if it raises."""
    try:
        result = fn(*args, **kwargs)
    except Exception as error:  # noqa: BLE001 - check-safe: a judge's error is its own unknown
        return Row(check, None, f"{raised(fn, error)}; unknown in this run, not failed",
                   details={**(details or {}), "raised": type(error).__name__})
    ok, said, *rest = result
    figures = rest[0] if rest and isinstance(rest[0], dict) else {}
    return Row(check, ok, said, details={**(details or {}), **figures})


def judges(*requirements: str):
    """Make a judge of several checks check-safe: ``fn(...)`` yields rows; the wrapped judge
    returns them as a list, ending with ``<prefix>/<fn name>/raised`` (``unknown`` for
    ``requirements``) if ``fn`` raised (``prefix``: the judge's own ``prefix`` argument)."""

    def wrap(fn):
        signature = inspect.signature(fn)

        @functools.wraps(fn)
        def safe(*args, **kwargs) -> list[Row]:
            made: list[Row] = []
            try:
                made.extend(fn(*args, **kwargs))
            except Exception as error:  # noqa: BLE001 - check-safe: any error of a judge is its own unknown
                prefix = signature.bind_partial(*args, **kwargs).arguments.get("prefix")
                name = f"{prefix}/{fn.__name__}" if prefix else fn.__name__
                said = (f"{raised(fn, error)}; what it judges is unknown in this run, not failed, and the checks "
                        "after it were still recorded")
                made.append(Row(f"{name}/raised", None, said, sorted(set(requirements)),
                                {"raised": type(error).__name__,
                                 "traceback": traceback.format_exception(error)[-6:]}, raised=True))
            return made

        safe.requirements = frozenset(requirements)
        return safe

    return wrap


def raised(fn, error: Exception) -> str:
    """What a judge that raised did, and where: the evidence of its unknown rows."""
    where = traceback.extract_tb(error.__traceback__)[-1]
    return (f"the judge {getattr(fn, '__qualname__', fn)} raised {type(error).__name__}: {error} "
            f"(at {where.filename.rsplit('/', 1)[-1]}:{where.lineno})")
