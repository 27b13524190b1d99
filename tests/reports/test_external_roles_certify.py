"""certify on an external deployment (issue 32), before anything starts: the profile's roles must be
in the file, the release is the brokers' to say; in the tests' process, irreversible scenarios are
deselected without --allow-irreversible and a fault the deployment cannot inject makes a test unknown."""
from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from pulsar_conformance.cli import build_parser
from pulsar_conformance.conformance.profiles import PROFILES
from pulsar_conformance.errors import EXIT_BAD_INPUT, UsageError

FILE = """
clusters:
  us-east: {service_url: "pulsar://127.0.0.1:1", admin_url: "http://127.0.0.1:1"}
  us-west: {service_url: "pulsar://127.0.0.1:1", admin_url: "http://127.0.0.1:1"}
roles: {blue: us-east, green: us-west}
"""


@pytest.fixture(autouse=True)
def _own_state(tmp_path, monkeypatch):
    monkeypatch.setenv("PULSAR_CONFORMANCE_STATE_DIR", str(tmp_path / "state"))


def _refused(tmp_path, *options) -> UsageError:
    from pulsar_conformance.reports.runner.request import certify_request

    with pytest.raises(UsageError) as refused:
        certify_request(build_parser().parse_args(["certify", *options, "--out", str(tmp_path / "b")]))
    return refused.value


def test_profiles_declare_the_roles_their_scenarios_use():
    assert PROFILES["geo-replication"].roles() == ("blue", "green")
    assert PROFILES["client-failover"].roles() == ("primary", "s1", "s2")
    assert PROFILES["policy-sync"].roles() == ("alpha", "bravo", "charlie")
    assert set(PROFILES["cluster-migration"].roles()) == {"blue", "green", "remote"}
    assert PROFILES["smoke"].on("external").roles() == ("blue", "green")
    assert PROFILES["metadata-migration"].roles() == ("zeta",)  # the operator's cluster migrated


def test_a_file_lacking_a_role_of_the_profile_is_refused_before_any_cluster_is_reached(tmp_path):
    path = tmp_path / "staging.yaml"
    path.write_text(FILE)  # port 1: reaching a cluster would be refused as unreachable instead
    error = _refused(tmp_path, "--profile", "client-failover", "--deployment", str(path))
    assert "primary" in error.problem and "client-failover" in error.problem, error.problem
    assert "roles:" in error.fix


def test_the_refusal_exits_64_on_the_command_line(tmp_path):
    path = tmp_path / "staging.yaml"
    path.write_text(FILE)
    done = subprocess.run([sys.executable, "-m", "pulsar_conformance", "certify", "--profile", "policy-sync",
                           "--deployment", str(path), "--out", str(tmp_path / "b")],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == EXIT_BAD_INPUT, done.stderr
    assert "alpha" in done.stderr and "policy-sync" in done.stderr and "roles:" in done.stderr


def test_pulsar_version_is_refused_for_an_external_deployment(tmp_path):
    path = tmp_path / "staging.yaml"
    path.write_text(FILE)
    error = _refused(tmp_path, "--profile", "geo-replication", "--deployment", str(path), "--pulsar-version", "4.2.4")
    assert "--pulsar-version" in error.problem and "brokers/version" in error.problem
    assert "drop --pulsar-version" in error.fix


def test_irreversible_scenarios_are_deselected_on_an_external_deployment(tmp_path):
    """The guard the plugin registers: run a throw-away suite whose test is named like an irreversible one."""
    suite = tmp_path / "suite"
    suite.mkdir()
    # the deselection is the fixtures plugin's; FaultUnsupported -> unknown is the conformance layer's
    (suite / "conftest.py").write_text("from pulsar_conformance.fixtures.pytest_plugin import pytest_configure\n"
                                       "from pulsar_conformance.conformance.conftest import pytest_runtest_call\n")
    (suite / "test_cluster_migration.py").write_text(textwrap.dedent("""
        from pulsar_conformance.fixtures.deploy.base import FaultUnsupported

        def test_cluster_migration_with_live_traffic():
            pass

        def test_needs_a_fault():
            raise FaultUnsupported("the deployment file gives no 'kill' command")
    """))
    out = tmp_path / "out"
    out.mkdir()

    def run(**env):
        import os

        environment = {**os.environ, "PULSAR_CONFORMANCE_EXTERNAL": "x.yaml",
                       "PULSAR_CONFORMANCE_CERTIFY_OUT": str(out), **env}
        environment.pop("PULSAR_CONFORMANCE_ALLOW_IRREVERSIBLE", None) if not env else None
        return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(suite),
                               "--junitxml", str(out / "junit.xml")],
                              capture_output=True, text=True, timeout=120, env=environment, cwd=suite)

    done = run()
    assert "1 deselected" in done.stdout, done.stdout + done.stderr
    assert (out / "irreversible.json").exists()
    # the fault: unknown (VerdictUnknown, reported broken), with the reason; never a pass
    assert "VerdictUnknown" in (out / "junit.xml").read_text()
    assert "no &apos;kill&apos; command" in (out / "junit.xml").read_text() or "no 'kill' command" in done.stdout
    assert "1 failed, 1 deselected" in done.stdout and "passed" not in done.stdout  # the deselected one did not run
    allowed = run(PULSAR_CONFORMANCE_ALLOW_IRREVERSIBLE="1")
    assert "deselected" not in allowed.stdout and "1 passed" in allowed.stdout


def test_the_example_file_maps_the_roles_of_the_profiles_it_names():
    from pulsar_conformance.fixtures.deploy.external import load_external

    example = Path(__file__).resolve().parents[2] / "docs" / "examples" / "external-local.yaml"
    deployment = load_external(example, check=False)
    assert deployment.missing_roles(PROFILES["geo-replication"].roles()) == []
    assert deployment.fault_book.template("us-east", "kill") is not None
