"""A scenario stopped at its time limit has no verdict: the run is unknown, not failed, not passed."""
from __future__ import annotations

import subprocess
import sys

from pulsar_conformance.reports.bundle.junit import read_junit
from pulsar_conformance.reports.bundle.verdicts import run_verdict

ROW = {"id": "PIP188-R01", "strength": "MUST", "verdict": "pass"}


def _run(tmp_path, body: str) -> dict:
    (tmp_path / "test_scenario.py").write_text(f"import time\n\ndef test_scenario():\n    {body}\n")
    junit = tmp_path / "junit.xml"
    subprocess.run([sys.executable, "-m", "pytest", "-q", str(tmp_path), "-p", "no:cacheprovider",
                    "--timeout=1", "--timeout-method=signal", f"--junitxml={junit}"], cwd=tmp_path, check=False)
    return read_junit(junit)


def test_a_timed_out_scenario_makes_the_run_unknown_with_where_it_was_stuck(tmp_path):
    tests = _run(tmp_path, "time.sleep(30)  # stands for a call that never returns")
    assert tests["timed_out"] == 1 and tests["failed"] == 0, tests
    assert "from pytest-timeout" in tests["cases"][0]["message"]
    verdict, reasons = run_verdict([ROW], tests, 1, declared=["PIP188-R01"])
    assert verdict == "unknown" and any("time limit" in r for r in reasons), reasons


def test_control_a_scenario_that_finishes_in_time_is_judged(tmp_path):
    tests = _run(tmp_path, "assert True")
    assert tests["timed_out"] == 0 and tests["passed"] == 1, tests
    assert run_verdict([ROW], tests, 0, declared=["PIP188-R01"])[0] == "pass"
