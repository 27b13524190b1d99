"""Scenario phases as they happen, for a person watching a certify run.

pytest holds a test's output until it ends, so "deployment ready", "fault injected", "checking
with Spark" would appear minutes late, all at once. Loaded into certify's pytest child, this
plugin sends ``output.progress`` past the capture, each line stamped with the test's elapsed time.
"""
from __future__ import annotations

import sys
import time

import pytest

from pulsar_conformance import output

_current = {"name": "", "started": time.monotonic()}


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


def pytest_unconfigure(config) -> None:
    output.set_progress_sink(None)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item) -> None:
    _current.update(name=item.name, started=time.monotonic())
