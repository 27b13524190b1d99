"""What a conformance test needs from the certification run: where to write, which budgets,
which seed, and how to record a verdict.

``certify`` passes these in its request file (fixtures/request_file.py) to the pytest process it
starts; run directly (``pytest conformance``), the tests use the smoke profile and a temporary
directory (or what ``$PULSAR_CONFORMANCE_CERTIFY_OUT``, ``_CERTIFY_PROFILE`` and ``_SEED`` say).
"""
from __future__ import annotations

import json
import os
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path

from pulsar_conformance.fixtures import request_file
from pulsar_conformance.spec import catalog

# "not applicable": the release under test lacks the feature (e.g. namespace-level migration before
# Pulsar 3.2): neither a failure nor a pass, and the reason says what the release answered
VERDICTS = ("pass", "fail", "unknown", "not applicable")
# the variables a direct run may set by hand (under certify the request file says it all)
ENV_OUT = request_file.OUT_ENV
ENV_PROFILE = request_file.PROFILE_ENV
ENV_SEED = request_file.SEED_ENV


class VerdictUnknown(Exception):
    """The check could not reach the state its requirement is about: neither passed nor failed.

    Raised (not asserted) so pytest and Allure report the test as broken, never as passed.
    """


@dataclass
class CertifyRun:
    out: Path
    profile: str
    seed: int

    @classmethod
    def from_env(cls) -> CertifyRun:
        """This process's run: its certify request's, else (run directly) the variables', else a new folder."""
        request = request_file.current()
        out = request.out if request else os.environ.get(ENV_OUT) or tempfile.mkdtemp(prefix="conformance-")
        return cls(out=Path(out), profile=request_file.profile(), seed=request_file.seed())

    def directory(self, *parts: str) -> Path:
        path = self.out.joinpath(*parts)
        path.mkdir(parents=True, exist_ok=True)
        return path


_lock = threading.Lock()


def catalog_requirements() -> tuple:
    """The spec catalog's requirements and the conformance suite's own (assembled in the spec layer)."""
    return catalog.requirements()


def verdict_of(ok: bool | None) -> str:
    """True, False, None (could not decide) as a verdict."""
    return {True: "pass", False: "fail", None: "unknown"}[ok]


def record(run: CertifyRun, *, check: str, kind: str, requirements: list[str], verdict: str,
           evidence: str, test: str, details: dict | None = None, write: bool = True) -> dict:
    """Append one verdict to ``checks.jsonl``: the report's only source of requirement verdicts.

    ``kind`` is ``deployment`` (observed on the clusters under test) or ``model`` (a spec
    checker's result). Recording happens before the test asserts, so a failing check still
    leaves its evidence behind.
    """
    if verdict not in VERDICTS:
        raise ValueError(f"verdict must be one of {VERDICTS}, not {verdict!r}")
    if kind not in ("deployment", "model"):
        raise ValueError(f"kind must be deployment or model, not {kind!r}")
    # a mistyped id would otherwise vanish from the report: its requirement would look "not run"
    known = {req.id for req in catalog_requirements()}
    unknown = sorted(set(requirements) - known)
    if unknown or (kind == "deployment" and not requirements):
        raise ValueError(f"check {check!r} names requirement(s) {unknown or '(none)'} that no catalog has "
                         "(spec/catalog/*.yaml, conformance/catalog/*.yaml); fix the id "
                         "(`pulsar-conformance spec catalog` lists them)")
    row = {"check": check, "kind": kind, "requirements": sorted(requirements), "verdict": verdict,
           "evidence": evidence, "test": test, "details": details or {}}
    if not write:  # the row as it would be recorded (a live search deciding its next step)
        return row
    with _lock, open(run.out / "checks.jsonl", "a") as handle:
        handle.write(json.dumps(row, default=str) + "\n")
    return row
