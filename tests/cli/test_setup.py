"""No system package is installed unless the user asks (`pulsar-conformance setup --yes`).

As root the suite used to apt-get docker.io, debootstrap, graphviz, chromium or gcc whenever a
command wanted them (`spec graph` ran `apt-get install graphviz`; a quick containers check installed
ten packages). Every test here runs with a guard that FAILS the test when anything runs apt-get or
dpkg, and most run as root with apt-get present, the case where the old code installed."""
from __future__ import annotations

import json
import shutil
import subprocess

import pytest

from pulsar_conformance import cli, debian
from pulsar_conformance.errors import EXIT_BAD_INPUT, UsageError

INSTALLERS = {"apt-get", "apt", "dpkg", "aptitude"}
REAL_WHICH = shutil.which


def _installer(command) -> bool:
    argv = command if isinstance(command, (list, tuple)) else str(command).split()
    return bool(argv) and any(str(word).rsplit("/", 1)[-1] in INSTALLERS for word in argv[:3])


@pytest.fixture
def no_installs(monkeypatch):
    """Fail the test on any attempt to run an installer, through any subprocess entry point."""
    for name in ("run", "Popen", "call", "check_call", "check_output"):
        real = getattr(subprocess, name)

        def guarded(command, *args, _real=real, **kwargs):
            if _installer(command):
                pytest.fail(f"an install was attempted without --yes: {command}")
            return _real(command, *args, **kwargs)

        monkeypatch.setattr(subprocess, name, guarded)


@pytest.fixture
def as_root(monkeypatch):
    monkeypatch.setattr(debian.os, "geteuid", lambda: 0)


def _absent(monkeypatch, *tools: str, everything: bool = False) -> None:
    """``shutil.which`` finds none of ``tools`` (or nothing but apt-get), and no header file exists."""
    def which(name, *args, **kwargs):
        base = str(name).rsplit("/", 1)[-1]
        if base == "apt-get":
            return "/usr/bin/apt-get"
        if everything or base in tools:
            return None
        return REAL_WHICH(name, *args, **kwargs)

    monkeypatch.setattr(shutil, "which", which)
    if everything:
        monkeypatch.setattr(debian, "_exists", lambda path: False)


def test_setup_lists_every_feature_and_installs_nothing_even_as_root(monkeypatch, capsys, no_installs, as_root):
    _absent(monkeypatch, everything=True)
    assert cli.main(["setup"]) == 0
    out = capsys.readouterr().out
    for feature in debian.FEATURES.values():
        assert f"{feature.name}: " in out
        for need in feature.needs:
            assert (need.package or "(not from apt)") in out
    assert "MISSING  graphviz" in out and "MISSING  docker.io" in out and "MISSING  chromium" in out
    assert "nothing was installed" in out and "setup --yes local containers graph screenshots clocks oxia" in out


def test_setup_json_says_what_is_present(monkeypatch, capsys, no_installs):
    _absent(monkeypatch, "dot")
    assert cli.main(["setup", "--json", "graph", "local"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [f["name"] for f in doc["features"]] == ["graph", "local"] and doc["installed"] == []
    assert doc["features"][0]["needs"] == [{"what": "dot", "package": "graphviz", "present": False, "manual": None}]


def test_an_unknown_feature_is_bad_input(capsys, no_installs):
    assert cli.main(["setup", "--yes", "graphs"]) == EXIT_BAD_INPUT
    assert "no feature 'graphs'" in capsys.readouterr().err


def test_setup_check_fails_on_a_missing_package_and_installs_nothing(monkeypatch, capsys, no_installs, as_root):
    # tox's reports env runs `setup --check screenshots` first: no Chromium is an error, never a skipped screenshot
    _absent(monkeypatch, "chromium")
    assert cli.main(["setup", "--check", "screenshots"]) == EXIT_BAD_INPUT
    err = capsys.readouterr().err
    assert "missing: screenshots: chromium (Debian package chromium)" in err and "setup --yes screenshots" in err
    monkeypatch.setattr(shutil, "which", lambda name, *a, **k: f"/usr/bin/{name}")
    assert cli.main(["setup", "--check", "screenshots"]) == 0


def test_setup_yes_as_non_root_refuses_before_running_apt(monkeypatch, capsys, no_installs):
    _absent(monkeypatch, "dot")
    monkeypatch.setattr(debian.os, "geteuid", lambda: 1000)
    assert cli.main(["setup", "--yes", "graph"]) == EXIT_BAD_INPUT
    err = capsys.readouterr().err
    assert "installing graphviz with apt-get needs root" in err and "setup --yes graph' (or as root)" in err
    assert "run 'sudo " in err


def test_setup_yes_with_everything_present_needs_no_root(monkeypatch, capsys, no_installs):
    monkeypatch.setattr(debian.os, "geteuid", lambda: 1000)
    monkeypatch.setattr(shutil, "which", lambda name, *a, **k: f"/usr/bin/{name}")
    assert cli.main(["setup", "--yes", "graph", "screenshots"]) == 0
    assert "nothing to install" in capsys.readouterr().out


def test_setup_yes_installs_only_the_named_features_missing_packages(monkeypatch, capsys, as_root):
    installed: set[str] = set()
    ran = []

    def which(name, *args, **kwargs):
        if name in ("dot", "chromium"):
            return f"/usr/bin/{name}" if {"dot": "graphviz", "chromium": "chromium"}[name] in installed else None
        return f"/usr/bin/{name}"

    def run(command, *args, **kwargs):
        ran.append(list(command))
        if command[:2] == ["apt-get", "install"]:
            installed.update(c for c in command[2:] if not c.startswith("-"))
        return subprocess.CompletedProcess(command, 0, "", "")

    monkeypatch.setattr(shutil, "which", which)
    monkeypatch.setattr(subprocess, "run", run)
    assert cli.main(["setup", "--yes", "graph"]) == 0
    assert ran == [["apt-get", "update", "-qq"], ["apt-get", "install", "-y", "-qq", "--no-install-recommends", "graphviz"]]
    assert installed == {"graphviz"}  # chromium is missing too, but was not asked for
    assert "installed: graphviz" in capsys.readouterr().out


def test_setup_yes_says_what_apt_cannot_provide(monkeypatch, capsys, no_installs, as_root):
    monkeypatch.delenv("PULSAR_CONFORMANCE_GO", raising=False)
    _absent(monkeypatch, "go")
    assert cli.main(["setup", "--yes", "oxia"]) == EXIT_BAD_INPUT
    err = capsys.readouterr().err
    assert "still missing after setup: oxia: go" in err and "https://go.dev/dl/" in err


# --- every place that installed silently now stops with the setup command as its fix


def test_spec_graph_without_graphviz_is_bad_input_naming_setup(monkeypatch, capsys, tmp_path, no_installs, as_root):
    _absent(monkeypatch, "dot")
    out = tmp_path / "graph.svg"
    code = cli.main(["spec", "graph", "client-failover", "--const", "SECONDARIES=1", "--vars", "current,fails,oks",
                     "--out", str(out)])
    err = capsys.readouterr().err
    assert code == EXIT_BAD_INPUT, err
    assert "dot (Debian package graphviz)" in err and "pulsar-conformance setup --yes graph" in err
    assert "FILE.dot" in err and not out.exists()


def test_the_containers_backend_without_an_engine_names_setup(monkeypatch, tmp_path, no_installs, as_root):
    from pulsar_conformance.fixtures.deploy import docker_engine

    monkeypatch.setattr(docker_engine, "ping", lambda: None)
    _absent(monkeypatch, "dockerd", "debootstrap")
    ok, why = docker_engine.engine_status()
    assert not ok and "setup --yes containers" in why
    with pytest.raises(UsageError) as refused:
        docker_engine.ensure(tmp_path)
    assert "setup --yes containers" in refused.value.fix


def test_the_base_image_without_debootstrap_names_setup(monkeypatch, tmp_path, no_installs, as_root):
    from pulsar_conformance.fixtures.deploy import images

    monkeypatch.setattr(images, "has_image", lambda client, tag: False)
    _absent(monkeypatch, "debootstrap")
    with pytest.raises(UsageError) as refused:
        images.base_image(object(), tmp_path)
    assert "debootstrap" in refused.value.problem and "setup --yes containers" in refused.value.fix


def test_the_report_tests_chromium_is_never_installed(monkeypatch, no_installs, as_root):
    from tests.reports.chromium import ensure_chromium

    _absent(monkeypatch, "chromium")
    browser, why = ensure_chromium()
    assert browser is None and "setup --yes screenshots" in why


def test_the_old_install_entry_point_installs_nothing(monkeypatch, no_installs, as_root):
    _absent(monkeypatch, "gcc")
    # fixtures/deploy/clocks.py still calls it and treats a non-empty answer as 'unavailable'
    why = debian.install(["gcc", "libc6-dev"], needed_for="building the suite's broker clock shim")
    assert "setup --yes clocks" in why


def test_require_raises_missing_packages_with_the_fix(monkeypatch, no_installs, as_root):
    _absent(monkeypatch, "chromium")
    with pytest.raises(debian.MissingPackages) as missing:
        debian.require("screenshots")
    assert missing.value.fix.startswith("pulsar-conformance setup --yes screenshots")
