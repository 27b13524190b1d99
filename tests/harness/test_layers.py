"""The layers import downwards only: the requirement catalog is assembled in the spec layer (the
recorder in conformance and the verdicts in reports both take it from there), and no area of the
package imports one that imports it back, at module level or inside a function (tests aside); inside
reports, the runner sits above the view and the bundle, the view above the bundle (reports/__init__.py)."""
from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest
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
    code = ("import sys; from pulsar_conformance.reports.bundle.verdicts import load_requirements; "
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


def _imports(path: Path, package: list[str]) -> list[tuple[int, str, bool]]:
    """Each import of ``path`` (a module of ``package``) as (line, absolute module name, at module level)."""
    tree = ast.parse(path.read_text())
    top = {id(node) for node in tree.body}
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            base = (".".join(package[: len(package) - node.level + 1] + ([node.module] if node.module else []))
                    if node.level else node.module or "")
            names = [base] if node.module else [f"{base}.{a.name}" for a in node.names]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        else:
            continue
        out += [(node.lineno, name, id(node) in top) for name in names]
    return out


def _package(path: Path) -> list[str]:
    return ["pulsar_conformance", *path.relative_to(ROOT).parent.parts]


def _area_imports() -> dict[str, dict[str, set[str]]]:
    """area -> area it imports -> the files that do (every import, function-local ones included, test modules
    and conftest files of the area included: a test module is code of its area too)."""
    found: dict[str, dict[str, set[str]]] = {}
    for area in AREAS:
        for path in (ROOT / area).rglob("*.py"):
            for _line, name, _top in _imports(path, _package(path)):
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


def _wrong_way(files, allowed) -> list[str]:
    """``file:line name`` of each import in ``files`` whose module ``allowed(path, name)`` refuses."""
    return [f"{path.relative_to(ROOT)}:{line} {name}" for path in files
            for line, name, _top in _imports(path, _package(path)) if not allowed(path, name)]


PROTOCOLS = ROOT / "conformance" / "protocols"
HARNESS = ROOT / "conformance" / "harness"


def test_the_harness_imports_no_protocol_package():
    """The shared machinery (the Java client program included: harness/java_harness.py) serves every protocol;
    a harness module that imported one protocol's package made it part of that protocol."""
    found = _wrong_way(HARNESS.rglob("*.py"), lambda _p, name: not name.startswith("pulsar_conformance.conformance.protocols"))
    assert found == []


def test_no_protocol_package_imports_another():
    """What two protocols share is the harness's; tests and conftest files of a package included."""
    def allowed(path: Path, name: str) -> bool:
        mine = path.relative_to(PROTOCOLS).parts[0]
        prefix = "pulsar_conformance.conformance.protocols."
        return not name.startswith(prefix) or name[len(prefix):].split(".")[0] in (mine, "")

    assert _wrong_way(PROTOCOLS.rglob("*.py"), allowed) == []


BASE = ("errors", "files", "output", "redact", "wait", "interrupts", "extras", "debian", "invocation")


def test_the_root_packages_base_modules_import_no_area():
    """pulsar_conformance's own modules below the areas (errors, files, output, ...) import none of them; the
    entry points (cli, setup_cli, completion, scaffold) sit above and may."""
    base = [ROOT / "pulsar_conformance" / f"{name}.py" for name in BASE]
    assert all(p.is_file() for p in base), [p for p in base if not p.is_file()]
    found = _wrong_way(base, lambda _p, name: not (name.split(".")[:2] and len(name.split(".")) > 1
                                                    and name.split(".")[0] == "pulsar_conformance"
                                                    and name.split(".")[1] in AREAS))
    assert found == []


def test_the_descriptors_reach_the_areas_only_lazily_with_the_reason():
    """The protocol descriptors (pulsar_conformance/protocols/) sit below the areas: spec, fixtures and reports
    derive from them. A descriptor's check hook may load the suite's code when it runs (a function-local import
    marked ``# lazy:``), never at import time, which would make every area import the suite."""
    found = []
    for path in (ROOT / "pulsar_conformance" / "protocols").glob("*.py"):
        lines = path.read_text().splitlines()
        for line, name, top in _imports(path, _package(path)):
            parts = name.split(".")
            if len(parts) > 1 and parts[0] == "pulsar_conformance" and parts[1] in AREAS:
                marked = any("# lazy:" in text for text in lines[max(0, line - 4): line])
                if top or not marked:
                    found.append(f"{path.relative_to(ROOT)}:{line} {name}")
    assert found == []


def test_the_scan_sees_a_wrong_way_import(tmp_path, monkeypatch):
    """The control: the imports this issue found (the harness importing the Java client from client_failover,
    tenant migration importing client_failover's java_release) are caught."""
    harness = tmp_path / "conformance" / "harness"
    protocol = tmp_path / "conformance" / "protocols" / "tenant_migration"
    harness.mkdir(parents=True)
    protocol.mkdir(parents=True)
    (harness / "java_consumer.py").write_text("from ..protocols.client_failover.java_client import harness_command\n")
    (protocol / "scenario.py").write_text("from ..client_failover.java_release import wanted_version\n"
                                          "from . import judge\nfrom ...harness import traffic\n")
    monkeypatch.setattr(__import__(__name__), "ROOT", tmp_path, raising=False)
    import sys

    module = sys.modules[__name__]
    monkeypatch.setattr(module, "ROOT", tmp_path)
    monkeypatch.setattr(module, "HARNESS", harness)
    monkeypatch.setattr(module, "PROTOCOLS", tmp_path / "conformance" / "protocols")
    with pytest.raises(AssertionError):
        test_the_harness_imports_no_protocol_package()
    with pytest.raises(AssertionError):
        test_no_protocol_package_imports_another()


REPORTS = ROOT / "reports"
# reports' layers (reports/__init__.py) -> the layers each may import besides itself: the bundle (what a bundle on
# disk is, its verdicts) none, the view (what renders a bundle) the bundle, the runner (certify, explore, judge) both
REPORT_LAYERS = {"bundle": (), "view": ("bundle",), "runner": ("bundle", "view")}


def _reports_wrong_way() -> list[str]:
    """``file:line name`` of each import in reports/ from a layer to one it may not import (function-local
    imports included: a lazy import the wrong way is still the wrong way)."""
    prefix = "pulsar_conformance.reports."

    def allowed(path: Path, name: str) -> bool:
        mine = path.relative_to(REPORTS).parts[0]
        theirs = name[len(prefix):].split(".")[0] if name.startswith(prefix) else mine
        return theirs in (mine, *REPORT_LAYERS[mine])

    return _wrong_way([p for layer in REPORT_LAYERS for p in sorted((REPORTS / layer).rglob("*.py"))], allowed)


def test_reports_is_its_three_layers():
    """Every module of reports/ sits in one of the layers, so the rule below sees it: none beside them."""
    assert sorted(p.name for p in REPORTS.glob("*.py")) == ["__init__.py"]
    assert sorted(p.name for p in REPORTS.iterdir() if p.is_dir() and p.name != "__pycache__") == sorted(REPORT_LAYERS)


def test_the_bundle_imports_neither_runner_nor_view_and_the_view_not_the_runner():
    found = _reports_wrong_way()
    assert found == [], ("move the piece to the layer it belongs to (reports/__init__.py says which is which), "
                         f"never a lazy import the wrong way: {found}")


def test_the_reports_scan_sees_a_wrong_way_import(tmp_path, monkeypatch):
    """The control: a bundle module importing the runner (absolute and relative, inside a function too) and a view
    module importing the runner are caught; the runner importing both, and the view the bundle, are not."""
    for layer in REPORT_LAYERS:
        (tmp_path / "reports" / layer).mkdir(parents=True)
    (tmp_path / "reports" / "bundle" / "verdicts.py").write_text(
        "from . import archive\nfrom ..runner.certify import exit_code\n"
        "def f():\n    from pulsar_conformance.reports.view import plots\n")
    (tmp_path / "reports" / "view" / "page.py").write_text(
        "from ..bundle import readable\nfrom pulsar_conformance.reports.runner import request\n")
    (tmp_path / "reports" / "runner" / "build.py").write_text("from ..bundle import contents\nfrom ..view import page\n")
    module = sys.modules[__name__]
    monkeypatch.setattr(module, "ROOT", tmp_path)
    monkeypatch.setattr(module, "REPORTS", tmp_path / "reports")
    assert _reports_wrong_way() == ["reports/bundle/verdicts.py:2 pulsar_conformance.reports.runner.certify",
                                    "reports/bundle/verdicts.py:4 pulsar_conformance.reports.view",
                                    "reports/view/page.py:2 pulsar_conformance.reports.runner"]
    with pytest.raises(AssertionError):
        test_the_bundle_imports_neither_runner_nor_view_and_the_view_not_the_runner()
