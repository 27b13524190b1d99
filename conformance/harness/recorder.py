"""Verdicts of a live scenario, per requirement, into the certification run's checks.

``Recorder`` writes one row per check (checks.jsonl, through ``run.record``, which refuses an id
no catalog has) and fails the test only on a failed MUST; a check left unknown makes the test
broken (``VerdictUnknown``), never passed.
"""
from __future__ import annotations

from ..run import VerdictUnknown, catalog_requirements, record, verdict_of


class Recorder:
    def __init__(self, certify_run, request, outcome):
        self.run, self.test, self.outcome = certify_run, request.node.nodeid, outcome
        self.rows: list[dict] = []

    def __call__(self, check: str, requirements: list[str], ok: bool | None, evidence: str, **details) -> None:
        details["capture"] = str(self.outcome.run_dir.relative_to(self.run.out))
        self.rows.append(record(self.run, check=check, kind="deployment", requirements=requirements,
                                verdict=verdict_of(ok), evidence=evidence, test=self.test, details=details))

    def finish(self) -> None:
        """The test fails on a failed MUST; a failed SHOULD is a recorded deviation (RFC 2119)."""
        strength = {req.id: req.strength for req in catalog_requirements()}
        failed = [f"{r['check']} ({', '.join(r['requirements'])}): {r['evidence']}" for r in self.rows
                  if r["verdict"] == "fail" and any(strength.get(q) == "MUST" for q in r["requirements"])]
        unknown = [r["check"] for r in self.rows if r["verdict"] == "unknown"]
        assert not failed, "product defect: " + "\n".join(failed)
        if unknown:
            raise VerdictUnknown(f"not reached: {', '.join(unknown)}")
