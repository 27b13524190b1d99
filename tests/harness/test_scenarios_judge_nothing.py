"""A run records; judges read only the record (issue 49, point 1): in every protocol package, the modules
that run a scenario (scenario.py, the other modules a test module runs things with, and every package
module they import) import no judge, take no Spark verdict and compute no judge figure. The record step
(record.py) takes Spark's verdict after the scenario, and judge.py computes the figures from the record,
so ``pulsar-conformance judge BUNDLE`` re-judges a saved run with the same functions."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PROTOCOLS = ROOT / "conformance" / "protocols"
# modules a test module runs things with besides scenario.py (where a package has them)
RUNNERS = ("scenario", "existing_data", "cleanup", "unloads", "ttl", "levels", "clients", "credentials", "site",
           "stores", "clusters", "observe")
# what they must not reach: a judge, Spark's check, the step that judges after them (itf_traces: the
# ITF files of the validated traces are written by the judging afterwards)
JUDGES = {"judge", "explore_judge", "spark_checks", "afterwards", "record", "rejudge", "trace", "itf_traces"}
# judging done by a call: Spark's verdict, a trace's validation, a judge's figures
JUDGING_CALLS = {"spark_verdict", "validation", "producer_figures", "subscription_figures", "with_figures",
                 "figures", "figures_of", "registrations", "registered", "validated", "validate_events"}


def run_modules(package: Path) -> list[Path]:
    """The package's runner modules and the package modules they import, transitively."""
    seen, todo = [], [package / f"{name}.py" for name in RUNNERS]
    while todo:
        path = todo.pop()
        if path in seen or not path.is_file():
            continue
        seen.append(path)
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.level == 1:
                names = [node.module] if node.module else [a.name for a in node.names]
                todo += [package / f"{n.split('.')[0]}.py" for n in names]
    return seen


def judging(path: Path) -> list[str]:
    """What ``path`` imports or calls of the judges, as ``line: name``."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            names = {*(node.module or "").split("."), *(a.name for a in node.names)}
            found += [f"{node.lineno}: import {n}" for n in sorted(names & (JUDGES | JUDGING_CALLS))]
        elif isinstance(node, ast.Import):
            found += [f"{node.lineno}: import {a.name}" for a in node.names if set(a.name.split(".")) & JUDGES]
        elif isinstance(node, ast.Call):  # a call, not a field of the same name (an outcome's ``validation``)
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", None)
            if name in JUDGING_CALLS:
                found += [f"{node.lineno}: {name}"]
    return found


PACKAGES = sorted(p for p in PROTOCOLS.iterdir() if (p / "scenario.py").is_file())


def test_every_protocol_package_is_scanned():
    assert {p.name for p in PACKAGES} >= {"client_failover", "cluster_migration", "geo_replication",
                                          "metadata_migration", "policy_sync", "tenant_migration"}


@pytest.mark.parametrize("package", PACKAGES, ids=lambda p: p.name)
def test_the_scenario_modules_judge_nothing(package):
    modules = run_modules(package)
    assert package / "scenario.py" in modules and package / "observe.py" in modules
    found = {p.name: judging(p) for p in modules if judging(p)}
    assert not found, (f"{package.name}'s scenario modules judge (a run records, its judges read the record "
                       f"afterwards: record.py takes Spark's verdict, judge.py the figures): {found}")


def test_the_scan_sees_a_judge_imported_spark_called_and_a_figure_computed(tmp_path):
    """The control: what the scenarios did before issue 49 is found."""
    old = tmp_path / "scenario.py"
    old.write_text("from . import judge, observe\nfrom ...harness import timeline\n"
                   "def run(line):\n    v = timeline.spark_verdict(1, 2, line)\n    return judge.producer_figures(v)\n")
    assert judging(old) == ["1: import judge", "4: spark_verdict", "5: producer_figures"]
    (tmp_path / "observe.py").write_text("from .trace import validation\nx = validation\n")
    (tmp_path / "scenario.py").write_text("from . import observe\n")
    assert sorted(p.name for p in run_modules(tmp_path)) == ["observe.py", "scenario.py"]
    assert judging(tmp_path / "observe.py") == ["1: import trace", "1: import validation"]
