"""Canaries: credentials of every kind a deployment can carry appear in no output, log or bundle.

The live canary tests (tests/fixtures/test_external.py, tests/reports/test_bundle.py) cover a
JWT that works against real clusters; these cover what needs no cluster: a password in a URL,
an OAuth2 client secret in a credentials file, a private key file, each through the command
line's refusals and descriptions and through the bundle's last line of defence.
"""
from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from pulsar_conformance import errors

EXIT_BAD_INPUT = getattr(errors, "EXIT_BAD_INPUT", 2)
URL_PASSWORD = "UrlPasswordCanary-1b2c3d"
CLIENT_SECRET = "OAuth2ClientSecretCanary-4e5f6a"
KEY_BODY = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQCanaryKeyBody"
JWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJjYW5hcnkifQ.SignatureCanary-7a8b9c"
CANARIES = (URL_PASSWORD, CLIENT_SECRET, KEY_BODY, JWT, JWT.rsplit(".", 1)[1])


def _assert_no_canary(*texts: str | bytes) -> None:
    for text in texts:
        data = text.encode() if isinstance(text, str) else text
        for canary in CANARIES:
            assert canary.encode() not in data, f"{canary} leaked:\n{data[:3000]!r}"


@pytest.fixture
def credentials(tmp_path) -> SimpleNamespace:
    oauth2 = tmp_path / "oauth2.json"
    oauth2.write_text(json.dumps({"type": "client_credentials", "client_id": "conformance",
                                  "client_secret": CLIENT_SECRET, "issuer_url": "https://issuer.example.com"},
                                 indent=2))
    key = tmp_path / "client.key"
    key.write_text(f"-----BEGIN PRIVATE KEY-----\n{KEY_BODY}\n-----END PRIVATE KEY-----\n")
    key.chmod(0o600)
    jwt = tmp_path / "blue.jwt"
    jwt.write_text(JWT + "\n")
    return SimpleNamespace(oauth2=oauth2, key=key, jwt=jwt)


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PULSAR_CONFORMANCE_STATE_DIR": str(cwd / "state")}
    return subprocess.run([sys.executable, "-m", "pulsar_conformance", *args], capture_output=True, text=True,
                          timeout=300, env=env, cwd=cwd, stdin=subprocess.DEVNULL)


def _closed_port() -> socket.socket:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))  # bound, never listening: refused at once
    return sock


def _documents(port: int, credentials) -> dict[str, str]:
    urls = f"    service_url: pulsar://127.0.0.1:{port}\n    admin_url: http://127.0.0.1:{port}\n"
    return {
        "url password": (f"clusters:\n  blue:\n    service_url: pulsar://127.0.0.1:{port}\n"
                         f"    admin_url: http://admin:{URL_PASSWORD}@127.0.0.1:{port}\n"),
        "url password and token": (f"clusters:\n  blue:\n    service_url: pulsar://127.0.0.1:{port}\n"
                                   f"    admin_url: http://admin:{URL_PASSWORD}@127.0.0.1:{port}\n"
                                   f"    token_file: {credentials.jwt}\n"),
        "url password in service_url": (f"clusters:\n  blue:\n    service_url: pulsar://u:{URL_PASSWORD}@h:{port}\n"
                                        f"    admin_url: http://127.0.0.1:{port}\n"),
        "oauth2 credentials as the token": f"clusters:\n  blue:\n{urls}    token_file: {credentials.oauth2}\n",
        "key file as the token": f"clusters:\n  blue:\n{urls}    token_file: {credentials.key}\n",
        "token with a line break": f'clusters:\n  blue:\n{urls}    token: "{JWT}\\n{JWT}"\n',
        "unknown oauth2 fields": (f"clusters:\n  blue:\n{urls}    client_secret: {CLIENT_SECRET}\n"
                                  f"    private_key: file://{credentials.key}\n"),
        "duplicate token": f"clusters:\n  blue:\n{urls}    token: {JWT}\n    token: {JWT}x\n",
        "bad YAML after a token": f"clusters:\n  blue:\n{urls}    token: {JWT}\n    : [\n",
        "token pasted into token_env": f"clusters:\n  blue:\n{urls}    token_env: {JWT}\n",
        "token reaches an unreachable cluster": f"clusters:\n  blue:\n{urls}    token_file: {credentials.jwt}\n",
    }


def test_no_refusal_of_a_deployment_file_prints_a_credential(tmp_path, credentials):
    with _closed_port() as closed:
        port = closed.getsockname()[1]
        for index, (name, text) in enumerate(_documents(port, credentials).items()):
            config = tmp_path / f"{name.replace(' ', '-')}.yaml"
            config.write_text(text)
            modes = [["--json"], []] if index < 3 else [["--json"]]  # the text renderer: a few suffice
            for mode in modes:
                args = ["up", "--backend", "external", "--config", str(config), *mode]
                done = _cli(*args, cwd=tmp_path)
                assert done.returncode == EXIT_BAD_INPUT, (name, done.stdout, done.stderr)
                assert "Traceback" not in done.stderr, (name, done.stderr)
                _assert_no_canary(done.stdout, done.stderr)


def test_descriptions_of_a_basic_auth_deployment_mask_the_password(tmp_path):
    with _closed_port() as closed:
        port = closed.getsockname()[1]
        config = tmp_path / "basic.yaml"
        config.write_text(f"clusters:\n  blue:\n    service_url: pulsar://127.0.0.1:{port}\n"
                          f"    admin_url: http://admin:{URL_PASSWORD}@127.0.0.1:{port}\n")
        for args in (["status", "--config", str(config), "--json"], ["status", "--config", str(config)]):
            done = _cli(*args, cwd=tmp_path)
            assert "Traceback" not in done.stderr, done.stderr
            assert "127.0.0.1" in done.stdout + done.stderr  # the description is there, without the password
            _assert_no_canary(done.stdout, done.stderr)


def test_certify_refuses_before_the_run_without_printing_a_credential(tmp_path, credentials):
    with _closed_port() as closed:
        port = closed.getsockname()[1]
        config = tmp_path / "vendor.yaml"
        config.write_text(_documents(port, credentials)["url password"])
        out = tmp_path / "bundle"
        done = _cli("certify", "--profile", "smoke", "--deployment", str(config), "--out", str(out), "--json",
                    cwd=tmp_path)
    assert done.returncode == EXIT_BAD_INPUT, done.stdout + done.stderr
    _assert_no_canary(done.stdout, done.stderr)
    for path in (out.rglob("*") if out.exists() else ()):
        if path.is_file():
            _assert_no_canary(path.read_bytes())


def test_the_bundle_scan_masks_every_kind_of_credential(tmp_path, credentials):
    """What the bundle calls (reports/runner/identity.secrets and redact_tree) must know URL passwords,
    OAuth2 secrets and key files, not only token/token_file/token_env."""
    from pulsar_conformance.reports.runner import identity

    config = tmp_path / "vendor.yaml"
    config.write_text("clusters:\n"
                      f"  blue:\n    service_url: pulsar://h:6650\n    admin_url: http://admin:{URL_PASSWORD}@h:8080\n"
                      f"  green:\n    service_url: pulsar://h:6650\n    admin_url: http://h:8080\n"
                      f"    token_file: {credentials.jwt}\n"
                      f"auth:\n  type: oauth2\n  private_key: file://{credentials.oauth2}\n"
                      f"  tls_key_file: {credentials.key}\n")
    out = tmp_path / "bundle"
    (out / "logs").mkdir(parents=True)
    # Files a careless part of the suite or a broker could have written into the bundle.
    (out / "logs" / "broker.log").write_text(
        f"GET http://admin:{URL_PASSWORD}@h:8080/admin/v2/clusters -> 500\n"
        f"auth params {{\"client_secret\": \"{CLIENT_SECRET}\"}}\nkey line {KEY_BODY}\nBearer {JWT}\n")
    (out / "summary.json").write_text(json.dumps({"deployment": {"admin_url": f"http://x:{URL_PASSWORD}@h"},
                                                  "jwt": JWT}))
    (out / "capture.parquet").write_bytes(b"PAR1\x00" + CLIENT_SECRET.encode() + b"\x00" + KEY_BODY.encode())
    deployment = SimpleNamespace(backend="external", file=str(config))
    touched = identity.redact_tree(out, identity.secrets(deployment))
    assert sorted(touched) == ["capture.parquet", "logs/broker.log", "summary.json"]
    for path in out.rglob("*"):
        if path.is_file():
            _assert_no_canary(path.read_bytes())


# client.conf (issue 32) ---------------------------------------------------------------------------------
TOKEN_PLUGIN = "org.apache.pulsar.client.impl.auth.AuthenticationToken"
OAUTH2_PLUGIN = "org.apache.pulsar.client.impl.auth.oauth2.AuthenticationOAuth2"


def _client_confs(port: int, credentials) -> dict[str, str]:
    """client.conf texts the suite refuses, each carrying a canary credential somewhere."""
    urls = f"webServiceUrl=http://127.0.0.1:{port}/\nbrokerServiceUrl=pulsar://127.0.0.1:{port}/\n"
    return {
        "inline token, unreachable": f"{urls}authPlugin={TOKEN_PLUGIN}\nauthParams=token:{JWT}\n",
        "token file, unreachable": f"{urls}authPlugin={TOKEN_PLUGIN}\nauthParams=file://{credentials.jwt}\n",
        "json token, unreachable": f"{urls}authPlugin={TOKEN_PLUGIN}\nauthParams={{\"token\": \"{JWT}\"}}\n",
        "token then an unknown plugin": f"{urls}authParams=token:{JWT}\nauthPlugin=com.example.Auth\n",
        "token then insecure": f"{urls}authPlugin={TOKEN_PLUGIN}\nauthParams=token:{JWT}\ntlsAllowInsecureConnection=true\n",
        "a pasted token on its own line": f"{urls}authPlugin={TOKEN_PLUGIN}\nauthParams=\n{JWT}\n",
        "token with a malformed escape": f"{urls}authPlugin={TOKEN_PLUGIN}\nauthParams=token:{JWT}\\u12\n",
        "oauth2 key file as a token": f"{urls}authPlugin={TOKEN_PLUGIN}\nauthParams=file://{credentials.oauth2}\n",
        "oauth2 inline key": (f"{urls}authPlugin={OAUTH2_PLUGIN}\nauthParams={{\"issuerUrl\":\"https://i\","
                              f"\"privateKey\":\"data:application/json,{CLIENT_SECRET}\"}}\n"),
        "oauth2 not json": f"{urls}authPlugin={OAUTH2_PLUGIN}\nauthParams=privateKey:{CLIENT_SECRET}\n",
        "mutual TLS key": (f"{urls}authPlugin=org.apache.pulsar.client.impl.auth.AuthenticationTls\n"
                           f"authParams=tlsCertFile:/c.pem,tlsKeyFile:{credentials.key}\n"),
        "url password in webServiceUrl": (f"webServiceUrl=http://admin:{URL_PASSWORD}@127.0.0.1:{port}/\n"
                                          f"brokerServiceUrl=pulsar://127.0.0.1:{port}\nauthPlugin={TOKEN_PLUGIN}\n"
                                          f"authParams=token:{JWT}\n"),
    }


def test_no_refusal_of_a_client_conf_prints_a_credential(tmp_path, credentials):
    with _closed_port() as closed:
        port = closed.getsockname()[1]
        for index, (name, text) in enumerate(_client_confs(port, credentials).items()):
            conf = tmp_path / f"{name.replace(' ', '-')}.conf"
            conf.write_text(text)
            config = tmp_path / f"{name.replace(' ', '-')}.yaml"
            config.write_text(f"clusters:\n  blue:\n    client_conf: {conf}\n")
            for mode in ([["--json"], []] if index < 2 else [["--json"]]):
                done = _cli("up", "--backend", "external", "--config", str(config), *mode, cwd=tmp_path)
                assert done.returncode == EXIT_BAD_INPUT, (name, done.stdout, done.stderr)
                assert "Traceback" not in done.stderr, (name, done.stderr)
                _assert_no_canary(done.stdout, done.stderr)


def test_descriptions_of_a_client_conf_deployment_hold_no_credential(tmp_path, credentials):
    from pulsar_conformance.fixtures.deploy.external import load_external

    with _closed_port() as closed:
        port = closed.getsockname()[1]
        conf = tmp_path / "client.conf"
        conf.write_text(_client_confs(port, credentials)["inline token, unreachable"])
        config = tmp_path / "vendor.yaml"
        config.write_text(f"clusters:\n  blue:\n    client_conf: {conf}\n")
        deployment = load_external(config, check=False)
        texts = [repr(deployment.clusters["blue"]), json.dumps(deployment.to_json())]
        for args in (["status", "--config", str(config), "--json"], ["status", "--config", str(config)]):
            done = _cli(*args, cwd=tmp_path)
            assert "Traceback" not in done.stderr, done.stderr
            if "--json" in args:  # the description names the file, not its secrets
                assert "client.conf" in done.stdout, done.stdout
            texts += [done.stdout, done.stderr]
    assert deployment.clusters["blue"].token == JWT  # it was read, and used in no text
    assert JWT in deployment.runner.secrets  # fault commands' output is masked with it
    _assert_no_canary(*texts)


def test_client_conf_secrets_lists_every_credential_it_gives(tmp_path, credentials):
    """What the bundle scan needs from a client.conf (fixtures/deploy/client_conf.secrets)."""
    from pulsar_conformance.fixtures.deploy import client_conf

    confs = _client_confs(6650, credentials)
    for name, needle in (("inline token, unreachable", JWT), ("token file, unreachable", JWT),
                         ("json token, unreachable", JWT), ("oauth2 key file as a token", CLIENT_SECRET),
                         ("oauth2 inline key", CLIENT_SECRET), ("mutual TLS key", KEY_BODY)):
        conf = tmp_path / "c.conf"
        conf.write_text(confs[name])
        assert needle in client_conf.secrets(str(conf)), name


def test_the_bundle_scan_masks_a_client_confs_credentials(tmp_path, credentials):
    from pulsar_conformance.reports.runner import identity

    conf = tmp_path / "client.conf"
    conf.write_text(_client_confs(6650, credentials)["inline token, unreachable"])
    config = tmp_path / "vendor.yaml"
    config.write_text(f"clusters:\n  blue:\n    client_conf: {conf}\n")
    out = tmp_path / "bundle"
    (out / "logs").mkdir(parents=True)
    (out / "logs" / "broker.log").write_text(f"Bearer {JWT}\n")
    identity.redact_tree(out, identity.secrets(SimpleNamespace(backend="external", file=str(config))))
    _assert_no_canary((out / "logs" / "broker.log").read_bytes())
