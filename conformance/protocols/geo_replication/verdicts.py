"""The old import path of the geo-replication judge, kept for tests/reports/test_verdicts.py (not
this package's to edit) until it imports judge.py: ``judge(run_dir, verdict, outage, failures,
markers)`` as the rows ``run.record`` takes. Delete it once nothing imports it."""
from __future__ import annotations

from pathlib import Path

from ...run import verdict_of
from . import judge as judging
from . import observe
from .checks import CHECKS
from .outcome import Outage, Outcome


def judge(run_dir: Path, verdict: dict, outage: dict, failures: list, markers: list) -> list[dict]:
    out = Outcome(Path(run_dir), verdict, Outage(**outage), list(failures), list(markers), observe.deliveries(run_dir))
    return [{"check": r.check, "kind": "deployment", "requirements": CHECKS.requirements(r.check),
             "verdict": verdict_of(r.ok), "evidence": r.evidence,
             "details": {"capture": f"captures/{Path(run_dir).name}", **r.details}} for r in judging.judge(out)]
