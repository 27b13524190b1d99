"""A non-editable install carries everything the checkout runs with: every module and every data
file (report templates, catalogs, schemas, poms). Found missing once: the templates and the
conformance catalog, so a pip-installed certify could not write its report."""
from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
AREAS = {"pulsar_conformance": "pulsar_conformance", "spec": "pulsar_conformance/spec",
         "fixtures": "pulsar_conformance/fixtures", "conformance": "pulsar_conformance/conformance",
         "spark_checks": "pulsar_conformance/spark_checks", "reports": "pulsar_conformance/reports"}
SHIPPED = {".py", ".yaml", ".j2", ".json", ".xml", ".properties", ".css", ".html"}


def _expected() -> set[str]:
    tracked = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    out = set()
    for path in tracked:
        top, _, rest = path.partition("/")
        if top in AREAS and rest and Path(path).suffix in SHIPPED:
            out.add(f"{AREAS[top]}/{rest}")
    return out


def test_the_wheel_holds_every_module_and_data_file(tmp_path):
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(tmp_path), str(ROOT)],
                   check=True, capture_output=True, timeout=300)
    (wheel,) = tmp_path.glob("*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    missing = sorted(_expected() - names)
    assert not missing, f"not in the wheel (pyproject.toml [tool.setuptools.package-data] or setup.py): {missing}"
