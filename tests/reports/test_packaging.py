"""A non-editable install carries everything the checkout runs with: every module and every data
file (report templates, catalogs, schemas, poms, the Java harness, the Oxia dump tool's Go source),
and a version that says which commit it was built from. Found missing once: the templates and the
conformance catalog, so a pip-installed certify could not write its report; later
fixtures/deploy/native/oxiadump/main.go, so metadata-migration broke from a wheel (issue 34)."""
from __future__ import annotations

import ast
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[2]
FALLBACK = "0.1.dev0"  # pyproject.toml [tool.setuptools_scm] fallback_version


def _areas() -> dict[str, str]:
    """Each packaged folder of the checkout and where it lands in the wheel, read from setup.py's AREAS
    so that a new area is checked without editing this test."""
    tree = ast.parse((ROOT / "setup.py").read_text())
    (areas,) = [ast.literal_eval(node.value) for node in ast.walk(tree) if isinstance(node, ast.Assign)
                and any(getattr(t, "id", None) == "AREAS" for t in node.targets)]
    return {"pulsar_conformance": "pulsar_conformance", **{a: f"pulsar_conformance/{a}" for a in areas}}


def _tracked() -> list[str]:
    return subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()


# result data, not the suite: the release tables and the kept sweep bundles they are generated from were
# 75% of a 10.1 MB wheel (issue 51); pyproject.toml [tool.setuptools.exclude-package-data] keeps them out
RESULT_DATA = ("pulsar_conformance/docs/tables/", "pulsar_conformance/docs/explore/", "pulsar_conformance/docs/observations/")
WHEEL_LIMIT = 5_000_000  # bytes, uncompressed: 2.7 MB without the tables (2026-12-01), 10.1 MB with them


def _expected() -> set[str]:
    """Every tracked file under a packaged folder, whatever its suffix, but result data: a data file added
    tomorrow is expected too, so it cannot be forgotten in package-data."""
    areas, out = _areas(), set()
    for path in _tracked():
        top, _, rest = path.partition("/")
        if top in areas and rest and (ROOT / path).is_file():
            out.add(f"{areas[top]}/{rest}")
    return {p for p in out if not p.startswith(RESULT_DATA)}


def _check_contents(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        size = sum(i.file_size for i in archive.infolist())
        metadata = archive.read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode()
    data = [n for n in names if n.startswith(RESULT_DATA)]
    assert not data, f"result data in the wheel: {data[:5]} ({len(data)} files)"
    assert size < WHEEL_LIMIT, f"the wheel holds {size} bytes uncompressed"
    # SPDX license metadata (PEP 639) and the license text
    assert re.search(r"^License-Expression: Apache-2.0$", metadata, re.M), metadata[:600]
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names)


def _copy_tracked(source: Path) -> None:
    # a copy of the tracked files: a checkout's egg-info (left by an editable install) lists files
    # setuptools would otherwise not find, and would hide a missing package-data rule
    for path in _tracked():
        if (ROOT / path).is_file():
            (source / path).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / path, source / path)


def _wheel(source: Path, dist: Path) -> Path:
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(dist), str(source)],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    (wheel,) = dist.glob("*.whl")
    return wheel


def _metadata_version(wheel: Path) -> str:
    with zipfile.ZipFile(wheel) as archive:
        (name,) = [n for n in archive.namelist() if n.endswith(".dist-info/METADATA")]
        return re.search(r"^Version: (.+)$", archive.read(name).decode(), re.M).group(1)


def test_the_wheel_holds_every_tracked_file_of_the_packaged_folders(tmp_path):
    # built outside git: package-data alone must carry the data files (setuptools-scm's git file
    # finder would add them only in a checkout, not from a source tarball)
    source = tmp_path / "src"
    _copy_tracked(source)
    wheel = _wheel(source, tmp_path / "dist")
    names = set(zipfile.ZipFile(wheel).namelist())
    expected = _expected()
    assert "pulsar_conformance/fixtures/deploy/native/oxiadump/main.go" in expected  # the check sees data files
    missing = sorted(expected - names)
    assert not missing, f"not in the wheel (pyproject.toml [tool.setuptools.package-data] or setup.py): {missing}"
    _check_contents(wheel)
    # and outside git the version says it is unknown instead of posing as a release
    assert _metadata_version(wheel) == FALLBACK


def test_the_version_comes_from_git(tmp_path):
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    source = tmp_path / "src"
    _copy_tracked(source)
    git = ["git", "-C", str(source), "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"]
    for command in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "one"], ["commit", "-q", "--allow-empty", "-m", "two"]):
        subprocess.run([*git, *command], check=True, capture_output=True)
    commit = subprocess.run([*git, "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=True).stdout.strip()
    wheel = _wheel(source, tmp_path / "dist")
    version = _metadata_version(wheel)
    # two commits, no release tag yet; no local part (+g<commit>), which a package index refuses
    assert version == "0.1.dev2", (version, commit)
    assert Version(version).local is None
    # in a checkout setuptools-scm offers every tracked file: the result data must still stay out
    _check_contents(wheel)
    subprocess.run([*git, "tag", "v1.2.3"], check=True, capture_output=True)
    assert _metadata_version(_wheel(source, tmp_path / "dist-tag")) == "1.2.3"


def test_the_cli_reports_the_installed_version(capsys):
    from importlib.metadata import version

    from pulsar_conformance import cli

    with pytest.raises(SystemExit) as done:
        cli.main(["--version"])
    assert done.value.code == 0
    assert capsys.readouterr().out.strip() == f"pulsar-conformance {version('pulsar-conformance')}"


def test_the_build_backend_is_pinned():
    """An unpinned setuptools builds with whatever is newest that day: its majors change what a wheel holds
    and which metadata forms it takes (the TOML-table license stops being accepted after 2027-02-18)."""
    import tomllib

    build = tomllib.loads((ROOT / "pyproject.toml").read_text())
    requires = [Requirement(r) for r in build["build-system"]["requires"]]
    for req in requires:
        bounds = {spec.operator for spec in req.specifier}
        assert "<" in bounds and ">=" in bounds, f"{req}: pin the build requirement to the majors tested"
    setuptools = next(r for r in requires if r.name == "setuptools")
    assert setuptools.specifier.contains("77.0.0") and not setuptools.specifier.contains("76.1.0")  # PEP 639 from 77
    assert isinstance(build["project"]["license"], str)  # SPDX, not { text = ... }
