"""Where a certify run's time went: reports/runner/phases.py measures in the tests' process, certify around
it, reports/runner/timings.py adds it up (summary.json's ``timings``, printed at the end of the run)."""
from __future__ import annotations

import json
import os
import subprocess
import sys

from pulsar_conformance.reports.runner import timings

SUITE = '''
import time
from pulsar_conformance.fixtures import pytest_plugin
from pulsar_conformance.spark_checks.session import TIMES

class FakeDeployment:
    clusters = {"blue": None, "green": None}
    def to_json(self):
        return {"name": "fake", "ready_seconds": 12.5}

def test_spec_models_stand_in():
    time.sleep(0.2)

def test_scenario():
    for hook in pytest_plugin.ON_START:
        hook(FakeDeployment())
    TIMES.starts += 1
    TIMES.start_s += 20.0
    TIMES.checks += 1
    TIMES.check_s += 3.0
'''


def test_the_plugin_times_tests_deployments_and_spark(tmp_path):
    (tmp_path / "suite").mkdir()
    (tmp_path / "suite" / "test_fake.py").write_text(SUITE)
    out = tmp_path / "out"
    out.mkdir()
    env = {**os.environ, "PULSAR_CONFORMANCE_CERTIFY_OUT": str(out)}
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", str(tmp_path / "suite"), "-p", "no:cacheprovider",
                           "-p", "pulsar_conformance.reports.runner.phases"], env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    child = json.loads((out / timings.TIMINGS).read_text())["child"]
    scenario = child["tests"][-1]
    assert scenario["deployments"] == [{"name": "fake", "clusters": ["blue", "green"], "seconds": 12.5}]
    assert scenario["spark_start_s"] == 20.0 and scenario["spark_check_s"] == 3.0
    assert child["spark"]["starts"] == 1 and child["tests"][0]["deployments"] == []
    timings.record_parent(out, before_tests_s=4.0, tests_process_s=child["session_s"] + 2.0)
    figures = timings.breakdown(out)
    assert figures["deployment_start_s"] == 12.5 and figures["deployments"] == 1
    assert figures["spark_start_s"] == 20.0 and figures["spark_check_s"] == 3.0 and figures["before_tests_s"] == 4.0


def _write(out, tests, spark, parent):
    (out / timings.TIMINGS).write_text(json.dumps({"child": {"session_s": 100, "spark": spark, "tests": tests},
                                                   "parent": parent}))


def test_breakdown_separates_deployments_spark_scenarios_and_spec_checks(tmp_path):
    tests = [
        {"test": "conformance/test_spec_models.py::test_spec_check[x]", "spec": True, "setup_s": 0.1, "call_s": 30.0,
         "teardown_s": 0.0, "deployments": []},
        {"test": "conformance/protocols/a/test_a.py::test_one", "spec": False, "setup_s": 40.0, "call_s": 50.0,
         "teardown_s": 5.0, "deployments": [{"name": "d", "clusters": ["x"], "seconds": 35.0}],
         "spark_start_s": 12.0, "spark_check_s": 6.0},
    ]
    _write(tmp_path, tests, {"starts": 1, "start_s": 12.0, "checks": 1, "check_s": 6.0},
           {"before_tests_s": 3.0, "tests_process_s": 140.0})
    f = timings.breakdown(tmp_path)
    assert f["deployment_start_s"] == 35.0 and f["spec_checks_s"] == 30.1 and f["teardown_s"] == 5.0
    # the scenario's own time: setup and call without its deployment start and its Spark time
    assert f["scenarios_s"] == 90.0 - 35.0 - 18.0
    assert f["pytest_overhead_s"] == round(140.0 - 125.1, 1)
    text = timings.text(f, total_s=150, bundle_s=4)
    assert "deployment start 35 s (1)" in text and "Spark start 12 s (1)" in text and "bundle 4 s" in text
    assert "test_a.py::test_one: deployment 35 s, Spark 18 s, scenario 37 s" in text


def test_no_timings_says_so(tmp_path):
    assert timings.breakdown(tmp_path) is None
    assert "no breakdown" in timings.text(None)
