"""``bench spark``: the same checks timed in Spark, DuckDB and Python, against a scan floor.

All engines run in one process on the same synthetic captures, one after another, so the
ratios are comparable even on a machine shared with other work; absolute figures are not.
Spark's JVM start and first-query warm-up are timed apart and excluded from the per-size
figures (a long-lived checker pays them once). Every engine's counts are compared with
the ground truth: a fast wrong answer is reported as wrong, not as fast.
"""
from __future__ import annotations

import json
import os
import shutil
import tempfile
import time
from pathlib import Path

import pyarrow.dataset as ds

from pulsar_conformance.errors import EXIT_FAIL, EXIT_PASS, UsageError
from pulsar_conformance.files import check_output_path
from pulsar_conformance.output import emit, progress

from .capture_input import NEEDED, open_capture
from .options import check_events, check_master
from .session import spark_session
from .synth import GROUND_TRUTH, generate

ENGINES = ("spark", "duckdb", "python", "scan")
GOAL_EVENTS_PER_S = 2_000_000
GOAL_VS_DUCKDB = 1.0  # issue 18: keep Spark at or below DuckDB's time
GOAL_DOUBLING = 2.0


def run_bench(args) -> int:
    sizes = _sizes(args.events)
    engines = [e.strip() for e in args.engines.split(",") if e.strip()]
    unknown = sorted(set(engines) - set(ENGINES))
    if unknown:
        raise UsageError(f"unknown engine(s) {unknown}", f"choose from {', '.join(ENGINES)}")
    # Every path and the master are checked before a capture is written or a JVM started: a typo
    # used to cost the captures (and for --plot the whole bench) before its error.
    workdir = check_output_path(args.workdir, kind="dir", option="--workdir") if args.workdir else None
    plot = check_output_path(args.plot, kind="file", option="--plot") if args.plot else None
    check_master(args.master, reach="spark" in engines)
    owned = workdir is None  # our temporary folder: removed at the end, whatever the outcome
    workdir = workdir or Path(tempfile.mkdtemp(prefix="bench-spark-"))
    try:
        return _run(args, sizes, engines, workdir, plot)
    finally:
        if owned:
            shutil.rmtree(workdir, ignore_errors=True)


def _run(args, sizes: list[int], engines: list[str], workdir: Path, plot: Path | None) -> int:
    captures = {n: _capture(workdir, n, args.seed) for n in sizes}
    results: list[dict] = []
    spark_ctx = _SparkRunner(args.master) if "spark" in engines else None
    try:
        if spark_ctx:
            spark_ctx.warm_up(captures[sizes[0]][0])
        for n in sizes:
            capture, truth = captures[n]
            for engine in engines:
                if engine == "python" and n > args.python_max:
                    progress(f"[{n:,}] python: skipped (above --python-max {args.python_max:,})")
                    continue
                progress(f"[{n:,}] {engine} ...")
                seconds, counts = _time(engine, capture, spark_ctx)
                correct = None if counts is None else counts == truth["counts"]
                # The machine is shared: each figure carries the 1-minute load average it ran under.
                results.append({"events": capture.rows, "size": n, "engine": engine, "seconds": round(seconds, 3),
                                "events_per_s": round(capture.rows / seconds), "correct": correct,
                                "load_avg": round(os.getloadavg()[0], 2)})
                progress(f"[{n:,}] {engine}: {seconds:.2f}s, {capture.rows / seconds:,.0f} events/s"
                         + ("" if correct is None else f", counts {'match' if correct else 'DIFFER FROM'} ground truth"))
    finally:
        if spark_ctx:
            spark_ctx.close()
    document = _summary(results, sizes, spark_ctx)
    if plot:
        _plot(results, plot)
        document["plot"] = args.plot
    emit(args, document, lambda: _text(document))
    return EXIT_PASS if all(r["correct"] is not False for r in results) else EXIT_FAIL


def _sizes(text: str) -> list[int]:
    try:
        sizes = sorted({int(part.replace("_", "")) for part in text.split(",") if part.strip()})
    except ValueError:
        raise UsageError(f"--events {text!r} is not a comma-separated list of integers", "e.g. --events 1000000,10000000") from None
    if not sizes or sizes[0] < 20_000:
        raise UsageError("--events sizes must be at least 20000", "the ground truth needs room for its injections")
    check_events(sizes[-1])
    return sizes


def _capture(workdir: Path, n: int, seed: int):
    run_dir = workdir / f"synth-{n}-seed{seed}"
    truth_path = run_dir / GROUND_TRUTH
    truth = json.loads(truth_path.read_text()) if truth_path.is_file() else None
    if not truth or truth.get("seed") != seed or truth.get("messages") is None:
        progress(f"generating a synthetic capture of {n:,} events in {run_dir}")
        truth = generate(run_dir, events=n, seed=seed)
    return open_capture(run_dir), truth


class _SparkRunner:
    def __init__(self, master: str):
        started = time.perf_counter()
        self._context = spark_session(master)
        self.spark = self._context.__enter__()
        self.startup_s = time.perf_counter() - started
        self.warmup_s = None

    def warm_up(self, capture) -> None:
        from .engine_spark import run_checks

        started = time.perf_counter()
        run_checks(self.spark, capture)
        self.warmup_s = time.perf_counter() - started

    def run(self, capture) -> dict:
        from .engine_spark import run_checks

        return run_checks(self.spark, capture)

    def close(self) -> None:
        self._context.__exit__(None, None, None)


def _time(engine: str, capture, spark_ctx):
    started = time.perf_counter()
    if engine == "spark":
        counts = spark_ctx.run(capture)["counts"]
    elif engine == "duckdb":
        from .engine_duckdb import run_checks

        counts = run_checks(capture)["counts"]
    elif engine == "python":
        from .engine_python import run_checks

        counts = run_checks(capture)["counts"]
    else:  # the floor: read just the needed columns, nothing else
        ds.dataset(list(capture.files), format="parquet").to_table(columns=list(NEEDED))
        counts = None
    return time.perf_counter() - started, counts


def _summary(results: list[dict], sizes: list[int], spark_ctx) -> dict:
    by = {(r["size"], r["engine"]): r for r in results}
    for r in results:
        for other in ("duckdb", "scan"):
            base = by.get((r["size"], other))
            if base and r["engine"] != other:
                r[f"x_{other}"] = round(r["seconds"] / base["seconds"], 2)
    scaling = {}
    for engine in ENGINES:
        steps = {}
        for small, large in zip(sizes, sizes[1:], strict=False):
            if (small, engine) in by and (large, engine) in by:
                steps[f"{large}/{small}"] = {
                    "size_ratio": round(large / small, 2),
                    "time_ratio": round(by[(large, engine)]["seconds"] / by[(small, engine)]["seconds"], 2),
                }
        if steps:
            scaling[engine] = steps
    largest = sizes[-1]
    spark = by.get((largest, "spark"))
    goals = {}
    if spark:
        goals["spark_events_per_s_at_largest"] = {"goal": GOAL_EVENTS_PER_S, "measured": spark["events_per_s"],
                                                   "met": spark["events_per_s"] >= GOAL_EVENTS_PER_S}
        if "x_duckdb" in spark:
            goals["spark_vs_duckdb_at_largest"] = {"goal": GOAL_VS_DUCKDB, "measured": spark["x_duckdb"],
                                                   "met": spark["x_duckdb"] <= GOAL_VS_DUCKDB}
        doubling = [v for k, v in scaling.get("spark", {}).items() if abs(v["size_ratio"] - 2) < 0.01]
        if doubling:
            goals["spark_doubling_cost"] = {"goal": GOAL_DOUBLING, "measured": doubling[-1]["time_ratio"],
                                            "met": doubling[-1]["time_ratio"] <= GOAL_DOUBLING}
    return {
        "machine": {"cpus": os.cpu_count(), "load_avg_at_end": [round(x, 2) for x in os.getloadavg()]},
        "spark_startup_s": round(spark_ctx.startup_s, 2) if spark_ctx else None,
        "spark_warmup_s": round(spark_ctx.warmup_s, 2) if spark_ctx and spark_ctx.warmup_s else None,
        "results": results,
        "scaling": scaling,
        "goals": goals,
    }


def _text(document: dict) -> str:
    lines = [f"{'events':>12} {'engine':<8} {'seconds':>9} {'events/s':>12} {'x duckdb':>9} {'x scan':>8} {'load':>5}  counts"]
    for r in document["results"]:
        correct = {True: "ok", False: "WRONG", None: "-"}[r["correct"]]
        lines.append(f"{r['events']:>12,} {r['engine']:<8} {r['seconds']:>9.2f} {r['events_per_s']:>12,} "
                     f"{r.get('x_duckdb', ''):>9} {r.get('x_scan', ''):>8} {r.get('load_avg', ''):>5}  {correct}")
    for engine, steps in document["scaling"].items():
        for step, v in steps.items():
            lines.append(f"scaling {engine:<7} {step}: size x{v['size_ratio']}, time x{v['time_ratio']}")
    for name, goal in document["goals"].items():
        lines.append(f"goal {name}: {goal['measured']} (goal {goal['goal']}) {'met' if goal['met'] else 'NOT met'}")
    lines.append(f"spark start {document['spark_startup_s']}s, warm-up {document['spark_warmup_s']}s (excluded); "
                 f"cpus {document['machine']['cpus']}, load {document['machine']['load_avg_at_end']}")
    return "\n".join(lines)


def _plot(results: list[dict], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4))
    for engine in ENGINES:
        points = sorted((r["events"], r["events_per_s"]) for r in results if r["engine"] == engine)
        if points:
            ax.plot([p[0] for p in points], [p[1] for p in points], marker="o", label=engine)
    ax.axhline(GOAL_EVENTS_PER_S, linestyle="--", color="grey", label="goal (Spark)")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("events in the capture")
    ax.set_ylabel("events per second")
    ax.set_title("check-capture throughput by engine (same machine, same run)")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)  # its folder exists: checked before the bench ran
    plt.close(fig)
