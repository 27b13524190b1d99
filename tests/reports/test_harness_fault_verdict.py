"""A run is FAIL only for a requirement the recorder judged failed ("product defect: ..."): pytest
counts any exception a test raises as a failure, and a harness fault (the 4.0.x Java consumer that
never subscribed on a classpath mixing jackson releases raised RuntimeError) or a suite defect is no
accusation against the release. Those tests are broken and the run unknown."""
from __future__ import annotations

import subprocess
import sys

from pulsar_conformance.reports.bundle.junit import read_junit
from pulsar_conformance.reports.bundle.verdicts import run_verdict

ROW = {"id": "TM-R01", "strength": "MUST", "verdict": "pass"}
BODIES = {
    "harness_fault": "raise RuntimeError('the Java consumer on B did not drain to its end (exit 5)')",
    "suite_defect": "assert False, 'suite defect: spec x behaved unlike its documented expectations'",
    "product_defect": "assert False, 'product defect: tenant-migration/x/nothing-lost (TM-R01): 3 lost'",
}


def _run(tmp_path, *names: str) -> dict:
    (tmp_path / "test_scenarios.py").write_text("".join(f"def test_{n}():\n    {BODIES[n]}\n\n" for n in names))
    junit = tmp_path / "junit.xml"
    subprocess.run([sys.executable, "-m", "pytest", "-q", str(tmp_path), "-p", "no:cacheprovider",
                    f"--junitxml={junit}"], cwd=tmp_path, check=False, capture_output=True)
    return read_junit(junit)


def test_a_harness_fault_or_a_suite_defect_leaves_the_run_unknown_not_failed(tmp_path):
    tests = _run(tmp_path, "harness_fault", "suite_defect")
    assert (tests["failed"], tests["errors"]) == (0, 2), tests
    verdict, reasons = run_verdict([ROW], tests, 1, declared=["TM-R01"])
    assert verdict == "unknown" and any("2 test(s) broken" in r for r in reasons), reasons


def test_control_a_product_defect_fails_the_run(tmp_path):
    tests = _run(tmp_path, "product_defect", "harness_fault")
    assert (tests["failed"], tests["errors"]) == (1, 1), tests
    assert run_verdict([ROW], tests, 1, declared=["TM-R01"])[0] == "fail"
