"""Subcommands of spark_checks: ``check-capture``, ``bench synth``, ``bench spark``."""
from __future__ import annotations

import os

from pulsar_conformance.errors import EXIT_FAIL, EXIT_PASS, EXIT_UNKNOWN
from pulsar_conformance.files import check_output_path
from pulsar_conformance.output import emit

from .options import check_driver_host, check_events, check_master
from .session import DRIVER_HOST_ENV, configure
from .verdict import verdict_text


def register(commands) -> None:
    check = commands.add(
        "check-capture", _check_capture,
        "check a capture run directory for the anomalies of docs/spark-checks.md (exit 0 valid, 1 invalid, 2 unknown; "
        "64 a capture that cannot be checked, named with the fix: no manifest, no Parquet, a missing or mistyped "
        "column, a --master nobody answers on)",
    )
    check.add_argument("run_dir", metavar="RUN_DIR", help="directory holding manifest.json and events/*.parquet")
    check.add_argument("--master", default="local[*]",
                       help="Spark master URL: local[*] (default) or spark://HOST:PORT of a standalone cluster")
    check.add_argument("--driver-host", default=None, metavar="ADDRESS",
                       help="with a spark:// master: this machine's address the workers call the driver back at "
                            "(default $SPARK_LOCAL_IP, else 127.0.0.1: workers on this machine only)")
    check.add_argument("--engine", choices=("spark", "duckdb", "python"), default="spark",
                       help="spark (default, the supported checker); duckdb and python give the same verdict and "
                            "exist for benchmarks and cross-checks")

    synth = commands.add("synth", _synth, "write a synthetic capture with a known number of every anomaly class",
                         bench=True)
    synth.add_argument("--events", type=_positive, required=True, help="about how many events (rows) to write")
    synth.add_argument("--seed", type=int, default=1, help="random seed (same seed, same capture)")
    synth.add_argument("--out", required=True, help="run directory to write (events/, manifest.json, ground_truth.json)")
    synth.add_argument("--per-class", type=_count, default=None,
                       help="anomalies injected per class (default: 5, or events/100000 up to 1000)")
    synth.add_argument("--clean", action="store_true", help="inject no anomaly (legitimate redeliveries remain)")

    bench = commands.add("spark", _bench_spark,
                         "time the checks in Spark, DuckDB and Python against a pyarrow scan floor", bench=True)
    bench.add_argument("--events", default="1000000,10000000,20000000",
                       help="comma-separated capture sizes (default 1M,10M,20M)")
    bench.add_argument("--seed", type=int, default=1)
    bench.add_argument("--workdir", default=None, help="where the synthetic captures go (default: a temporary directory)")
    bench.add_argument("--engines", default="spark,duckdb,python,scan",
                       help="which to time (default all four); python is skipped above --python-max events")
    bench.add_argument("--python-max", type=int, default=10_000_000,
                       help="largest capture the pure-Python engine is timed on (its memory grows with the pairs)")
    bench.add_argument("--master", default="local[*]")
    bench.add_argument("--plot", default=None, help="write a PNG of events/s per engine and size here")


# argparse type checkers: argparse turns their ValueError into an error of the option (exit 64)
def _positive(text: str) -> int:
    value = int(text.replace("_", ""))
    if value <= 0:
        raise ValueError(text)
    return value


def _count(text: str) -> int:
    """0 or more: numpy refused a negative count with a ValueError traceback, after the folder was made."""
    value = int(text.replace("_", ""))
    if value < 0:
        raise ValueError(text)
    return value


_positive.__name__ = "number (an integer, 1 or more)"
_count.__name__ = "count (an integer, 0 or more)"


def _check_capture(args) -> int:
    from .check import check_capture

    # before configure: an empty or malformed --master must be refused, not replaced by the default
    check_master(args.master, reach=False)
    if args.driver_host is not None:
        host = check_driver_host(args.driver_host)
    elif os.environ.get(DRIVER_HOST_ENV):
        host = check_driver_host(os.environ[DRIVER_HOST_ENV], option=f"${DRIVER_HOST_ENV}")
    else:
        host = None
    configure(master=args.master, driver_host=host)
    document = check_capture(args.run_dir, engine=args.engine, master=args.master)
    emit(args, document, lambda: verdict_text(document))
    return {True: EXIT_PASS, False: EXIT_FAIL, None: EXIT_UNKNOWN}[document["valid"]]


def _synth(args) -> int:
    from .synth import generate

    check_events(args.events)
    check_output_path(args.out, kind="dir", option="--out")
    truth = generate(args.out, events=args.events, seed=args.seed, per_class=args.per_class, clean=args.clean)
    document = {"out": args.out, **{k: truth[k] for k in ("events", "messages", "seed", "clean", "counts")}}
    emit(args, document, lambda: f"wrote {truth['events']:,} events to {args.out}; injected {truth['counts']}")
    return EXIT_PASS


def _bench_spark(args) -> int:
    from .bench import run_bench

    return run_bench(args)
