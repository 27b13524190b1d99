"""PIP121-R06 can fail: a failover client given the primary's token for s1 as well (clusters that
trust different secrets) is refused by s1 after the switch, and the check says fail, not pass.
The passing case is the certify run's (test_certify_failover.py)."""
from __future__ import annotations

import os

import pytest

from pulsar_conformance.conformance.protocols.client_failover import credentials, judge
from pulsar_conformance.fixtures.deploy.local import LocalDeployment
from pulsar_conformance.fixtures.deploy.spec import DeploymentSpec

pytestmark = [pytest.mark.pulsar]


def test_the_wrong_token_for_the_target_fails_the_check(tmp_path):
    spec = DeploymentSpec(clusters=("primary", "s1"), name=f"creds-{os.getpid()}", auth="token-per-cluster", heap_mb=384)
    with LocalDeployment.launch(spec, state_dir=tmp_path / "state") as deployment:
        primary_token = deployment.clusters["primary"].token
        assert primary_token and primary_token != deployment.clusters["s1"].token
        out = credentials.run(deployment, tmp_path / "wrong", tokens={"s1": primary_token}, after_s=6.0)
        # the primary it killed is back: on an external deployment the next module's primary is the same cluster
        assert deployment.admin("primary").ready()
    target = judge.judge(out)[0]  # the judge the live test records through
    ok, said, c = target.ok, target.evidence, out.credentials
    assert c.ok_before > 0, said  # the primary took its own token
    assert ok is False and c.ok_after_switch == 0 and c.errors_after_switch, said
    assert (tmp_path / "wrong" / "credentials.json").exists()


def test_the_java_client_handed_the_wrong_token_fails_the_check(tmp_path):
    """The Java client's R06 check (ControlledClusterFailover, the token from the URL provider) fails
    the same way when the provider hands it the primary's token for s1."""
    spec = DeploymentSpec(clusters=("primary", "s1"), name=f"creds-java-{os.getpid()}", auth="token-per-cluster",
                          heap_mb=384)
    with LocalDeployment.launch(spec, state_dir=tmp_path / "state") as deployment:
        primary_token = deployment.clusters["primary"].token
        out = credentials.run_java(deployment, tmp_path / "wrong-java", tokens={"s1": primary_token})
    (target,) = judge.judge(out)
    ok, said = target.ok, target.evidence
    assert ok is False and " 0 after the switch" in said, said
    assert "sends acknowledged by the primary before" in said and not said.startswith("0 ")
    log = (tmp_path / "wrong-java" / "java-client.log").read_text()
    assert primary_token not in log and "token:***" in log  # the client logs the configuration: masked
