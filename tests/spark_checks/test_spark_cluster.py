"""``check-capture --master spark://...``: the same job on a real Spark standalone cluster.

A master and one worker are started from the installed pyspark, bound to loopback, and
stopped (process group killed) whatever the outcome; the test then checks that no Spark
daemon JVM is left.
"""
from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pulsar_conformance.errors import EXIT_BAD_INPUT
from pulsar_conformance.spark_checks.classes import CLASSES

from .conftest import truth

pytestmark = [pytest.mark.spark, pytest.mark.slow]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _spark_class() -> Path:
    import pyspark

    return Path(pyspark.__file__).parent / "bin" / "spark-class"


def _start(args: list[str], log: Path) -> subprocess.Popen:
    env = {**os.environ, "SPARK_LOCAL_IP": "127.0.0.1", "SPARK_NO_DAEMONIZE": "1",
           "SPARK_HOME": str(_spark_class().parent.parent)}
    handle = log.open("w")
    return subprocess.Popen([str(_spark_class()), *args], stdout=handle, stderr=subprocess.STDOUT, env=env,
                            start_new_session=True)


def _wait_for(log: Path, text: str, process: subprocess.Popen, timeout: float = 180) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if text in log.read_text(errors="replace"):
            return
        if process.poll() is not None:
            break
        time.sleep(0.5)
    raise AssertionError(f"'{text}' not seen in {log} within {timeout}s:\n{log.read_text(errors='replace')[-3000:]}")


def _stop(process: subprocess.Popen) -> None:
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(30)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(30)


@pytest.fixture
def standalone_cluster(tmp_path):
    port = _free_port()
    master_log, worker_log = tmp_path / "master.log", tmp_path / "worker.log"
    started = []
    try:
        master = _start(["org.apache.spark.deploy.master.Master", "--host", "127.0.0.1", "--port", str(port),
                         "--webui-port", str(_free_port())], master_log)
        started.append(master)
        _wait_for(master_log, "I have been elected leader", master)
        url = f"spark://127.0.0.1:{port}"
        worker = _start(["org.apache.spark.deploy.worker.Worker", url, "--host", "127.0.0.1", "--cores", "2",
                         "--memory", "2g", "--webui-port", str(_free_port()), "--work-dir", str(tmp_path / "work")],
                        worker_log)
        started.append(worker)
        _wait_for(worker_log, "Successfully registered with master", worker)
        yield url
    finally:
        for process in reversed(started):
            _stop(process)
        leaked = subprocess.run(["pgrep", "-f", f"spark://127.0.0.1:{port}|--port {port}"],
                                capture_output=True, text=True).stdout.split()
        assert not leaked, f"Spark daemons still running: {leaked}"


def test_check_capture_on_a_standalone_cluster(standalone_cluster, anomalous):
    result = subprocess.run(
        [sys.executable, "-m", "pulsar_conformance", "check-capture", str(anomalous), "--master", standalone_cluster,
         "--json"],
        capture_output=True, text=True, timeout=900,
    )
    lines = [line for line in result.stdout.splitlines() if line.strip()]
    assert len(lines) == 1, f"stdout: {result.stdout[:2000]!r}\nstderr tail: {result.stderr[-3000:]}"
    verdict = json.loads(lines[0])
    assert result.returncode == 1, result.stderr[-3000:]
    assert {c: verdict["anomalies"][c]["count"] for c in CLASSES} == truth(anomalous)["counts"]


def test_unreachable_master_is_bad_input(clean):
    result = subprocess.run(
        [sys.executable, "-m", "pulsar_conformance", "check-capture", str(clean), "--master",
         f"spark://127.0.0.1:{_free_port()}", "--json"],
        capture_output=True, text=True, timeout=900,
    )
    assert result.returncode == EXIT_BAD_INPUT, result.stderr[-2000:]
    assert "error" in json.loads(result.stdout)
