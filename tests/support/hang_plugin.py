"""A pytest plugin that makes a certify child hang the way a stuck native client call does.

Loaded into certify's pytest child through PYTEST_ADDOPTS by tests/reports/test_interrupt.py:
once the first conformance test has its deployment, the main thread blocks SIGINT and SIGTERM
and sleeps in libc's pause(), so no Python signal handler can ever run, as when
``pulsar.Client.close()`` sat in C++ for 12 minutes. Never used outside that test.
"""
from __future__ import annotations

import ctypes
import signal
import sys

import pytest


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_call(item):
    if "pulsar_deployment" not in item.fixturenames:
        return
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
    # pytest captures the test phase's stderr; the line must reach the watching test now
    capture = item.config.pluginmanager.getplugin("capturemanager")
    with capture.global_and_fixture_disabled():
        print(f"hang-plugin: {item.nodeid} now blocks in a native call", file=sys.stderr, flush=True)
    ctypes.CDLL(None).pause()
