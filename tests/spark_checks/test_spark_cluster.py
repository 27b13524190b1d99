"""``check-capture --master spark://...``: the same job on a real Spark standalone cluster.

A master and one worker are started from the installed pyspark as separate processes
(tests/support/spark_standalone.py), bound to loopback, and stopped whatever the outcome; no Spark
daemon JVM may be left.
"""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from pulsar_conformance.errors import EXIT_BAD_INPUT
from pulsar_conformance.spark_checks.classes import CLASSES
from tests.support.spark_standalone import free_port as _free_port
from tests.support.spark_standalone import standalone

from .conftest import truth

pytestmark = [pytest.mark.spark, pytest.mark.slow]


@pytest.fixture
def standalone_cluster(tmp_path):
    with standalone(tmp_path) as (url, master_log):
        yield url, master_log


def test_check_capture_on_a_standalone_cluster(standalone_cluster, anomalous):
    url, master_log = standalone_cluster
    # the driver's address said explicitly, as a machine whose workers run elsewhere must say it
    result = subprocess.run(
        [sys.executable, "-m", "pulsar_conformance", "check-capture", str(anomalous), "--master", url,
         "--driver-host", "127.0.0.1", "--json"],
        capture_output=True, text=True, timeout=900,
    )
    lines = [line for line in result.stdout.splitlines() if line.strip()]
    assert len(lines) == 1, f"stdout: {result.stdout[:2000]!r}\nstderr tail: {result.stderr[-3000:]}"
    verdict = json.loads(lines[0])
    assert result.returncode == 1, result.stderr[-3000:]
    assert {c: verdict["anomalies"][c]["count"] for c in CLASSES} == truth(anomalous)["counts"]
    assert "Registered app pulsar-conformance" in master_log.read_text(errors="replace")  # it ran there


def test_unreachable_master_is_bad_input(clean):
    result = subprocess.run(
        [sys.executable, "-m", "pulsar_conformance", "check-capture", str(clean), "--master",
         f"spark://127.0.0.1:{_free_port()}", "--json"],
        capture_output=True, text=True, timeout=900,
    )
    assert result.returncode == EXIT_BAD_INPUT, result.stderr[-2000:]
    assert "error" in json.loads(result.stdout)
