"""OAuth2 client credentials (issue 32) against the suite's local issuer, and a real broker.

Offline: the issuer speaks the two requests the clients make, refuses per RFC 6749 and keeps no secret
in its evidence. Live: a token-protected broker accepts the Python client and the admin calls with
tokens the issuer signed from client credentials, and refuses them with a wrong secret.
"""
from __future__ import annotations

import json
import stat
import uuid

import pytest
import requests

from pulsar_conformance.errors import UsageError
from pulsar_conformance.fixtures.deploy import oauth2
from pulsar_conformance.fixtures.deploy.oauth2 import LocalIssuer, TokenRefused, fetch_token

SECRET = "OAuth2SecretCanary-9d8e7f"
AUDIENCE = "urn:pulsar:conformance"


@pytest.fixture
def issuer():
    with LocalIssuer(b"k" * 32, {"app": (SECRET, "app-role")}, audience=AUDIENCE) as running:
        yield running


def _claims(token: str) -> dict:
    import base64

    payload = token.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))


def test_the_issuer_answers_the_clients_two_requests(issuer):
    token, lifetime = fetch_token(issuer.credentials("app"))
    claims = _claims(token)
    assert claims["sub"] == "app-role" and claims["aud"] == AUDIENCE and claims["iss"] == issuer.url
    assert claims["exp"] - claims["iat"] == lifetime == 300
    # discovery, then the token; the Java client's RFC 8414 path is served too
    assert [(r.method, r.status) for r in issuer.requests] == [("GET", 200), ("POST", 200)]
    assert requests.get(issuer.url + oauth2.WELL_KNOWN_RFC8414, timeout=5).json()["token_endpoint"].endswith(
        oauth2.TOKEN_PATH)


def test_refusals_follow_rfc6749_and_never_echo_the_secret(issuer):
    wrong = SECRET[:-3] + "xyz"
    with pytest.raises(TokenRefused) as refused:
        fetch_token(issuer.credentials("app", secret=wrong))
    assert "401 invalid_client" in str(refused.value) and wrong not in str(refused.value)
    with pytest.raises(TokenRefused, match="invalid_client"):
        fetch_token(oauth2.ClientCredentials(issuer.url, "nobody", SECRET, audience=AUDIENCE))
    with pytest.raises(TokenRefused, match="400 invalid_request"):
        fetch_token(oauth2.ClientCredentials(issuer.url, "app", SECRET, audience="urn:other"))
    grant = requests.post(issuer.url + oauth2.TOKEN_PATH, data={"grant_type": "password"}, timeout=5)
    assert grant.status_code == 400 and grant.json() == {"error": "unsupported_grant_type"}
    with pytest.raises(TokenRefused, match="could not be reached"):
        fetch_token(oauth2.ClientCredentials("http://127.0.0.1:9", "app", SECRET))


def test_no_secret_or_token_in_evidence_reprs_or_files(issuer, tmp_path):
    credentials = issuer.credentials("app")
    token, _ = fetch_token(credentials)
    evidence = repr(issuer.requests) + repr(credentials) + json.dumps([vars(r) for r in issuer.requests])
    assert SECRET not in evidence and token not in evidence
    assert oauth2.fingerprint(token) in evidence  # what the evidence keeps instead
    path = credentials.write_file(tmp_path / "creds.json")
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert SECRET not in credentials.python_params(path)  # the secret reaches the client by file only


def test_java_style_parameters_are_translated_or_refused():
    params = {"type": "client_credentials", "issuerUrl": "https://idp", "privateKey": "file:///c.json",
              "audience": "urn:a"}
    assert oauth2.from_java_params(params) == {"issuer_url": "https://idp", "private_key": "file:///c.json",
                                               "audience": "urn:a"}
    with pytest.raises(UsageError, match="not understood"):
        oauth2.from_java_params({**params, "tokenEndpoint": "x"})
    with pytest.raises(UsageError, match="not supported"):
        oauth2.from_java_params({**params, "type": "authorization_code"})


def test_an_issuer_needs_a_client():
    with pytest.raises(UsageError, match="no client"):
        LocalIssuer(b"k" * 32, {})


@pytest.fixture(scope="module")
def secured():
    from pulsar_conformance.fixtures.deploy import start_local

    with start_local(["oauth"], auth="token", heap_mb=384) as deployment:
        yield deployment


def test_a_token_protected_broker_accepts_oauth2_clients_and_refuses_a_wrong_secret(secured, tmp_path):
    import pulsar

    cluster = secured.clusters["oauth"]
    secret_key = (secured.home / "auth" / "secret.key").read_bytes()  # the brokers' tokenSecretKey
    with LocalIssuer(secret_key, {"app": (SECRET, "app-role")}, audience=AUDIENCE) as issuer:
        good = issuer.credentials("app")
        client = pulsar.Client(cluster.service_url, authentication=good.python_auth(good.write_file(
            tmp_path / "good.json")), operation_timeout_seconds=20,
            logger=pulsar.ConsoleLogger(pulsar.LoggerLevel.Warn))
        topic = f"persistent://public/default/oauth2-{uuid.uuid4().hex[:8]}"
        try:
            consumer = client.subscribe(topic, "s")
            producer = client.create_producer(topic)
            sent = [f"m{i}".encode() for i in range(5)]
            for body in sent:
                producer.send(body)
            got = []
            for _ in sent:
                message = consumer.receive(timeout_millis=10_000)
                got.append(message.data())
                consumer.acknowledge(message)
            assert got == sent
        finally:
            client.close()
        assert [r.status for r in issuer.requests if r.method == "POST"][:1] == [200]  # the client asked the issuer

        # admin calls with a token from the same credentials
        token, _ = fetch_token(good)
        admin = type(cluster.admin())(cluster.admin_url, token=token)
        assert "oauth" in admin.request("GET", "/admin/v2/clusters")
        assert requests.get(cluster.admin_url + "/admin/v2/clusters", timeout=10).status_code == 401

        bad = issuer.credentials("app", secret=SECRET[:-3] + "xyz")
        refused = pulsar.Client(cluster.service_url, authentication=bad.python_auth(bad.write_file(
            tmp_path / "bad.json")), operation_timeout_seconds=5,
            logger=pulsar.ConsoleLogger(pulsar.LoggerLevel.Warn))
        try:
            with pytest.raises(Exception) as failed:  # the C++ client names it AuthenticationError or a timeout
                refused.create_producer(topic)
            assert SECRET not in str(failed.value)
        finally:
            refused.close()
        assert any(r.status == 401 for r in issuer.requests)
