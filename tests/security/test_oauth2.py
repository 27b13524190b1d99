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


def test_admin_tokens_are_fetched_once_while_fresh(issuer, monkeypatch):
    credentials = issuer.credentials("app")
    first = oauth2.bearer(credentials)
    assert oauth2.bearer(credentials) == first
    assert [r.method for r in issuer.requests].count("POST") == 1  # one token for both admin calls
    monkeypatch.setattr(oauth2, "_REFRESH_AT", 0.0)  # past 80 % of its life: fetched again
    oauth2._TOKENS.clear()
    oauth2.bearer(credentials)
    oauth2.bearer(credentials)
    assert [r.method for r in issuer.requests].count("POST") == 3


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


def _deployment_file(tmp_path, cluster, oauth2: dict, extra: str = "") -> str:
    import yaml

    doc = {"clusters": {cluster.name: {"service_url": cluster.service_url, "admin_url": cluster.admin_url,
                                       "oauth2": oauth2}}}
    path = tmp_path / "external.yaml"
    path.write_text(yaml.safe_dump(doc) + extra)
    return str(path)


def test_an_external_deployment_with_oauth2_credentials_certifies_through_the_issuer(secured, tmp_path):
    from pulsar_conformance.fixtures.deploy.external import load_external

    cluster = secured.clusters["oauth"]
    secret_key = (secured.home / "auth" / "secret.key").read_bytes()
    with LocalIssuer(secret_key, {"vendor": (SECRET, "vendor-role")}, audience=AUDIENCE) as issuer:
        creds = issuer.credentials("vendor").write_file(tmp_path / "vendor.json")
        external = load_external(_deployment_file(tmp_path, cluster, {
            "issuer_url": issuer.url + "/", "credentials_file": str(creds), "audience": AUDIENCE}))  # checks admin
        seen = external.clusters["oauth"]
        assert seen.to_json()["auth"] == "oauth2"
        topic = f"persistent://public/default/ext-oauth2-{uuid.uuid4().hex[:8]}"
        client = seen.client(operation_timeout_seconds=20)
        try:
            producer = client.create_producer(topic)
            producer.send(b"through-oauth2")
        finally:
            client.close()
        assert seen.admin().request("GET", f"/admin/v2/persistent/public/default/{topic.rsplit('/', 1)[1]}/stats")
        public = json.dumps(external.to_json()) + json.dumps(external.status()) + repr(seen)
        assert SECRET not in public and "vendor-role" not in public
        assert {r.client_id for r in issuer.requests if r.method == "POST"} == {"vendor"}


def test_the_java_client_runs_the_client_credentials_flow_too(secured, tmp_path):
    """The Java client (Harness.java) handed AuthenticationOAuth2 by environment, its secret left in the
    credentials file: it asks the issuer itself, then sends and receives; the secret is in no file it wrote."""
    from pulsar_conformance.fixtures.deploy.external import load_external

    from ..support.java_traffic import java_traffic

    cluster = secured.clusters["oauth"]
    secret_key = (secured.home / "auth" / "secret.key").read_bytes()
    with LocalIssuer(secret_key, {"java": (SECRET, "java-role")}, audience=AUDIENCE) as issuer:
        creds = issuer.credentials("java").write_file(tmp_path / "java.json")
        external = load_external(_deployment_file(tmp_path, cluster, {
            "issuer_url": issuer.url + "/", "credentials_file": str(creds), "audience": AUDIENCE}))
        admin_posts = sum(1 for r in issuer.requests if r.method == "POST")
        kinds = java_traffic(external.clusters["oauth"], tmp_path / "java",
                             f"persistent://public/default/java-oauth2-{uuid.uuid4().hex[:8]}")
        assert kinds[None] is None and kinds["send_ok"] > 0 and kinds["receive"] >= kinds["send_ok"], kinds
        # the Java client's own token request (RFC 8414 discovery, then the token endpoint)
        assert sum(1 for r in issuer.requests if r.method == "POST" and r.status == 200) > admin_posts
    for path in (tmp_path / "java").rglob("*"):
        assert SECRET not in path.read_text(errors="replace"), path


@pytest.mark.parametrize("oauth2, problem", [
    ("yes", "is not a mapping"),
    ({"issuer_url": "https://idp", "credentials_file": "/nonexistent/c.json"}, "does not exist"),
    ({"issuer_url": "ftp://idp", "credentials_file": "CREDS"}, "oauth2.issuer_url"),
    ({"issuer_url": "https://idp", "credentials_file": "CREDS", "secret": "x"}, "unknown field"),
    ({"issuer_url": "https://idp", "credentials_file": "NOT_JSON"}, "client_id and client_secret"),
    ({"issuer_url": "https://idp", "credentials_file": "CREDS", "audience": 3}, "audience must be a string"),
])
def test_bad_oauth2_blocks_are_refused_naming_the_field(tmp_path, oauth2, problem):
    from types import SimpleNamespace

    from pulsar_conformance.fixtures.deploy.external import load_external

    good = tmp_path / "c.json"
    good.write_text(json.dumps({"client_id": "a", "client_secret": SECRET}))
    bad = tmp_path / "bad.json"
    bad.write_text("client_secret=" + SECRET)
    if isinstance(oauth2, dict):
        oauth2 = {k: {"CREDS": str(good), "NOT_JSON": str(bad)}.get(v, v) if isinstance(v, str) else v
                  for k, v in oauth2.items()}
    cluster = SimpleNamespace(name="c1", service_url="pulsar://127.0.0.1:6650", admin_url="http://127.0.0.1:8080")
    with pytest.raises(UsageError) as refused:
        load_external(_deployment_file(tmp_path, cluster, oauth2), check=False)
    assert problem in str(refused.value) and SECRET not in str(refused.value)


def test_a_token_and_oauth2_together_are_refused(tmp_path):
    from types import SimpleNamespace

    from pulsar_conformance.fixtures.deploy.external import load_external

    creds = tmp_path / "c.json"
    creds.write_text(json.dumps({"client_id": "a", "client_secret": SECRET}))
    cluster = SimpleNamespace(name="c1", service_url="pulsar://127.0.0.1:6650", admin_url="http://127.0.0.1:8080")
    path = _deployment_file(tmp_path, cluster, {"issuer_url": "https://idp", "credentials_file": str(creds)})
    text = open(path).read().replace("    oauth2:", "    token: a.b.c\n    oauth2:")
    open(path, "w").write(text)
    with pytest.raises(UsageError, match="both a token and oauth2"):
        load_external(path, check=False)
