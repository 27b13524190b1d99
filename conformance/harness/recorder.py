"""Verdicts of a live scenario, per requirement, into the certification run's checks.

``Recorder`` writes one row per check, judging the requirements its protocol declares for it
(``checks.py``) (checks.jsonl, through ``run.record``, which refuses an id
no catalog has) and fails the test only on a failed MUST; a check left unknown makes the test
broken (``VerdictUnknown``), never passed.
"""
from __future__ import annotations

from ..run import VerdictUnknown, catalog_requirements, record, verdict_of
from .checks import Checks


class Recorder:
    def __init__(self, certify_run, request, outcome, checks: Checks):
        self.run, self.test, self.outcome, self.checks = certify_run, request.node.nodeid, outcome, checks
        self.rows: list[dict] = []

    def __call__(self, check: str, ok: bool | None, evidence: str, *, requirements: list[str] | None = None,
                 **details) -> None:
        """Record ``check`` (a name its protocol declares, which says what it judges); a check
        whose scenario chooses among its declared requirements passes them as ``requirements``."""
        judged = self.checks.requirements(check, requirements)
        if self.outcome is not None:  # a check made before any traffic (a release's answer) has no capture
            details["capture"] = str(self.outcome.run_dir.relative_to(self.run.out))
        self.rows.append(record(self.run, check=check, kind="deployment", requirements=judged,
                                verdict=verdict_of(ok), evidence=evidence, test=self.test, details=details))

    def not_applicable(self, check: str, reason: str, *, requirements: list[str] | None = None, **details) -> None:
        """Record ``check`` as not applicable: the release lacks what it judges (``reason`` says how
        the release showed it, e.g. the HTTP answer to the feature's endpoint)."""
        judged = self.checks.requirements(check, requirements)
        self.rows.append(record(self.run, check=check, kind="deployment", requirements=judged,
                                verdict="not applicable", evidence=reason, test=self.test, details=details))

    def finish(self) -> None:
        """The test fails on a failed MUST; a failed SHOULD is a recorded deviation (RFC 2119)."""
        strength = {req.id: req.strength for req in catalog_requirements()}
        failed = [f"{r['check']} ({', '.join(r['requirements'])}): {r['evidence']}" for r in self.rows
                  if r["verdict"] == "fail" and any(strength.get(q) == "MUST" for q in r["requirements"])]
        unknown = [r["check"] for r in self.rows if r["verdict"] == "unknown"]
        assert not failed, "product defect: " + "\n".join(failed)
        if unknown:
            raise VerdictUnknown(f"not reached: {', '.join(unknown)}")
