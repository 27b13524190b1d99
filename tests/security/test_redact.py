"""pulsar_conformance.redact: what a URL or a deployment document carries never reaches output.

Each canary is a value that must be masked wherever it goes; the tests need no cluster.
"""
from __future__ import annotations

import json

import pytest

from pulsar_conformance.redact import (
    MASK,
    document_secrets,
    file_secrets,
    redact_text,
    redact_tree,
    redact_url,
    url_secrets,
)

CANARY = "CanarySecret-7f3a9c"


@pytest.mark.parametrize("url", [
    f"http://admin:{CANARY}@127.0.0.1:1",
    f"https://{CANARY}@broker.example.com:8443/admin",
    f"pulsar+ssl://user:{CANARY}@h:6651",
    f"http://u:{CANARY}@[::1:80",             # urllib raises ValueError on it
    f"http://admin:12/{CANARY}@h:8080",       # a raw '/' in the password: urllib misreads the host
    f"https://h/x?token={CANARY}&a=1",
    f"https://h/x?a=1&client_secret={CANARY}",
    f"https://h/x#access_token={CANARY}",
    f"https://h/x?Private-Key={CANARY}",
])
def test_redact_url_masks_userinfo_and_secret_parameters(url):
    redacted = redact_url(url)
    assert CANARY not in redacted and MASK in redacted


@pytest.mark.parametrize("url", [
    "http://127.0.0.1:8080/admin/v2/clusters", "pulsar+ssl://h:6651", "https://h/x?a=1&tenant=t",
    "persistent://tenant/ns/topic",
])
def test_redact_url_leaves_a_url_without_credentials_alone(url):
    assert redact_url(url) == url


def test_redact_text_masks_every_url_in_prose_and_given_secrets():
    text = (f"GET http://admin:{CANARY}@127.0.0.1:1/admin/v2/clusters -> no answer; "
            f"'pulsar://x:{CANARY}@h:6650' and a bare {CANARY}2")
    redacted = redact_text(text, secrets=[f"{CANARY}2"])
    assert CANARY not in redacted
    assert "127.0.0.1:1/admin/v2/clusters" in redacted  # where it went is still said


def test_url_secrets_lists_the_password_decoded_and_raw():
    found = url_secrets("http://admin:pa%2Fss-word-1@h/?token=tok-value-12")
    assert {"pa%2Fss-word-1", "pa/ss-word-1", "tok-value-12"} <= set(found)


def test_document_secrets_covers_inline_files_env_urls_and_oauth2(tmp_path):
    token_file = tmp_path / "blue.jwt"
    token_file.write_text("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJibHVlIn0.file-signature-123\n")
    credentials = tmp_path / "oauth2.json"
    credentials.write_text(json.dumps({"type": "client_credentials", "client_id": "conformance",
                                       "client_secret": "oauth2-client-secret-canary"}))
    key = tmp_path / "client.key"
    key.write_text("-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQ\n"
                   "-----END PRIVATE KEY-----\n")
    document = {"clusters": {
        "blue": {"admin_url": "http://admin:url-password-canary@h:8080", "token_file": str(token_file)},
        "green": {"token": "inline-token-canary", "token_env": "GREEN_TOKEN"},
        "red": {"auth": {"type": "oauth2", "private_key": f"file://{credentials}",
                         "issuer_url": "https://issuer.example.com"},
                "tls_key_file": str(key), "java_env": "JAVA_HOME"},
    }}
    found = document_secrets(document, environ={"GREEN_TOKEN": "env-token-canary", "JAVA_HOME": "/usr/lib/jvm/x"})
    for secret in ("url-password-canary", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJibHVlIn0.file-signature-123",
                   "inline-token-canary", "env-token-canary", "oauth2-client-secret-canary",
                   "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQ"):
        assert secret in found, secret
    # not credentials: a JDK path, an issuer URL, the paths of the files
    assert "/usr/lib/jvm/x" not in found and "https://issuer.example.com" not in found
    assert str(key) not in found and str(credentials) not in found


def test_file_secrets_of_a_missing_or_huge_file_is_nothing(tmp_path):
    assert file_secrets(str(tmp_path / "nope")) == []
    assert file_secrets(str(tmp_path)) == []


def test_redact_tree_masks_secrets_and_url_credentials_in_every_file(tmp_path):
    (tmp_path / "logs").mkdir()
    (tmp_path / "logs" / "broker.log").write_text(f"connecting to http://u:{CANARY}@h:8080\n")
    (tmp_path / "summary.json").write_text(json.dumps({"token": "inline-token-canary"}))
    (tmp_path / "data.bin").write_bytes(b"\x00\xffinline-token-canary\x00")
    (tmp_path / "clean.txt").write_text("nothing here http://h:8080/admin\n")
    touched = redact_tree(tmp_path, ["inline-token-canary"])
    assert sorted(touched) == ["data.bin", "logs/broker.log", "summary.json"]
    for path in tmp_path.rglob("*"):
        if path.is_file():
            data = path.read_bytes()
            assert CANARY.encode() not in data and b"inline-token-canary" not in data


def test_urls_the_suite_prints_or_hands_on_carry_no_password():
    from pulsar_conformance.fixtures.deploy.admin import Admin, AdminError
    from pulsar_conformance.fixtures.deploy.base import Cluster
    from pulsar_conformance.redact import without_userinfo

    url = "http://admin:S3cretCanary42@127.0.0.1:1"
    assert "S3cretCanary42" not in str(AdminError("GET", url + "/admin/v2/clusters", 401, f"bad {url}"))
    assert "S3cretCanary42" not in repr(Admin(url))
    assert "S3cretCanary42" not in repr(Cluster("blue", "pulsar://127.0.0.1:6650", url))
    assert without_userinfo(url) == "http://127.0.0.1:1"
    assert without_userinfo("http://127.0.0.1:1/x") == "http://127.0.0.1:1/x"
