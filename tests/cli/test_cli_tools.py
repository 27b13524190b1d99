"""certify checks every system tool its profile runs before anything starts (issue 51, point 6): the smoke
profile's PIP-454 scenario builds Oxia with Go, `setup --yes local` checked only java and mvn, and a
machine without Go ran for minutes to an UNKNOWN. Now the run stops first, exit 64, naming Go and how
to get it; `setup --check --profile smoke` checks the same list."""
from __future__ import annotations

import json
import shutil

import pytest

from pulsar_conformance import cli, debian
from pulsar_conformance.conformance.profiles import PROFILES, tools
from pulsar_conformance.errors import EXIT_BAD_INPUT, UsageError

REAL_WHICH = shutil.which


@pytest.fixture
def no_go(monkeypatch):
    monkeypatch.delenv("PULSAR_CONFORMANCE_GO", raising=False)
    monkeypatch.setattr(debian.shutil, "which",
                        lambda name, *a, **k: None if str(name).rsplit("/", 1)[-1] == "go" else REAL_WHICH(name, *a, **k))


@pytest.fixture
def started(monkeypatch):
    """Fails the test if certify got past its checks into the request (downloads) or the run."""
    from pulsar_conformance.reports.runner import request

    def reached(args):
        raise UsageError("REACHED certify_request", "test sentinel")

    monkeypatch.setattr(request, "certify_request", reached)


def _certify(capsys, *argv) -> tuple[int, dict]:
    code = cli.main(["certify", *argv, "--json"])
    return code, json.loads(capsys.readouterr().out)


def test_smoke_without_go_stops_before_anything_starts(no_go, started, capsys, tmp_path):
    if not debian.FEATURES["local"].missing() == []:
        pytest.skip("java or mvn missing here: the local feature would be refused first")
    code, doc = _certify(capsys, "--profile", "smoke", "--out", str(tmp_path / "out"))
    assert code == EXIT_BAD_INPUT
    assert "certify --profile smoke runs building the Oxia server" in doc["error"] and "go" in doc["error"], doc
    assert "nothing was started" in doc["error"]
    assert "https://go.dev/dl/" in doc["fix"] and "pulsar-conformance setup --check oxia" in doc["fix"], doc
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("argv", [
    ["--profile", "geo-replication"],  # no PIP-454 scenario
    ["--profile", "smoke", "--select", "geo_replication"],  # the selection leaves PIP-454 out
    ["--profile", "smoke", "--pulsar-version", "3.3.2"],  # PIP-454 not applicable: nothing is built
    ["--profile", "smoke", "--deployment", "somewhere.yaml"],  # external: the suite starts no Oxia
])
def test_what_needs_no_go_is_not_held_back(no_go, started, capsys, argv):
    if debian.FEATURES["local"].missing():
        pytest.skip("java or mvn missing here")
    code, doc = _certify(capsys, *argv)
    assert doc["error"] == "REACHED certify_request", doc


def test_the_tools_of_each_profile():
    assert tools(PROFILES["smoke"], "local") == ("local", "oxia")
    assert tools(PROFILES["metadata-migration"], "local") == ("local", "oxia")
    assert tools(PROFILES["policy-sync"], "local") == ("local", "clocks")
    assert tools(PROFILES["full"], "local") == ("local", "oxia", "clocks")
    assert tools(PROFILES["smoke"], "containers") == ("containers",)
    assert tools(PROFILES["smoke"], "external") == ()
    assert tools(PROFILES["smoke"], "local", ("3.3.2", "4.2.4")) == ("local", "oxia")  # one release has PIP-454
    assert tools(PROFILES["smoke"], "local", select="metadata_migration") == ("local", "oxia")


def test_setup_check_of_a_profile_names_go(no_go, capsys):
    code = cli.main(["setup", "--check", "--profile", "smoke", "--json"])
    doc = json.loads(capsys.readouterr().out)
    assert code == EXIT_BAD_INPUT and "oxia: go" in doc["error"] and "go.dev" in doc["fix"], doc
