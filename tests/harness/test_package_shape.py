"""Every protocol package has the same files for the same roles (issue 30), and its judge is pure.

The packages are the ones the protocol descriptors name (pulsar_conformance/protocols/: a
descriptor's ``checks`` lives in its package), not a list kept here. Each holds:

- ``outcome.py``: the protocol's one outcome type (``Outcome``), saved and loaded by harness/outcome.py;
- ``scenario.py``: drives a deployment and returns that outcome;
- ``observe.py``: reads the clusters into the outcome;
- ``judge.py``: pure functions from the outcome to verdict rows (harness/rows.py): it imports
  nothing that reaches a cluster or records (checked here on what importing it really loads);
- ``checks.py``: the checks declared once, tied to the catalog;
- ``trace.py``: the projection of the outcome onto the protocol's spec.

Any other module of a package (a client, a TLS mode table, a bench) is named in the package's
docstring with its role, so the docstring stays a true map of the package.
"""
from __future__ import annotations

import ast
import dataclasses
import importlib
import inspect
import subprocess
import sys

import pytest

from pulsar_conformance.protocols import PROTOCOLS

from .packages import PACKAGES, PREFIX, ROOT

ROLES = ("__init__", "outcome", "scenario", "observe", "judge", "checks", "trace")
# what a judge may not load, directly or through what it imports: a cluster's client or admin API,
# a network client, or the recorder (a judge returns rows; the scenario records them)
REACHES = ("pulsar_conformance.fixtures.deploy", "pulsar", "requests", "urllib.request", "urllib3", "http.client",
           "kazoo", "docker", "subprocess", "pulsar_conformance.conformance.run",
           "pulsar_conformance.conformance.harness.recorder", "pulsar_conformance.conformance.harness.traffic")


def test_the_packages_come_from_the_descriptors():
    assert len(PACKAGES) == len(PROTOCOLS) >= 6


@pytest.mark.parametrize("package", PACKAGES)
def test_every_package_has_the_role_files(package):
    folder = ROOT / "conformance" / "protocols" / package
    missing = [f"{role}.py" for role in ROLES if not (folder / f"{role}.py").exists()]
    assert not missing, f"conformance/protocols/{package} lacks {missing}: every protocol package has {ROLES}"


@pytest.mark.parametrize("package", PACKAGES)
def test_the_package_docstring_names_every_module(package):
    folder = ROOT / "conformance" / "protocols" / package
    doc = ast.get_docstring(ast.parse((folder / "__init__.py").read_text())) or ""
    unnamed = [p.name for p in sorted(folder.glob("*.py"))
               if p.stem != "__init__" and p.stem not in doc and p.name not in doc]
    assert not unnamed, f"conformance/protocols/{package}/__init__.py does not say what {unnamed} are for"


@pytest.mark.parametrize("package", PACKAGES)
def test_the_outcome_is_one_dataclass(package):
    module = importlib.import_module(f"{PREFIX}{package}.outcome")
    assert dataclasses.is_dataclass(getattr(module, "Outcome", None)), f"{package}/outcome.py defines no Outcome dataclass"


def _loaded_by(module: str) -> list[str]:
    code = f"import sys, {module}; print('\\n'.join(sorted(sys.modules)))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout.split()


@pytest.mark.parametrize("package", PACKAGES)
def test_the_judge_reaches_no_cluster_and_records_nothing(package):
    assert (ROOT / "conformance" / "protocols" / package / "judge.py").exists(), f"{package} has no judge.py"
    loaded = _loaded_by(f"{PREFIX}{package}.judge")
    reached = sorted({r for r in REACHES for m in loaded if m == r or m.startswith(r + ".")})
    assert not reached, f"{package}/judge.py loads {reached}: a judge is a pure function of the outcome"


@pytest.mark.parametrize("package", PACKAGES)
def test_a_judges_requirements_are_its_protocols(package):
    judge = importlib.import_module(f"{PREFIX}{package}.judge")
    checks = importlib.import_module(f"{PREFIX}{package}.checks").CHECKS
    for name, fn in vars(judge).items():
        if not inspect.isfunction(fn):
            continue
        extra = set(getattr(fn, "requirements", ())) - checks.judged
        assert not extra, f"{package}.judge.{name} names {sorted(extra)}, which no check of {checks.area} judges"


def test_the_harness_docstring_names_every_module():
    """conformance/harness/__init__.py once listed 4 of its 9 modules (issue 30)."""
    folder = ROOT / "conformance" / "harness"
    doc = ast.get_docstring(ast.parse((folder / "__init__.py").read_text())) or ""
    unnamed = [p.name for p in sorted(folder.glob("*.py")) if p.stem != "__init__" and f"``{p.stem}``" not in doc]
    assert not unnamed, f"conformance/harness/__init__.py does not say what {unnamed} are for"
