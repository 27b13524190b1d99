"""The smoke profile runs one short live scenario of every protocol (issue 34), named by the
protocol descriptors (``smoke_tests``), on the local backend; elsewhere the geo-replication
scenario only. Offline: pytest collects the real suite, nothing starts."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import pulsar_conformance.conformance as suites
from pulsar_conformance.conformance.profiles import PROFILES
from pulsar_conformance.protocols import PROTOCOLS
from pulsar_conformance.reports.bundle.verdicts import load_requirements
from pulsar_conformance.reports.runner import certify
from pulsar_conformance.reports.runner.request import CertifyRequest, Deployment

SUITE = Path(suites.__file__).parent


def _collected(markers: str) -> list[str]:
    done = subprocess.run([sys.executable, "-m", "pytest", str(SUITE), f"--rootdir={SUITE.parent}", "--collect-only",
                           "-q", "-m", markers, "-p", "no:cacheprovider"], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return [line for line in done.stdout.splitlines() if "::" in line]


@pytest.fixture(scope="module")
def smoke() -> list[str]:
    return _collected(PROFILES["smoke"].markers)


def test_smoke_runs_a_live_scenario_of_every_protocol(smoke):
    live = [node for node in smoke if "test_spec_models" not in node]
    for protocol in PROTOCOLS:
        package = f"protocols/{protocol.area.replace('-', '_')}/"
        mine = [node for node in live if package in node]
        assert mine, f"no smoke scenario of {protocol.area} in {live}"
        if protocol.smoke_tests:  # one short scenario each, exactly the ones the descriptor names
            assert sorted(n.split(package, 1)[1] for n in mine) == sorted(protocol.smoke_tests)


def test_every_named_smoke_test_exists(smoke):
    """A renamed test would leave its protocol out of smoke silently: each name must collect."""
    for protocol in PROTOCOLS:
        for name in protocol.smoke_tests:
            assert any(node.endswith(f"/{name}") for node in smoke), f"{protocol.area}: {name} not collected"


def test_smoke_declares_a_live_requirement_of_each_protocol():
    requirements = {r.id: r for r in load_requirements()}
    declared = PROFILES["smoke"].declared(requirements.values())
    for protocol in PROTOCOLS:
        mine = [rid for rid in declared if requirements[rid].area == protocol.area]
        assert mine, f"smoke certifies nothing of {protocol.area}"
        for rid in protocol.smoke_requirements:  # of its own area, judged by a conformance check
            assert requirements[rid].area == protocol.area and rid in declared, rid


def test_elsewhere_smoke_is_the_geo_replication_scenario_and_the_spec_checks():
    """An external deployment (a vendor's clusters) or containers: the protocols' smoke scenarios
    start clusters of their own shapes and inject faults, so they stay out."""
    nodes = _collected(PROFILES["smoke"].on("external").markers)
    live = [n for n in nodes if "test_spec_models" not in n]
    assert [n.rsplit("/", 1)[1] for n in live] == [
        "test_geo_replication.py::test_blue_to_green_through_a_replication_outage"]
    assert PROFILES["smoke"].on("containers") is PROFILES["smoke"].on("external")


def test_order_spec_checks_first_session_clusters_last(smoke):
    """The session's blue and green (geo-replication, tenant migration) stay up to the session's end:
    the scenarios on them run last, so no other scenario shares the two cores with idle clusters."""
    kinds = ["spec" if "test_spec_models" in n else "session" if ("geo_replication" in n or "tenant_migration" in n)
             else "own" for n in smoke]
    assert kinds == sorted(kinds, key=["spec", "own", "session"].index), kinds


@pytest.mark.parametrize("backend, given, expected", [
    ("local", None, "default"), ("local", "4.0.1", "4.0.1"), ("containers", None, None)])
def test_smoke_runs_every_deployment_on_one_release(tmp_path, backend, given, expected):
    """PIP-454's scenario defaults to 5.0.0-M1; in smoke it runs on the run's release (4.2.4 by default)."""
    from pulsar_conformance.fixtures.deploy.versions import DEFAULT_PULSAR_VERSION

    request = CertifyRequest(profile=PROFILES["smoke"], deployment=Deployment(backend), out=tmp_path,
                             pulsar_version=given)
    want = DEFAULT_PULSAR_VERSION if expected == "default" else expected
    assert certify.run_request(request).pulsar_version == want  # the tests' process reads it from the request file
    other = CertifyRequest(profile=PROFILES["metadata-migration"], deployment=Deployment("local"), out=tmp_path)
    assert certify.run_request(other).pulsar_version is None


def test_smoke_refuses_a_client_too_old_for_its_failover_scenario():
    assert PROFILES["smoke"].min_client == "3.11.0" and "AutoClusterFailover" in PROFILES["smoke"].min_client_why
    assert PROFILES["smoke"].on("external").min_client is None


@pytest.mark.parametrize("topology, expected", [("standalone", None), ("cluster", "cluster")])
def test_the_topology_reaches_the_tests_deployments(tmp_path, monkeypatch, topology, expected):
    """certify --topology cluster: the tests' process is told in its request file (fixtures/pytest_plugin._start
    reads it through fixtures/deploy/topology.from_environment); a value left in the caller's environment never
    leaks into a standalone run."""
    from pulsar_conformance.fixtures import request_file
    from pulsar_conformance.fixtures.deploy import topology as topologies

    monkeypatch.setenv("PULSAR_CONFORMANCE_TOPOLOGY", "cluster:brokers=3")
    request = CertifyRequest(profile=PROFILES["policy-sync"], deployment=Deployment("local", topology=topology),
                             out=tmp_path)
    env = certify._child_env(request)
    assert "PULSAR_CONFORMANCE_TOPOLOGY" not in env
    monkeypatch.setenv(request_file.ENV, env[request_file.ENV])
    assert topologies.from_environment() == (None if expected is None else topologies.Topology.cluster())


def test_the_reproduce_command_keeps_the_topology_and_the_irreversible_consent(tmp_path):
    """A run on the cluster topology, or one allowed to migrate a whole cluster, is repeated as it ran."""
    from pulsar_conformance.reports.runner.build import command_line

    plain = CertifyRequest(profile=PROFILES["cluster-migration"], deployment=Deployment("local"), out=tmp_path)
    assert "--topology" not in command_line(plain) and "--allow-irreversible" not in command_line(plain)
    both = CertifyRequest(profile=PROFILES["cluster-migration"], deployment=Deployment("local", topology="cluster"),
                          out=tmp_path, allow_irreversible=True)
    assert "--topology cluster" in command_line(both) and "--allow-irreversible" in command_line(both)
