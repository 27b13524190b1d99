"""Verdicts of a live scenario, per requirement, into the certification run's checks.

``Recorder`` writes one row per check, judging the requirements its protocol declares for it
(``checks.py``) (checks.jsonl, through ``run.record``, which refuses an id
no catalog has) and fails the test only on a failed MUST; a check left unknown makes the test
broken (``VerdictUnknown``), never passed.

Each row also carries what the report needs to be fair to the product (issue 28):

- ``details.client``: the client the row judged (``client=``), so a requirement taken from another
  client's code is not held against it (``sources``: its verdict there is ``differs``);
- a configuration hazard of the run (``Checks.hazards``, ``hazards``) that explains a failure turns
  it into ``unknown``, the hazard and its fix in the row; a hazard a judge observed in its scenario
  (``details.hazard`` of the row) is kept beside them;
- an observation (``Check.observes``: the check compares the run with something its requirements do
  not ask for) gets ``details.observation``, and its failure reads ``differs`` for them (``sources``);
- judges are pure (``rows``: the scenario records what they return, ``record``); a judge that raises
  leaves an ``unknown`` row for its requirements with the error as evidence, and the test goes on
  to record its later checks (Jepsen's check-safe).

The test's junit case carries one property per requirement a row judged: its verdict, the
requirement's source ("the PIP says", "the C++ client does", "operators expect") and the findings
that explain a failure.
"""
from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from ..run import VerdictUnknown, catalog_requirements, record, verdict_of
from . import findings, hazards, itf_traces, sources
from .checks import Checks, UndeclaredCheck
from .rows import NOT_APPLICABLE, Row


class Recorder:
    def __init__(self, certify_run, request, outcome, checks: Checks, *, client: str | None = None,
                 dry: bool = False):
        """``dry``: every rule applied, nothing written (the rows a live search decides its next step on;
        what it records comes later, from a recorder that writes)."""
        self.run, self.test, self.outcome, self.checks = certify_run, request.node.nodeid, outcome, checks
        self.dry = dry
        self.node = request.node
        self.client = client  # the client the scenario's checks judge (sources.CLIENTS), None: not said
        self.hazards = checks.current_hazards()
        self.rows: list[dict] = []
        self._trace_names: set[str] = set()  # the ITF files written in the capture so far (itf_traces)

    def __call__(self, check: str, ok: bool | None, evidence: str, *, requirements: list[str] | None = None,
                 **details) -> None:
        """Record ``check`` (a name its protocol declares, which says what it judges); a check
        whose scenario chooses among its declared requirements passes them as ``requirements``."""
        judged = self.checks.requirements(check, requirements)
        observes = self.checks.observes(check)
        if observes:  # evidence beside its requirements, whose verdict its failure is not (sources)
            details["observation"] = observes
        verdict, evidence, touching = hazards.apply(self.hazards, check, judged, verdict_of(ok), evidence)
        # a judge may name a hazard its scenario is configured with (``hazards.Hazard.observed``): kept,
        # beside those of the run's configuration
        mine = list(details.get("hazard") or ())
        if touching or mine:
            details["hazard"] = mine + [h for h in touching if h not in mine]
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
                self(r.check, r.ok, r.evidence, requirements=r.requirements, **self._traces(r))
                written.append(self.rows[-1])
        return written

    def _traces(self, r: Row) -> dict:
        """``r``'s details, naming the ITF files of the spec behaviours its check validated, which are
        written here (itf_traces): by the judging, never by the scenario; not by a dry recorder."""
        run_dir = getattr(self.outcome, "run_dir", None)
        if not r.traces or self.dry or self.run is None or run_dir is None:
            return r.details
        try:
            paths = itf_traces.save(r.traces, check=r.check, capture_dir=Path(run_dir), bundle=Path(self.run.out),
                                    taken=self._trace_names)
        except Exception as error:  # noqa: BLE001 - a file the suite failed to write changes no verdict
            return {**r.details, "itf_error": f"{type(error).__name__}: {error}"}
        left = len(r.traces) - len(paths)  # past itf_traces' caps: said, not silently dropped
        return {**r.details, **({"itf": paths} if paths else {}), **({"itf_not_saved": left} if left else {})}

    def _raised(self, r: Row) -> dict:
        """A judge raised: ``unknown`` for the requirements it judges, which its protocol must declare."""
        wanted = sorted(set(r.requirements or ()))
        undeclared = sorted(set(wanted) - self.checks.judged)
        if not wanted or undeclared:
            raise UndeclaredCheck(f"judge {r.check!r} names requirement(s) {undeclared or '(none)'} that no check of "
                                  f"{self.checks.area} judges; name those its checks record ({self.checks.where})")
        self._write(r.check, wanted, "unknown", r.evidence, dict(r.details))
        return self.rows[-1]

    def _write(self, check: str, judged: list[str], verdict: str, evidence: str, details: dict, *,
               capture: bool = True) -> None:
        if capture and self.outcome is not None:  # a check made before any traffic (a release's answer) has no capture
            details["capture"] = str(self.outcome.run_dir.relative_to(self.run.out))
        if self.client is not None:
            details["client"] = self.client
        row = record(self.run, check=check, kind="deployment", requirements=judged, verdict=verdict,
                     evidence=evidence, test=self.test, details=details, write=not self.dry)
        self.rows.append(row)
        if not self.dry:
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
