"""The layers import downwards only: the requirement catalog is assembled in the spec layer (the
recorder in conformance and the verdicts in reports both take it from there), and no area of the
package imports one that imports it back, at module level or inside a function (tests aside)."""
from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import yaml

from pulsar_conformance.conformance.run import catalog_requirements
from pulsar_conformance.spec import catalog

ROOT = Path(__file__).resolve().parents[2]
AREAS = ("spec", "fixtures", "conformance", "spark_checks", "reports")


def test_the_catalog_is_the_specs_and_the_suites_requirements_assembled_in_the_spec_layer():
    ids = [r.id for r in catalog.requirements()]
    suite = [raw["id"] for path in sorted((ROOT / "conformance" / "catalog").glob("*.yaml"))
             for raw in yaml.safe_load(path.read_text()).get("requirements", [])]
    assert suite and ids == [r.id for r in catalog.load().requirements] + suite
    assert catalog.SUITE.resolve() == (ROOT / "conformance" / "catalog").resolve()
    assert catalog_requirements() is catalog.requirements()  # the recorder's ids are the report's


def test_reports_read_the_catalog_without_the_conformance_runner():
    code = ("import sys; from pulsar_conformance.reports.verdicts import load_requirements; "
            "assert load_requirements(); "
            "print(sorted(m for m in sys.modules if m.startswith('pulsar_conformance.conformance.run')))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "[]"


def test_the_spec_catalog_imports_nothing_above_the_spec_layer():
    code = ("import sys; from pulsar_conformance.spec import catalog; catalog.requirements(); "
            "print(sorted(m for m in sys.modules if m.startswith('pulsar_conformance.')"
            " and m.split('.')[1] in ('conformance', 'reports', 'fixtures', 'spark_checks')))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "[]"


def _area_imports() -> dict[str, dict[str, set[str]]]:
    """area -> area it imports -> the files that do (every import, function-local ones included)."""
    found: dict[str, dict[str, set[str]]] = {}
    for area in AREAS:
        for path in (ROOT / area).rglob("*.py"):
            if path.name.startswith("test_") or path.name == "conftest.py":
                continue
            package = ["pulsar_conformance", area, *path.relative_to(ROOT / area).parent.parts]
            for node in ast.walk(ast.parse(path.read_text())):
                if isinstance(node, ast.ImportFrom):
                    name = (".".join(package[: len(package) - node.level + 1] + ([node.module] if node.module else []))
                            if node.level else node.module or "")
                elif isinstance(node, ast.Import):
                    name = node.names[0].name
                else:
                    continue
                parts = name.split(".")
                if parts[0] == "pulsar_conformance" and len(parts) > 1 and parts[1] in AREAS and parts[1] != area:
                    found.setdefault(area, {}).setdefault(parts[1], set()).add(str(path.relative_to(ROOT)))
    return found


def test_no_two_areas_import_each_other():
    imports = _area_imports()
    both = [f"{a} <-> {b}: {sorted(imports[a][b])} / {sorted(imports[b][a])}"
            for a in imports for b in imports[a] if a < b and a in imports.get(b, {})]
    assert both == []


def test_tests_never_import_tests():
    """A helper two test modules share lives in a module of its own (e.g. client_failover/record.py,
    tests/fixtures/cli_helpers.py): importing a test module collects its tests twice over."""
    offenders = []
    for path in [*(ROOT / "tests").rglob("*.py"), *(ROOT / "conformance").rglob("test_*.py")]:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                names = [node.module or ""] + ([a.name for a in node.names] if not node.module else [])
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            else:
                continue
            if any(part.startswith("test_") for name in names for part in name.split(".")):
                offenders.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert offenders == []
