"""Environment values the tests' process reads stand for certify's options (reports/runner/request.py
environment_options): checked as the option is, before anything starts, and named in the refusal.
Each refused value used to reach the tests' process unchecked and end the run "unknown" minutes later."""
from __future__ import annotations

import pytest

from pulsar_conformance.cli import build_parser
from pulsar_conformance.conformance.profiles import get_profile
from pulsar_conformance.errors import UsageError
from pulsar_conformance.reports.runner.request import (
    ENV_OPTIONS,
    certify_request,
    environment_options,
    parse_matrix,
)

PULSAR, JAVA, TLS = (ENV_OPTIONS[f][0] for f in ("pulsar_version", "java_client_version", "migration_tls"))


@pytest.fixture(autouse=True)
def _clean(tmp_path, monkeypatch):
    monkeypatch.setenv("PULSAR_CONFORMANCE_STATE_DIR", str(tmp_path / "state"))
    for variable, _ in ENV_OPTIONS.values():
        monkeypatch.delenv(variable, raising=False)


def _options(*argv: str, profile: str = "smoke"):
    args = build_parser().parse_args(["certify", "--profile", profile, *argv])
    return environment_options(args, parse_matrix(args.matrix), get_profile(profile))


@pytest.mark.parametrize("variable, value, profile, words", [
    (PULSAR, "abc", "smoke", "'abc' is not a Pulsar release number"),
    (PULSAR, "9.9.9", "smoke", "no Pulsar 9.9 line"),
    (JAVA, "abc", "client-failover", "'abc' is not a Pulsar release number"),
    (TLS, "bogus", "cluster-migration", "unknown --migration-tls mode"),
    (TLS, "bogus", "smoke", "unknown --migration-tls mode"),  # checked whatever the profile
])
def test_a_bad_environment_value_is_refused_naming_the_variable(tmp_path, monkeypatch, variable, value, profile, words):
    monkeypatch.setenv(variable, value)
    args = build_parser().parse_args(["certify", "--profile", profile, "--out", str(tmp_path / "b")])
    with pytest.raises(UsageError) as refused:
        certify_request(args)
    assert f"${variable}={value!r}" in refused.value.problem and words in refused.value.problem
    assert f"unset {variable}" in refused.value.fix and not (tmp_path / "b").exists()


def test_a_good_environment_value_stands_for_its_option(monkeypatch):
    """So the bundle's configuration and reproduce command say what the tests ran with."""
    monkeypatch.setenv(PULSAR, " 4.0.1 ")
    monkeypatch.setenv(JAVA, "4.2.4")
    monkeypatch.setenv(TLS, "advertised")
    assert _options(profile="cluster-migration") == {"pulsar_version": "4.0.1", "java_client_version": "4.2.4",
                                                     "migration_tls": "advertised"}
    assert "migration_tls" not in _options()  # a TLS mode is only cluster-migration's configuration


def test_the_option_or_a_matrix_wins_over_the_environment(monkeypatch, capsys):
    monkeypatch.setenv(PULSAR, "9.9.9")  # ignored, so not refused either
    monkeypatch.setenv(TLS, "bogus")
    assert _options("--pulsar-version", "4.2.4", "--migration-tls", "on", profile="cluster-migration") == {}
    assert _options("--matrix", "pulsar=4.0.1,4.2.4", "--migration-tls", "on", profile="cluster-migration") == {}
    err = capsys.readouterr().err
    assert f"${PULSAR}='9.9.9' ignored: --pulsar-version decides" in err and "--matrix pulsar=... decides" in err


def test_an_empty_value_is_unset(monkeypatch):
    monkeypatch.setenv(PULSAR, "")
    assert _options() == {}
