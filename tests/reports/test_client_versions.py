"""certify --client-version: a real pulsar-client 3.4.0 environment beside this one's 3.13.0.

The install is real (about 5 MB from the package index, once per session); no broker is
needed: what matters is which client a child process imports and what the bundle records.
"""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from pulsar_conformance.conformance.profiles import get_profile
from pulsar_conformance.errors import UsageError
from pulsar_conformance.fixtures import client_versions
from pulsar_conformance.fixtures.client_versions import environment_dir, prepare
from pulsar_conformance.reports.runner.request import CertifyRequest

# another client than this environment's: 3.4.0, the last release that cannot follow TopicMigrated
# (pulsar-facts.md §7), and its C++ client; it has no wheel for Python 3.13, where the oldest is 3.6.1
OLD, OLD_CPP = ("3.4.0", "3.4.2") if sys.version_info < (3, 13) else ("3.6.1", "3.7.0")


@pytest.fixture(scope="session")
def state(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("state")


@pytest.fixture(scope="session")
def old_client(state):
    lines = []
    client = prepare(OLD, root=state, log=lines.append)
    return client, lines


def _imports(env: dict) -> str:
    done = subprocess.run([sys.executable, "-c", "import pulsar; print(pulsar.__version__, pulsar.__file__)"],
                          env=env, capture_output=True, text=True, check=True)
    return done.stdout.strip()


def _leftovers(state: Path, version: str) -> list[str]:
    base = state / "clients"
    return sorted(p.name for p in base.iterdir() if version in p.name) if base.exists() else []


def test_install_gives_a_child_the_other_client(old_client, state):
    client, lines = old_client
    assert client.pip_ran and client.version == OLD and client.cpp_version == OLD_CPP
    assert Path(client.path) == environment_dir(OLD, state) and client.module.startswith(client.path)
    assert any(f"installing pulsar-client {OLD}" in line for line in lines)
    assert any(line.startswith("  pip: ") for line in lines)  # pip's progress reaches the user
    assert _imports(client.child_env(os.environ)).startswith(f"{OLD} {client.path}")
    import pulsar  # this process keeps its own client

    assert pulsar.__version__ != OLD and _leftovers(state, OLD) == [f"pulsar-client-{OLD}"]


def test_second_call_uses_the_cache_without_pip(old_client, state, monkeypatch):
    def no_pip(*_args, **_kw):
        raise AssertionError("pip ran for a cached client")

    monkeypatch.setattr(client_versions, "_run_pip", no_pip)
    cached = prepare(OLD, root=state, log=lambda _line: None)
    assert not cached.pip_ran and cached.version == OLD and cached.path == old_client[0].path
    assert cached.seconds < 5, cached.seconds  # one import in a subprocess


def test_installed_release_needs_no_environment(state):
    here = prepare(client_versions.installed_version(), root=state)
    assert here.path is None and here.version == client_versions.installed_version()
    assert client_versions.ENV_DIR not in here.child_env({client_versions.ENV_DIR: "stale"})


@pytest.mark.parametrize("version, problem, fix", [
    ("9.9.9", "pulsar-client 9.9.9 is not available", "3.13.0"),
    ("abc", "'abc' is not a pulsar-client release number", "3.13.0"),
])
def test_bad_version_exits_64_and_leaves_nothing(tmp_path, version, problem, fix):
    env = {**os.environ, "PULSAR_CONFORMANCE_STATE_DIR": str(tmp_path / "state")}
    done = subprocess.run([sys.executable, "-m", "pulsar_conformance", "certify", "--profile", "smoke",
                           "--client-version", version, "--out", str(tmp_path / "bundle"), "--json"],
                          env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 64, done.stdout + done.stderr
    doc = json.loads(done.stdout)
    assert problem in doc["error"] and fix in doc["fix"], doc
    assert _leftovers(tmp_path / "state", version) == [] and not (tmp_path / "bundle").exists()


def test_no_network_says_so(tmp_path, monkeypatch):
    # A closed loopback port stands in for an unreachable index.
    monkeypatch.setenv("PIP_INDEX_URL", "http://127.0.0.1:9/simple")
    monkeypatch.setenv("PIP_FIND_LINKS", "")
    monkeypatch.delenv("PIP_RETRIES", raising=False)  # with none, pip does not say why it found nothing
    with pytest.raises(UsageError) as caught:
        prepare("3.5.0", root=tmp_path, log=lambda _line: None)
    assert "could not reach the package index" in caught.value.problem
    assert "PIP_FIND_LINKS" in caught.value.fix and _leftovers(tmp_path, "3.5.0") == []


def test_interrupted_install_leaves_nothing(tmp_path, monkeypatch):
    def interrupted(command, _env, _log):
        partial = Path(command[command.index("--target") + 1])
        (partial / "pulsar").mkdir()
        (partial / "pulsar" / "__init__.py").write_text("half")
        raise KeyboardInterrupt

    monkeypatch.setattr(client_versions, "_run_pip", interrupted)
    with pytest.raises(KeyboardInterrupt):
        prepare("3.5.0", root=tmp_path, log=lambda _line: None)
    assert _leftovers(tmp_path, "3.5.0") == []


def test_partial_of_a_dead_install_is_swept(tmp_path, monkeypatch):
    base = tmp_path / "clients"
    dead = base / ".partial-pulsar-client-3.5.0-999999999-abc"
    dead.mkdir(parents=True)
    monkeypatch.setattr(client_versions, "_run_pip", lambda *_a: ["ERROR: stopped by the test"])
    with pytest.raises(UsageError):
        prepare("3.5.0", root=tmp_path, log=lambda _line: None)
    assert not dead.exists()


def test_certify_child_imports_and_records_the_asked_client(old_client, state, tmp_path, monkeypatch):
    """run_certify end to end, its pytest child pointed at one test that uses the client."""
    from pulsar_conformance.reports.runner import certify

    suite = tmp_path / "suite"
    suite.mkdir()
    (suite / "test_client.py").write_text(
        f"import pulsar\n\ndef test_client():\n    assert pulsar.__version__ == '{OLD}'\n")
    real_command = certify._pytest_command

    def tiny_suite(profile, out, select=None):
        command = real_command(profile, out, select)  # the real options, plugins included
        if command[-2] == "-m":  # the profile's markers would deselect the tiny suite
            command = command[:-2]
        return [str(suite) if part.endswith("conformance") else
                f"--rootdir={suite}" if part.startswith("--rootdir=") else part for part in command]

    monkeypatch.setattr(certify, "_pytest_command", tiny_suite)
    monkeypatch.setenv("PULSAR_CONFORMANCE_STATE_DIR", str(state))
    out = tmp_path / "bundle"
    request = CertifyRequest(profile=get_profile("smoke"), out=out, run_id="client", client_version=OLD, json=True)
    certify.run_certify(request)  # no requirement checked: unknown, not our concern here
    junit = (out / "junit.xml").read_text()
    assert 'tests="1"' in junit and "failures=\"0\"" in junit, junit
    recorded = json.loads((out / "client.json").read_text())
    assert recorded["observed"] == "imported by the tests" and recorded["version"] == OLD
    summary = json.loads((out / "summary.json").read_text())
    assert summary["versions"]["pulsar_client_python"] == OLD
    assert summary["versions"]["pulsar_client_cpp"] == OLD_CPP
    assert summary["product"]["pulsar_client"]["version"] == OLD
    assert f"| pulsar_client_python | {OLD} |" in (out / "reproduce.md").read_text()


def test_tests_importing_another_client_than_asked_break_the_run(tmp_path):
    (tmp_path / "test_client.py").write_text("import pulsar\n\ndef test_client():\n    pass\n")
    (tmp_path / "out").mkdir()
    env = {**os.environ, "PULSAR_CONFORMANCE_CERTIFY_OUT": str(tmp_path / "out"),
           client_versions.ENV_VERSION: OLD}  # asked for, but nothing put it on the path
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "pulsar_conformance.reports.runner.identity",
                           "-p", "no:cacheprovider", str(tmp_path)], env=env, capture_output=True, text=True)
    assert done.returncode == 4 and f"not {OLD}" in done.stderr, done.stdout + done.stderr
    recorded = json.loads((tmp_path / "out" / "client.json").read_text())
    assert recorded["version"] == client_versions.installed_version() and recorded["requested"] == OLD
