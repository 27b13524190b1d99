"""``check-capture``: judge a capture run directory with one engine, return the verdict.

Spark runs on the process's shared session (session.shared_session): a certify run checks one
capture per scenario and pays the JVM's start once, not once per scenario."""
from __future__ import annotations

import time

from pulsar_conformance.errors import UsageError
from pulsar_conformance.redact import redact_url

from .capture_input import open_capture
from .engine_python import run_checks as python_checks
from .options import check_master
from .session import TIMES, configured, quiet_stdout, shared_session
from .verdict import build_verdict

ENGINES = ("spark", "duckdb", "python")


def check_capture(run_dir, *, engine: str = "spark", master: str | None = None) -> dict:
    """The verdict on ``run_dir``'s capture; ``master`` None: where the process is configured to run Spark
    (session.configure: ``certify --spark-master``), local[*] by default."""
    # None is "not named"; an empty --master is a bad value, not the default
    master = configured().master if master is None else master
    check_master(master, reach=False)  # a typo in the option is reported before the capture is read
    capture = open_capture(run_dir)
    if engine == "spark":
        check_master(master)
        from .engine_spark import run_checks as spark_checks

        try:
            spark = shared_session(master)
            started = time.perf_counter()
            try:
                with quiet_stdout():
                    parts = spark_checks(spark, capture)
            finally:
                TIMES.checks += 1
                TIMES.check_s += time.perf_counter() - started
        except UsageError:
            raise
        except Exception as error:  # noqa: BLE001 - py4j and Spark raise many kinds
            # Spark's message may quote the master: masked there too
            first_line = (str(error).strip().splitlines() or [type(error).__name__])[0].replace(
                master, redact_url(master))[:400]
            raise UsageError(
                f"the Spark job could not run on {redact_url(master)}: {first_line}",
                "check that Java 17 is the default java (or JAVA_HOME), and that a --master URL points at a "
                "running Spark standalone master; Spark's own log is on stderr",
            ) from None
        parts["events"] = capture.rows
    elif engine == "duckdb":
        from .engine_duckdb import run_checks as duckdb_checks

        parts = duckdb_checks(capture)
    elif engine == "python":
        parts = python_checks(capture)
    else:
        raise UsageError(f"unknown engine {engine!r}", f"use one of {', '.join(ENGINES)}")
    return build_verdict(manifest=capture.manifest, events=parts["events"], sends=parts["sends"],
                         counts=parts["counts"], examples=parts["examples"], engine=engine)

