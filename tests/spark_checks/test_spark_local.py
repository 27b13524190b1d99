"""The Spark engine in local mode: the same exact counts and examples as the reference."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from pulsar_conformance.spark_checks import engine_duckdb
from pulsar_conformance.spark_checks.capture_input import open_capture
from pulsar_conformance.spark_checks.classes import CLASSES
from pulsar_conformance.spark_checks.engine_spark import run_checks

from .conftest import truth

pytestmark = [pytest.mark.spark, pytest.mark.slow]


def test_exact_counts_and_same_examples_as_duckdb(spark, anomalous):
    capture = open_capture(anomalous)
    got = run_checks(spark, capture)
    assert got["counts"] == truth(anomalous)["counts"]
    reference = engine_duckdb.run_checks(capture)
    assert got["examples"] == reference["examples"]


def test_clean_capture_has_no_anomaly(spark, clean):
    got = run_checks(spark, open_capture(clean))
    assert got["counts"] == {c: 0 for c in CLASSES}
    assert got["sends"] > 0


def test_cli_prints_one_json_document_and_exits_1(anomalous):
    # A subprocess, as a user runs it: Spark's JVM must not write to stdout.
    result = subprocess.run(
        [sys.executable, "-m", "pulsar_conformance", "check-capture", str(anomalous), "--json"],
        capture_output=True, text=True, timeout=600,
    )
    lines = [line for line in result.stdout.splitlines() if line.strip()]
    assert len(lines) == 1, f"stdout: {result.stdout[:2000]!r}\nstderr tail: {result.stderr[-2000:]}"
    verdict = json.loads(lines[0])
    assert result.returncode == 1, result.stderr[-2000:]
    assert verdict["valid"] is False and verdict["engine"] == "spark"
    assert {c: verdict["anomalies"][c]["count"] for c in CLASSES} == truth(anomalous)["counts"]
    # Local mode binds to loopback: Spark no longer picks the address of an outside interface.
    assert "resolves to a loopback address" not in result.stderr

