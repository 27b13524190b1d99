"""Verdicts of a live scenario, per requirement, into the certification run's checks.

``Recorder`` writes one row per check, judging the requirements its protocol declares for it
(``checks.py``) (checks.jsonl, through ``run.record``, which refuses an id
no catalog has) and fails the test only on a failed MUST; a check left unknown makes the test
broken (``VerdictUnknown``), never passed.

Each row also carries what the report needs to be fair to the product (issue 28):

- ``details.client``: the client the row judged (``client=``), so a requirement taken from another
  client's code is not held against it (``sources``: its verdict there is ``differs``);
- a configuration hazard of the run (``Checks.hazards``, ``hazards``) that explains a failure turns
  it into ``unknown``, the hazard and its fix in the row;
- judges are pure (``rows``: the scenario records what they return, ``record``); a judge that raises
  leaves an ``unknown`` row for its requirements with the error as evidence, and the test goes on
  to record its later checks (Jepsen's check-safe).

The test's junit case carries one property per requirement a row judged: its verdict, the
requirement's source ("the PIP says", "the C++ client does", "operators expect") and the findings
that explain a failure.
"""
from __future__ import annotations

import functools
import inspect
import traceback
from collections.abc import Iterable

from ..run import VerdictUnknown, catalog_requirements, record, verdict_of
from . import findings, hazards, sources
from .checks import Checks, UndeclaredCheck
from .rows import NOT_APPLICABLE, Row


class Recorder:
    def __init__(self, certify_run, request, outcome, checks: Checks, *, client: str | None = None):
        self.run, self.test, self.outcome, self.checks = certify_run, request.node.nodeid, outcome, checks
        self.node = request.node
        self.client = client  # the client the scenario's checks judge (sources.CLIENTS), None: not said
        self.hazards = checks.current_hazards()
        self.rows: list[dict] = []

    def __call__(self, check: str, ok: bool | None, evidence: str, *, requirements: list[str] | None = None,
                 **details) -> None:
        """Record ``check`` (a name its protocol declares, which says what it judges); a check
        whose scenario chooses among its declared requirements passes them as ``requirements``."""
        judged = self.checks.requirements(check, requirements)
        verdict, evidence, touching = hazards.apply(self.hazards, check, judged, verdict_of(ok), evidence)
        if touching:
            details["hazard"] = touching
        self._write(check, judged, verdict, evidence, details)

    def not_applicable(self, check: str, reason: str, *, requirements: list[str] | None = None, **details) -> None:
        """Record ``check`` as not applicable: the release lacks what it judges (``reason`` says how
        the release showed it, e.g. the HTTP answer to the feature's endpoint)."""
        judged = self.checks.requirements(check, requirements)
        self._write(check, judged, "not applicable", reason, details, capture=False)

    def record(self, rows: Iterable[Row]) -> list[dict]:
        """Record the rows of a pure judge (``harness.rows``); returns what was written."""
        written = []
        for r in rows:
            if r.raised:
                written.append(self._raised(r))
            elif r.verdict == NOT_APPLICABLE:
                self.not_applicable(r.check, r.evidence, requirements=r.requirements, **r.details)
                written.append(self.rows[-1])
            else:
                self(r.check, r.ok, r.evidence, requirements=r.requirements, **r.details)
                written.append(self.rows[-1])
        return written

    def _raised(self, r: Row) -> dict:
        """A judge raised: ``unknown`` for the requirements it judges, which its protocol must declare."""
        wanted = sorted(set(r.requirements or ()))
        undeclared = sorted(set(wanted) - self.checks.judged)
        if not wanted or undeclared:
            raise UndeclaredCheck(f"judge {r.check!r} names requirement(s) {undeclared or '(none)'} that no check of "
                                  f"{self.checks.area} judges; name those its checks record ({self.checks.where})")
        self._write(r.check, wanted, "unknown", r.evidence, dict(r.details))
        return self.rows[-1]

    # LEGACY: removed once every protocol records rows
    def verdict(self, check: str, fn, /, *args, details: dict | None = None, **kwargs) -> tuple | None:
        """Record ``check`` from a pure judge ``fn(*args, **kwargs)`` returning ``(ok, evidence)`` or
        ``(ok, evidence, figures)`` (figures become details). If the judge raises, ``check`` is
        ``unknown`` with the error as evidence and the test goes on (check-safe, as ``judge``);
        returns what the judge returned, or None."""
        try:
            result = fn(*args, **kwargs)
        except Exception as error:  # noqa: BLE001 - check-safe: a judge's error is its own unknown
            self(check, None, f"{_raised(fn, error)}; unknown in this run, not failed", **(details or {}),
                 raised=type(error).__name__)
            return None
        ok, said, *rest = result
        self(check, ok, said, **(details or {}), **(rest[0] if rest and isinstance(rest[0], dict) else {}))
        return result

    def judge(self, name: str, requirements, fn, /, *args, **kwargs):
        """Run the judge ``fn(*args, **kwargs)``, which records through this recorder. If it raises,
        record ``<name>/raised`` as ``unknown`` for ``requirements`` (the ones it judges) with the
        error as evidence, and return None: a bug in one judge costs its own verdicts only, never
        the rows of the checks after it (a failure it recorded before it raised stands)."""
        wanted = sorted(set(requirements))
        undeclared = sorted(set(wanted) - self.checks.judged)
        if not wanted or undeclared:
            raise UndeclaredCheck(f"judge {name!r} names requirement(s) {undeclared or '(none)'} that no check of "
                                  f"{self.checks.area} judges; name those its checks record ({self.checks.where})")
        try:
            return fn(*args, **kwargs)
        except Exception as error:  # noqa: BLE001 - check-safe: any error of a judge is its own unknown
            said = (f"{_raised(fn, error)}; what it judges is unknown in this run, not failed, and the checks after "
                    "it were still recorded")
            self._write(f"{name}/raised", wanted, "unknown", said,
                        {"raised": type(error).__name__, "traceback": traceback.format_exception(error)[-6:]})
            return None

    def _write(self, check: str, judged: list[str], verdict: str, evidence: str, details: dict, *,
               capture: bool = True) -> None:
        if capture and self.outcome is not None:  # a check made before any traffic (a release's answer) has no capture
            details["capture"] = str(self.outcome.run_dir.relative_to(self.run.out))
        if self.client is not None:
            details["client"] = self.client
        row = record(self.run, check=check, kind="deployment", requirements=judged, verdict=verdict,
                     evidence=evidence, test=self.test, details=details)
        self.rows.append(row)
        self._junit_properties(row)

    def _junit_properties(self, row: dict) -> None:
        """One junit property per requirement: verdict, source and (failing) the findings."""
        properties = getattr(self.node, "user_properties", None)
        if properties is None:
            return
        by_id = {req.id: req for req in catalog_requirements()}
        for rid in row["requirements"]:
            req = by_id[rid]
            verdict, note = sources.verdict_for(req, row)
            value = f"{verdict} ({row['check']}); source: {sources.label(req)}"
            if verdict in ("fail", sources.DIFFERS):
                linked = [f["id"] for f in findings.for_requirement(rid)]
                value += f"; findings: {', '.join(linked) if linked else 'none explains it yet'}"
            if note:
                value += f"; {note}"
            properties.append((rid, value))

    def finish(self) -> None:
        """The test fails on a failed MUST; a failed SHOULD is a recorded deviation (RFC 2119); a
        requirement taken from another client's code is no failure of this one (``sources``)."""
        by_id = {req.id: req for req in catalog_requirements()}
        failed = [f"{r['check']} ({', '.join(r['requirements'])}): {r['evidence']}" for r in self.rows
                  if any(by_id[q].strength == "MUST" and sources.verdict_for(by_id[q], r)[0] == "fail"
                         for q in r["requirements"])]
        unknown = [r["check"] for r in self.rows if r["verdict"] == "unknown"]
        assert not failed, "product defect: " + "\n".join(failed)
        if unknown:
            raise VerdictUnknown(f"not reached: {', '.join(unknown)}")


def _raised(fn, error: Exception) -> str:
    """What a judge that raised did, and where: the evidence of its unknown rows."""
    where = traceback.extract_tb(error.__traceback__)[-1]
    return (f"the judge {getattr(fn, '__qualname__', fn)} raised {type(error).__name__}: {error} "
            f"(at {where.filename.rsplit('/', 1)[-1]}:{where.lineno})")


def check_safe(*requirements: str):
    """Make a judge ``fn(rec, ...)`` check-safe (``Recorder.judge``): if it raises, its
    ``requirements`` are unknown with the error as evidence, under ``<prefix>/<fn name>/raised``
    (``prefix``: the judge's own ``prefix`` argument, when it has one)."""

    def wrap(fn):
        signature = inspect.signature(fn)

        @functools.wraps(fn)
        def safe(rec: Recorder, *args, **kwargs):
            if not isinstance(rec, Recorder):  # a bare recording function (offline tests): nowhere to say it
                return fn(rec, *args, **kwargs)
            prefix = signature.bind_partial(rec, *args, **kwargs).arguments.get("prefix")
            name = f"{prefix}/{fn.__name__}" if prefix else fn.__name__
            return rec.judge(name, requirements, fn, rec, *args, **kwargs)

        return safe

    return wrap
