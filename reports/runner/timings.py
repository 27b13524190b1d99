"""Where a certify run's time went: deployment starts, Spark's start and checks, the scenarios
themselves, the spec checks, teardown, and pytest's own start, from ``timings.json`` (what
reports/runner/phases.py measured in the tests' process, and what certify measured around it).

Printed at the end of the run and kept in summary.json (``timings``): the smoke profile's budget
(docs/certify.md) is checked against these figures, not guessed.
"""
from __future__ import annotations

import json
from pathlib import Path

# written by reports/runner/phases.py in the tests' process ("child") and by certify around it ("parent")
TIMINGS = "timings.json"


def record_parent(out: Path, **figures: float) -> None:
    """certify's own figures (seconds before the tests' process, its wall time) into timings.json."""
    path = out / TIMINGS
    try:
        doc = json.loads(path.read_text()) if path.exists() else {}
    except (OSError, ValueError):
        doc = {}
    doc["parent"] = {**doc.get("parent", {}), **{k: round(v, 2) for k, v in figures.items()}}
    path.write_text(json.dumps(doc, indent=2))


def breakdown(out: Path) -> dict | None:
    """The run's breakdown in seconds, or None when the tests' process left no figures."""
    try:
        doc = json.loads((out / TIMINGS).read_text())
    except (OSError, ValueError):
        return None
    child, parent = doc.get("child") or {}, doc.get("parent") or {}
    tests = [t for t in child.get("tests", []) if isinstance(t, dict)]
    if not child and not parent:
        return None
    spark = child.get("spark") or {}
    deployments = [d for t in tests for d in t.get("deployments", [])]
    deploy_s = sum(d.get("seconds") or 0 for d in deployments)
    scenario = [_scenario_row(t) for t in tests if not t.get("spec")]
    spec_s = sum(t.get("setup_s", 0) + t.get("call_s", 0) for t in tests if t.get("spec"))
    teardown_s = sum(t.get("teardown_s", 0) for t in tests)
    in_tests = sum(t.get("setup_s", 0) + t.get("call_s", 0) + t.get("teardown_s", 0) for t in tests)
    tests_process_s = parent.get("tests_process_s")
    result = {
        "before_tests_s": parent.get("before_tests_s"),
        "tests_process_s": tests_process_s,
        "deployment_start_s": round(deploy_s, 1), "deployments": len(deployments),
        "spark_start_s": round(spark.get("start_s", 0.0), 1), "spark_starts": spark.get("starts", 0),
        "spark_check_s": round(spark.get("check_s", 0.0), 1), "spark_checks": spark.get("checks", 0),
        "scenarios_s": round(sum(r["scenario_s"] for r in scenario), 1),
        "spec_checks_s": round(spec_s, 1),
        "teardown_s": round(teardown_s, 1),
        # interpreter start, imports, collection and the session's end around the tests
        "pytest_overhead_s": round(tests_process_s - in_tests, 1) if tests_process_s is not None else None,
        "per_test": scenario,
    }
    return result


def _scenario_row(test: dict) -> dict:
    total = test.get("setup_s", 0) + test.get("call_s", 0)
    deploy = sum(d.get("seconds") or 0 for d in test.get("deployments", []))
    spark = test.get("spark_start_s", 0) + test.get("spark_check_s", 0)
    return {"test": test["test"].rsplit("/", 1)[-1], "seconds": round(total + test.get("teardown_s", 0), 1),
            "deployment_start_s": round(deploy, 1), "spark_s": round(spark, 1),
            "scenario_s": round(max(0.0, total - deploy - spark), 1), "teardown_s": round(test.get("teardown_s", 0), 1)}


def text(figures: dict | None, *, total_s: float | None = None, bundle_s: float | None = None) -> str:
    """The breakdown as a few lines for the end of a run."""
    if not figures:
        return "time: no breakdown (the tests' process left no timings.json)"
    f = figures
    lines = [f"time{f' {total_s:.0f} s' if total_s is not None else ''}: "
             f"deployment start {f['deployment_start_s']:.0f} s ({f['deployments']}), "
             f"Spark start {f['spark_start_s']:.0f} s ({f['spark_starts']}), "
             f"Spark checks {f['spark_check_s']:.0f} s ({f['spark_checks']}), "
             f"scenarios {f['scenarios_s']:.0f} s, spec checks {f['spec_checks_s']:.0f} s, "
             f"teardown {f['teardown_s']:.0f} s"
             + (f", pytest start and collection {f['pytest_overhead_s']:.0f} s" if f.get("pytest_overhead_s") is not None else "")
             + (f", before the tests {f['before_tests_s']:.0f} s" if f.get("before_tests_s") is not None else "")
             + (f", bundle {bundle_s:.0f} s" if bundle_s is not None else "")]
    for row in f.get("per_test", []):
        lines.append(f"  {row['seconds']:6.1f} s  {row['test']}: deployment {row['deployment_start_s']:.0f} s, "
                     f"Spark {row['spark_s']:.0f} s, scenario {row['scenario_s']:.0f} s, teardown {row['teardown_s']:.0f} s")
    return "\n".join(lines)
