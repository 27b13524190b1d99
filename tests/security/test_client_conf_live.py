"""Live: an external deployment whose clusters are given only by the client.conf pulsar-admin reads (issue 32).

Token-protected local clusters stand in for a vendor's (as tests/reports/conftest.py and
tests/security/test_oauth2.py start them); each gets the client.conf an operator would keep for it
(``authPlugin=...AuthenticationToken``, ``authParams=file:///...``), and the deployment file says
nothing but ``client_conf:``. The suite must connect, plan and certify through it, refuse a wrong
token with exit 64, and print the token nowhere.

Run (starts two brokers, then a smoke certification of the spec checks):
    .venv/bin/pytest -x -q tests/security/test_client_conf_live.py
"""
from __future__ import annotations

import json
import os
import uuid

import pytest

from pulsar_conformance import errors

from ..support.cli import run_cli as _cli
from ..support.vendor import vendor_file

pytestmark = [pytest.mark.pulsar, pytest.mark.slow]

TOKEN_PLUGIN = "org.apache.pulsar.client.impl.auth.AuthenticationToken"



def _client_conf(directory, cluster, token: str):
    """The client.conf an operator keeps for ``cluster``: Pulsar's layout, the token in a 0600 file."""
    directory.mkdir(parents=True, exist_ok=True)
    token_file = directory / "token.jwt"
    token_file.touch(mode=0o600)
    token_file.write_text(token + "\n")
    conf = directory / "client.conf"
    conf.write_text("# Configuration for pulsar-client and pulsar-admin CLI tools\n"
                    f"webServiceUrl={cluster.admin_url}/\n"
                    f"brokerServiceUrl={cluster.service_url}/\n"
                    f"authPlugin={TOKEN_PLUGIN}\n"
                    f"authParams=file://{token_file}\n"
                    "tlsAllowInsecureConnection=false\n"
                    "tlsEnableHostnameVerification=false\n"
                    "tlsTrustCertsFilePath=\n")
    return conf


@pytest.fixture(scope="module")
def secured(tmp_path_factory):
    """(local token-protected deployment, deployment file using client_conf only, the canary token)."""
    from pulsar_conformance.fixtures.deploy import start_local

    base = tmp_path_factory.mktemp("client-conf")
    with start_local(["blue", "green"], auth="token", heap_mb=384,
                     name=f"client-conf-{os.getpid()}-{uuid.uuid4().hex[:6]}") as deployment:
        canary = deployment.clusters["blue"].token
        config = vendor_file(base / "vendor.yaml", deployment,
                             lambda c: {"client_conf": _client_conf(base / c.name, c, c.token)})
        yield deployment, config, canary


def _assert_no_token(canary: str, *texts: str) -> None:
    signature = canary.rsplit(".", 1)[1]
    for text in texts:
        assert canary not in text and signature not in text


def test_clients_and_admin_work_through_the_client_conf(secured):
    from pulsar_conformance.fixtures.deploy.external import load_external

    local, config, canary = secured
    external = load_external(config)  # check=True: reachable, and the admin API takes the file's token
    blue = external.clusters["blue"]
    assert blue.token == canary and blue.service_url == local.clusters["blue"].service_url
    topic = f"persistent://public/default/client-conf-{uuid.uuid4().hex[:8]}"
    client = blue.client(operation_timeout_seconds=20)
    try:
        consumer = client.subscribe(topic, "s")
        client.create_producer(topic).send(b"through-client.conf")
        message = consumer.receive(timeout_millis=10_000)
        assert message.data() == b"through-client.conf"
        consumer.acknowledge(message)
    finally:
        client.close()
    assert "blue" in blue.admin().clusters()
    _assert_no_token(canary, repr(blue), json.dumps(external.to_json()), json.dumps(external.status()))


def test_plan_reads_the_client_conf(secured, tmp_path):
    _, config, canary = secured
    done = _cli("plan", "--deployment", str(config), "--profile", "smoke", "--json", state_dir=tmp_path)
    # 2: some requirement would be unknown (the file declares no fault command for the cut GEO-R02 needs):
    # this test is about reading the client.conf, which either answer shows
    assert done.returncode in (0, 2), done.stdout + done.stderr[-3000:]
    json.loads(done.stdout)
    _assert_no_token(canary, done.stdout, done.stderr)


def test_a_wrong_token_in_the_client_conf_is_refused_with_exit_64(secured, tmp_path):
    local, _, canary = secured
    wrong = canary[:-6] + "AAAAAA"
    conf = _client_conf(tmp_path / "wrong", local.clusters["blue"], wrong)
    config = tmp_path / "wrong.yaml"
    config.write_text(f"clusters:\n  blue:\n    client_conf: {conf}\n")
    done = _cli("up", "--backend", "external", "--config", str(config), "--json", state_dir=tmp_path / "s")
    assert done.returncode == errors.EXIT_BAD_INPUT, done.stdout + done.stderr
    assert "refused the credentials" in json.loads(done.stdout)["error"]
    _assert_no_token(wrong, done.stdout, done.stderr)


def test_a_smoke_certification_runs_through_the_client_conf(secured, tmp_path):
    """A verdict (pass, fail or unknown: an external deployment without fault commands leaves the outage
    scenarios unknown, as tests/reports/test_bundle.py expects), never bad input or a crash; the token
    nowhere in the output or the bundle."""
    _, config, canary = secured
    out = tmp_path / "bundle"
    # the spec checks only: the run still reads the brokers through the client.conf (their version,
    # with its token) and writes a whole bundle to search; the live scenarios' minutes buy nothing
    # more here (tests/security/test_canary.py certifies smoke live through a token already)
    done = _cli("certify", "--profile", "smoke", "--select", "test_spec_check", "--deployment", str(config),
                "--out", str(out), "--json", state_dir=tmp_path / "s")
    assert done.returncode in (errors.EXIT_PASS, errors.EXIT_FAIL, errors.EXIT_UNKNOWN), \
        done.stdout + done.stderr[-3000:]
    assert (out / "summary.json").is_file()
    _assert_no_token(canary, done.stdout, done.stderr)
    signature = canary.rsplit(".", 1)[1].encode()
    for path in out.rglob("*"):
        if path.is_file():
            data = path.read_bytes()
            assert canary.encode() not in data and signature not in data, path
