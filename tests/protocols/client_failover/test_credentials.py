"""PIP121-R06 can fail: a failover client given the primary's token for s1 as well (clusters that
trust different secrets) is refused by s1 after the switch, and the check says fail, not pass.
The passing case is the certify run's (test_certify_failover.py)."""
from __future__ import annotations

import os

import pytest

from pulsar_conformance.conformance.protocols.client_failover import credentials
from pulsar_conformance.fixtures.deploy.local import LocalDeployment

pytestmark = [pytest.mark.pulsar]


def test_the_wrong_token_for_the_target_fails_the_check(tmp_path):
    with LocalDeployment.launch(["primary", "s1"], name=f"creds-{os.getpid()}", auth="token-per-cluster",
                                heap_mb=384, state_dir=tmp_path / "state") as deployment:
        primary_token = deployment.clusters["primary"].token
        assert primary_token and primary_token != deployment.clusters["s1"].token
        out = credentials.run(deployment, tmp_path / "wrong", tokens={"s1": primary_token}, after_s=6.0)
    ok, said = out.verdict()
    assert out.ok_before > 0, said  # the primary took its own token
    assert ok is False and out.ok_after_switch == 0 and out.errors_after_switch, said
    assert (tmp_path / "wrong" / "credentials.json").exists()
