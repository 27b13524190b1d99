"""A command needs the extras it declares and says so (issue 51, point 2): on a core install
(`pip install pulsar-conformance`, no extras) `certify`, `plan`, `up`, `status`, `check-capture` and
the rest exited 70 on `No module named 'requests'`, calling it a defect of the suite. Now a command
whose extra is not installed exits 64 before anything starts with `pip install
'pulsar-conformance[EXTRA]'`; a module of an extra missing at run time is the same bad input, never a
crash; and `results`, `verify` and `compare`, which only read a bundle, run on the core."""
from __future__ import annotations

import json
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from pulsar_conformance import cli, extras
from pulsar_conformance.completion import tree
from pulsar_conformance.errors import EXIT_BAD_INPUT

ROOT = Path(__file__).resolve().parents[2]

# every module of an extra, blocked as on a core install (requirements/core.txt is z3, hypothesis, yaml,
# jsonschema, packaging)
BLOCKED = ("pulsar", "_pulsar", "fastavro", "requests", "kazoo", "psutil", "pyarrow", "testcontainers", "docker",
           "cryptography", "jinja2", "allure", "allure_pytest", "pyspark", "duckdb", "numpy", "matplotlib",
           "pytest", "_pytest", "pexpect")

CORE_ONLY = r'''
import importlib.abc, sys
BLOCKED = set(sys.argv[1].split(","))
class Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name.split(".")[0] in BLOCKED:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
for name in list(sys.modules):
    if name.split(".")[0] in BLOCKED:
        del sys.modules[name]
sys.meta_path.insert(0, Block())
from pulsar_conformance.cli import main
sys.exit(main(sys.argv[2:]))
'''


def _core_only(*argv: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    """The CLI with every extra's modules unimportable; the installed metadata still lists them, so this is
    the run-time path (a module missing although pip said the extra was there)."""
    return subprocess.run([sys.executable, "-c", CORE_ONLY, ",".join(BLOCKED), *argv], capture_output=True,
                          text=True, timeout=300, cwd=cwd)


@pytest.mark.parametrize("argv, extra", [
    (["certify", "--profile", "smoke", "--json"], "pulsar,spark,reports"),
    (["up", "--json"], "pulsar"),
    (["status", "--json"], "pulsar"),
    (["down", "--json"], "pulsar"),
    (["check-capture", "nowhere", "--json"], "spark"),
])
def test_a_module_of_an_extra_missing_at_run_time_is_bad_input_naming_the_extra(argv, extra, tmp_path):
    done = _core_only(*argv, cwd=tmp_path)
    assert done.returncode == EXIT_BAD_INPUT, (done.stdout, done.stderr[-3000:])
    doc = json.loads(done.stdout)
    assert "not installed" in doc["error"] and f"pip install 'pulsar-conformance[{extra}]'" in doc["fix"], doc
    assert "internal error" not in done.stderr and "Traceback" not in done.stderr


def test_plan_on_a_core_install_names_its_extra(tmp_path):
    deployment = tmp_path / "d.yaml"
    deployment.write_text("clusters:\n  blue: {service_url: 'pulsar://127.0.0.1:1', admin_url: 'http://127.0.0.1:1'}\n")
    done = _core_only("plan", "--deployment", str(deployment), "--profile", "geo-replication", "--json", cwd=tmp_path)
    assert done.returncode == EXIT_BAD_INPUT, (done.stdout, done.stderr[-3000:])
    assert "pulsar-conformance[pulsar]" in json.loads(done.stdout)["fix"]


def test_results_and_verify_run_on_the_core(tmp_path):
    """They only read a bundle: once they crashed too, through certify's imports (the admin client)."""
    from tests.reports.handmade import make_bundle

    make_bundle(tmp_path / "b")
    done = _core_only("results", str(tmp_path / "b"), "--json")
    assert done.returncode == 1, done.stderr[-3000:]  # the hand-made run's own verdict: fail
    assert json.loads(done.stdout)["verdict"] == "fail"
    done = _core_only("verify", str(tmp_path / "b.tar.gz"), "--json")
    assert done.returncode == 0 and json.loads(done.stdout)["ok"], done.stderr[-3000:]
    done = _core_only("compare", str(tmp_path / "b"), str(tmp_path / "b.tar.gz"), "--json")
    assert done.returncode == 0, done.stderr[-3000:]


def test_an_extra_not_installed_stops_the_command_before_it_starts(monkeypatch, capsys, tmp_path):
    """The check before the handler: the installed metadata says requests is not there, so certify is refused
    with the one pip command that installs every extra it runs on, and nothing is written."""
    real = metadata.version

    def version(name):
        if canonicalize_name(name) == "requests":
            raise metadata.PackageNotFoundError(name)
        return real(name)

    monkeypatch.setattr(extras.metadata, "version", version)
    from pulsar_conformance.reports.runner import cli as reports_cli

    monkeypatch.setattr(reports_cli, "_certify", lambda args: pytest.fail("certify started"))
    code = cli.main(["certify", "--profile", "smoke", "--out", str(tmp_path / "out"), "--json"])
    doc = json.loads(capsys.readouterr().out)
    assert code == EXIT_BAD_INPUT
    assert "lacks requests" in doc["error"]
    assert "pip install 'pulsar-conformance[pulsar,spark,reports]'" in doc["fix"]
    assert not (tmp_path / "out").exists()
    # the core's commands are not held back by a missing extra
    assert cli.main(["spec", "list", "--json"]) == 0


def test_a_version_too_old_is_named(monkeypatch):
    real = metadata.version
    monkeypatch.setattr(extras.metadata, "version", lambda n: "1.0" if canonicalize_name(n) == "jinja2" else real(n))
    with pytest.raises(extras.UsageError) as refused:
        extras.check("certify")
    assert "jinja2>=3.1 (1.0 installed)" in refused.value.problem


def test_every_declared_command_exists():
    commands = set(tree(cli.build_parser()))
    assert set(extras.NEEDS) <= commands, set(extras.NEEDS) - commands
    installed = {e for _, es in extras.requirements() or () for e in es}
    assert {e for need in extras.NEEDS.values() for e in need} <= installed


def test_every_requirement_maps_to_its_import_name():
    """A ModuleNotFoundError names a module; the extra is found from its distribution. A dependency whose
    import name is not its distribution's must be in IMPORT_NAMES, or its absence would read as a crash."""
    import importlib.util

    known = {canonicalize_name(d) for d in extras.IMPORT_NAMES.values()}
    for path in sorted((ROOT / "requirements").glob("*.txt")):
        for line in path.read_text().splitlines():
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            name = canonicalize_name(Requirement(line).name)
            if name in known:
                continue
            assert importlib.util.find_spec(name.replace("-", "_")) is not None, (
                f"{path.name}: {name} imports under another name: add it to extras.IMPORT_NAMES")


def test_the_module_map_finds_the_extra():
    error = ModuleNotFoundError("No module named 'yaml'", name="yaml")
    assert extras.missing_module(error, "spec list") is None  # core: a defect, not an extra
    error = ModuleNotFoundError("No module named 'pyarrow'", name="pyarrow.parquet")
    found = extras.missing_module(error, "check-capture")
    assert found and "pulsar-conformance[spark]" in found.fix
    found = extras.missing_module(ModuleNotFoundError("x", name="pyarrow"), "spec list")
    assert found and "pulsar-conformance[pulsar]" in found.fix  # not the command's: the first extra that has it
    assert extras.missing_module(ModuleNotFoundError("x", name="nosuchmodule"), "up") is None
