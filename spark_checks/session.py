"""Starting and stopping a SparkSession that keeps stdout clean, and the process's shared one.

With ``--json`` only one document may reach stdout, but the JVM that pyspark launches
inherits the process's stdout and Spark's launcher prints there. So fd 1 points at stderr
while the JVM starts (the JVM keeps that for its lifetime) and is restored afterwards.

``shared_session``: one session per process, started on first use and stopped at exit (or by
``stop_shared``). A certify run checks one capture per scenario; a session per check paid the
JVM's start and warm-up (13-16 s on 2 cores) every time, to check a few thousand events.
``TIMES`` counts what Spark cost the process (the certify run's time breakdown reads it).

``configure``: where the process's checks run when no master is passed (``certify --spark-master``
sets it in the tests' process): ``local[*]`` by default, or a Spark standalone master whose executors
run elsewhere and call the driver back at ``driver_host`` (the address they reach this machine at;
loopback only works when every worker runs on this machine).
"""
from __future__ import annotations

import atexit
import contextlib
import os
import sys
import threading
import time
from dataclasses import asdict, dataclass

LOCAL = "local[*]"
LOOPBACK = "127.0.0.1"
# Spark's own variables: spark-submit reads the master from $MASTER when no --master is given
# (SparkSubmitArguments.loadEnvironmentArguments), and a driver's address from $SPARK_LOCAL_IP
MASTER_ENV = "MASTER"
DRIVER_HOST_ENV = "SPARK_LOCAL_IP"


@dataclass(frozen=True)
class SparkPlace:
    """Where a check runs: the master URL, and the driver's address its executors call back."""

    master: str = LOCAL
    driver_host: str = LOOPBACK


_place: list[SparkPlace] = [SparkPlace()]


def configure(master: str | None = None, driver_host: str | None = None) -> SparkPlace:
    """Set where this process's checks run when a caller names no master (None: the default).
    A session already started elsewhere is replaced at its next use (``shared_session``)."""
    _place[0] = SparkPlace(master or LOCAL, driver_host or LOOPBACK)
    return _place[0]


def configured() -> SparkPlace:
    return _place[0]


@contextlib.contextmanager
def _stdout_to_stderr():
    sys.stdout.flush()
    saved = os.dup(1)
    os.dup2(2, 1)
    try:
        yield
    finally:
        sys.stdout.flush()
        os.dup2(saved, 1)
        os.close(saved)


@contextlib.contextmanager
def spark_session(master: str | None = None, *, app_name: str = "pulsar-conformance check-capture",
                  shuffle_partitions: int | None = None):
    builder = _builder(master or configured().master, app_name, shuffle_partitions)
    with _stdout_to_stderr():
        spark = builder.getOrCreate()
        spark.sparkContext.setLogLevel("ERROR")
    try:
        with _stdout_to_stderr():
            yield spark
    finally:
        with _stdout_to_stderr():
            spark.stop()


@dataclass
class SparkTimes:
    """What Spark cost this process: session starts and checks, in seconds."""

    starts: int = 0
    start_s: float = 0.0
    checks: int = 0
    check_s: float = 0.0

    def to_json(self) -> dict:
        return {k: round(v, 2) if isinstance(v, float) else v for k, v in asdict(self).items()}


TIMES = SparkTimes()
_shared: dict = {"session": None, "master": None}
_lock = threading.Lock()
_registered: list[bool] = []


def shared_session(master: str | None = None, *, app_name: str = "pulsar-conformance"):
    """The process's SparkSession on ``master``: started on first use, kept for the next check,
    stopped at exit. A session someone else stopped meanwhile (a ``spark_session`` context that
    got this one from getOrCreate) or one on another master is replaced. ``master`` None: the
    configured one (``configure``)."""
    master = master or configured().master
    with _lock:
        session = _shared["session"]
        if session is not None and (_shared["master"] != master or not _alive(session)):
            _stop_locked()
            session = None
        if session is None:
            started = time.perf_counter()
            with _stdout_to_stderr():
                session = _builder(master, app_name, None).getOrCreate()
                session.sparkContext.setLogLevel("ERROR")
            TIMES.starts += 1
            TIMES.start_s += time.perf_counter() - started
            _shared.update(session=session, master=master)
            if not _registered:  # Ctrl-C and normal ends go through here; a killed process's JVM
                # sees its stdin close and exits (pyspark's gateway watches it)
                atexit.register(stop_shared)
                _registered.append(True)
        return session


def stop_shared() -> None:
    """Stop the shared session if one runs (idempotent): at exit, and at the end of a test session."""
    with _lock:
        _stop_locked()


def _stop_locked() -> None:
    session, _shared["session"], _shared["master"] = _shared["session"], None, None
    if session is not None and _alive(session):
        with _stdout_to_stderr():
            session.stop()


def _alive(session) -> bool:
    """Whether ``session`` can still run jobs. The Python side alone does not say: a session stopped
    through another Python handle (a ``spark_session`` context, a test's own fixture) keeps ``_jsc``
    here while the JVM's SparkContext is stopped, and every job then fails "on a stopped SparkContext"."""
    jsc = getattr(session.sparkContext, "_jsc", None)
    if jsc is None:
        return False
    try:
        return not jsc.sc().isStopped()
    except Exception:  # noqa: BLE001 - a gateway that is gone: not alive either
        return False


@contextlib.contextmanager
def quiet_stdout():
    """fd 1 on stderr while a job runs on the shared session (Spark may print at any time)."""
    with _stdout_to_stderr():
        yield


def _builder(master: str, app_name: str, shuffle_partitions: int | None):
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    if master.startswith("local"):
        # Servers listen on loopback only on this machine. bindAddress and host cover the
        # driver's ports; the JVM's own address lookup (the "resolves to a loopback address ...
        # using <eth0 address> instead" warning, and the block manager) reads SPARK_LOCAL_IP.
        os.environ[DRIVER_HOST_ENV] = LOOPBACK
        host = LOOPBACK
    else:
        # a standalone master's executors connect back to the driver: at the configured address (the
        # machine's address they can reach), which the driver also binds
        host = configured().driver_host
        os.environ[DRIVER_HOST_ENV] = host  # the block manager's address too, the one executors fetch from
    from pyspark.sql import SparkSession

    return (
        SparkSession.builder.master(master)
        .appName(app_name)
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.driver.host", host)
        .config("spark.driver.bindAddress", host)
        .config("spark.driver.memory", os.environ.get("PULSAR_CONFORMANCE_SPARK_DRIVER_MEMORY", "4g"))
        # Few, large partitions: the work is a couple of shuffles over narrow rows, and
        # per-task overhead dominates on the small machines this runs on.
        .config("spark.sql.shuffle.partitions", str(shuffle_partitions or _default_partitions(master)))
        .config("spark.sql.adaptive.enabled", "true")
        # Everything is partitioned by the uid hash once; joins on (hash, uid) then reuse it.
        .config("spark.sql.requireAllClusterKeysForCoPartition", "false")
        # The ordering check's windows hold one (subscription, client, producer, key) group at
        # a time; spilling such groups to disk at Spark's default of 4096 rows made that one
        # window cost more than all the rest.
        .config("spark.sql.windowExec.buffer.in.memory.threshold", str(1 << 21))
        .config("spark.sql.windowExec.buffer.spill.threshold", str(1 << 22))
        .config("spark.sql.parquet.enableVectorizedReader", "true")
        .config("spark.executorEnv.PYSPARK_PYTHON", sys.executable)
    )


def _default_partitions(master: str) -> int:
    return max(4, 2 * (os.cpu_count() or 2))
