"""One Spark session per process (issue 34): check_capture reuses it, it is stopped at the end of
a test session and at exit, and a session someone else stopped is replaced, never reused dead."""
from __future__ import annotations

import json
import subprocess
import sys
import time

import pytest

from pulsar_conformance.spark_checks import session
from pulsar_conformance.spark_checks.check import check_capture

pytestmark = [pytest.mark.spark, pytest.mark.slow]


def test_checks_share_one_session_and_stop_shared_ends_it(anomalous, clean):
    session.stop_shared()
    before = session.TIMES.starts
    first = check_capture(anomalous, engine="spark")
    spark = session.shared_session()
    second = check_capture(clean, engine="spark")
    assert session.TIMES.starts == before + 1, "a second check started a second session"
    assert session.shared_session() is spark and first["valid"] is False and second["valid"] is True
    session.stop_shared()
    assert not session._alive(spark)
    session.stop_shared()  # idempotent


def test_a_session_stopped_elsewhere_is_replaced(clean):
    spark = session.shared_session()
    spark.stop()  # e.g. a spark_session() context that got this one from getOrCreate
    assert check_capture(clean, engine="spark")["valid"] is True
    assert session.shared_session() is not spark and session._alive(session.shared_session())
    session.stop_shared()


CHILD = """
import json, sys
from pulsar_conformance.spark_checks.session import shared_session
spark = shared_session('local[1]')
print(json.dumps({"jvm": spark.sparkContext._gateway.proc.pid}), flush=True)
"""


def test_the_jvm_ends_with_the_process():
    """atexit stops the shared session: no JVM left behind by a process that forgot to stop it."""
    done = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    pid = json.loads(done.stdout.strip().splitlines()[-1])["jvm"]
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and _alive(pid):
        time.sleep(0.5)
    assert not _alive(pid), f"the Spark JVM {pid} outlived its process"


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().split()[2] != "Z"
    except FileNotFoundError:
        return False
