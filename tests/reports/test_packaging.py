"""A non-editable install carries everything the checkout runs with: every module and every data
file (report templates, catalogs, schemas, poms). Found missing once: the templates and the
conformance catalog, so a pip-installed certify could not write its report."""
from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
AREAS = {"pulsar_conformance": "pulsar_conformance", "spec": "pulsar_conformance/spec",
         "fixtures": "pulsar_conformance/fixtures", "conformance": "pulsar_conformance/conformance",
         "spark_checks": "pulsar_conformance/spark_checks", "reports": "pulsar_conformance/reports"}
SHIPPED = {".py", ".yaml", ".j2", ".json", ".xml", ".properties", ".css", ".html"}


def _tracked() -> list[str]:
    return subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()


def _expected() -> set[str]:
    out = set()
    for path in _tracked():
        top, _, rest = path.partition("/")
        if top in AREAS and rest and Path(path).suffix in SHIPPED:
            out.add(f"{AREAS[top]}/{rest}")
    return out


def test_the_wheel_holds_every_module_and_data_file(tmp_path):
    # built from a copy of the tracked files: a checkout's egg-info (left by an editable install)
    # lists files setuptools would otherwise not find, and would hide a missing package-data rule
    source = tmp_path / "src"
    for path in _tracked():
        if (ROOT / path).is_file():
            (source / path).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / path, source / path)
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(tmp_path / "dist"), str(source)],
                   check=True, capture_output=True, timeout=300)
    (wheel,) = (tmp_path / "dist").glob("*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    missing = sorted(_expected() - names)
    assert not missing, f"not in the wheel (pyproject.toml [tool.setuptools.package-data] or setup.py): {missing}"
