"""Scenario phases as they happen, for a person watching a certify run, and where the run's time went.

pytest holds a test's output until it ends, so "deployment ready", "fault injected", "checking
with Spark" would appear minutes late, all at once. Loaded into certify's pytest child, this
plugin sends ``output.progress`` past the capture, each line stamped with the test's elapsed time.

It also times each test's setup, call and teardown, the deployments started in it (their own
``ready_seconds``) and the Spark time spent in it (spark_checks/session.TIMES), and writes them to
``timings.json`` in the bundle at the session's end: reports/runner/timings.py makes the run's breakdown
(deployment start, Spark start, Spark checks, scenarios, spec checks, teardown) from it.
"""
from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import pytest

from pulsar_conformance import output
from pulsar_conformance.fixtures import request_file
from pulsar_conformance.spark_checks.session import TIMES

from .timings import TIMINGS

_current = {"name": "", "started": time.monotonic()}
_run: dict = {"started": time.monotonic(), "tests": [], "deployments": []}


@pytest.hookimpl(trylast=True)
def pytest_configure(config) -> None:
    capture = config.pluginmanager.getplugin("capturemanager")

    def sink(message: str) -> None:
        line = f"  [{time.monotonic() - _current['started']:6.1f} s] {_current['name']}: {message}\n"
        if capture is None:
            sys.stderr.write(line)
            return
        with capture.global_and_fixture_disabled():
            sys.stderr.write(line)
            sys.stderr.flush()

    output.set_progress_sink(sink)
    _run["started"] = time.monotonic()
    try:
        from pulsar_conformance.fixtures import pytest_plugin
    except ImportError:  # a core-only install runs no deployment: nothing to time
        return
    if _deployment_started not in pytest_plugin.ON_START:
        pytest_plugin.ON_START.append(_deployment_started)


def pytest_unconfigure(config) -> None:
    output.set_progress_sink(None)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item) -> None:
    _current.update(name=item.name, started=time.monotonic())


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    spark_before = (TIMES.start_s, TIMES.check_s)
    entry = {"test": item.nodeid, "spec": "test_spec_models" in item.nodeid, "setup_s": 0.0, "call_s": 0.0,
             "teardown_s": 0.0, "deployments": []}
    _run["tests"].append(entry)
    yield
    entry["spark_start_s"] = round(TIMES.start_s - spark_before[0], 2)
    entry["spark_check_s"] = round(TIMES.check_s - spark_before[1], 2)


def pytest_runtest_logreport(report) -> None:
    if _run["tests"] and _run["tests"][-1]["test"] == report.nodeid:
        _run["tests"][-1][f"{report.when}_s"] = round(report.duration, 2)


def _deployment_started(deployment) -> None:
    """pytest_plugin.ON_START: a deployment the factory started, with the seconds its start took."""
    try:
        doc = deployment.to_json()
    except Exception:  # noqa: BLE001 - a figure, never a reason to break the test
        doc = {}
    seconds = doc.get("ready_seconds") if isinstance(doc, dict) else None
    row = {"name": doc.get("name") if isinstance(doc, dict) else None,
           "clusters": sorted(getattr(deployment, "clusters", {}) or {}),
           "seconds": seconds}
    if _run["tests"]:
        _run["tests"][-1]["deployments"].append(row)


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session, exitstatus) -> None:
    out = request_file.out_dir()
    if not out or not Path(out).is_dir():
        return
    doc = {"session_s": round(time.monotonic() - _run["started"], 2), "spark": TIMES.to_json(),
           "tests": _run["tests"]}
    path = Path(out) / TIMINGS
    previous = json.loads(path.read_text()) if path.exists() else {}
    path.write_text(json.dumps({**previous, "child": doc}, indent=2))
