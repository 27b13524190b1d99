"""``check-capture``: judge a capture run directory with one engine, return the verdict."""
from __future__ import annotations

from pulsar_conformance.errors import UsageError

from .capture_input import open_capture
from .verdict import build_verdict

ENGINES = ("spark", "duckdb", "python")


def check_capture(run_dir, *, engine: str = "spark", master: str = "local[*]") -> dict:
    capture = open_capture(run_dir)
    if engine == "spark":
        _check_master_reachable(master)
        from .engine_spark import run_checks as spark_checks
        from .session import spark_session

        try:
            with spark_session(master) as spark:
                parts = spark_checks(spark, capture)
        except UsageError:
            raise
        except Exception as error:  # noqa: BLE001 - py4j and Spark raise many kinds
            first_line = (str(error).strip().splitlines() or [type(error).__name__])[0][:400]
            raise UsageError(
                f"the Spark job could not run on {master}: {first_line}",
                "check that Java 17 is the default java (or JAVA_HOME), and that a --master URL points at a "
                "running Spark standalone master; Spark's own log is on stderr",
            ) from None
        parts["events"] = capture.rows
    elif engine == "duckdb":
        from .engine_duckdb import run_checks as duckdb_checks

        parts = duckdb_checks(capture)
    elif engine == "python":
        from .engine_python import run_checks as python_checks

        parts = python_checks(capture)
    else:
        raise UsageError(f"unknown engine {engine!r}", f"use one of {', '.join(ENGINES)}")
    return build_verdict(manifest=capture.manifest, events=parts["events"], sends=parts["sends"],
                         counts=parts["counts"], examples=parts["examples"], engine=engine)


def _check_master_reachable(master: str) -> None:
    """Spark retries an absent master for about a minute before failing; a TCP probe says so at once."""
    import socket

    if not master.startswith("spark://"):
        return
    for address in master[len("spark://"):].split(","):
        host, _, port = address.rpartition(":")
        try:
            with socket.create_connection((host, int(port)), timeout=5):
                return
        except (OSError, ValueError):
            continue
    raise UsageError(
        f"no Spark master answers at {master}",
        "start one (spark-class org.apache.spark.deploy.master.Master --host 127.0.0.1 --port 7077) "
        "or leave out --master to run in local mode",
    )
