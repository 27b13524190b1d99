"""Starting and stopping a SparkSession that keeps stdout clean.

With ``--json`` only one document may reach stdout, but the JVM that pyspark launches
inherits the process's stdout and Spark's launcher prints there. So fd 1 points at stderr
while the JVM starts (the JVM keeps that for its lifetime) and is restored afterwards.
"""
from __future__ import annotations

import contextlib
import os
import sys

LOCAL = "local[*]"
LOOPBACK = "127.0.0.1"


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
def spark_session(master: str = LOCAL, *, app_name: str = "pulsar-conformance check-capture",
                  shuffle_partitions: int | None = None):
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    if master.startswith("local"):
        # Servers listen on loopback only on this machine. bindAddress and host cover the
        # driver's ports; the JVM's own address lookup (the "resolves to a loopback address ...
        # using <eth0 address> instead" warning, and the block manager) reads SPARK_LOCAL_IP.
        os.environ["SPARK_LOCAL_IP"] = LOOPBACK
    from pyspark.sql import SparkSession

    builder = (
        SparkSession.builder.master(master)
        .appName(app_name)
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.driver.host", LOOPBACK)
        .config("spark.driver.bindAddress", LOOPBACK)
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
    with _stdout_to_stderr():
        spark = builder.getOrCreate()
        spark.sparkContext.setLogLevel("ERROR")
    try:
        with _stdout_to_stderr():
            yield spark
    finally:
        with _stdout_to_stderr():
            spark.stop()


def _default_partitions(master: str) -> int:
    return max(4, 2 * (os.cpu_count() or 2))
