"""What the suite's Java client programs share (conformance/harness/java_process.py), offline: the
credentials they are handed by environment for each kind a cluster can carry, and their event lines
turned into capture rows (a kind the capture has no row for is an error, never a row)."""
from __future__ import annotations

import json
from types import SimpleNamespace

from pulsar_conformance.conformance.harness import java_process
from pulsar_conformance.fixtures.deploy.base import Cluster
from pulsar_conformance.fixtures.deploy.oauth2 import ClientCredentials

TOKEN = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.JavaProcessCanary-41"


def _cluster(**kw) -> Cluster:
    return Cluster(name="blue", service_url="pulsar+ssl://127.0.0.1:6651", admin_url="https://127.0.0.1:8443", **kw)


def test_each_kind_of_credentials_reaches_the_java_program_by_environment(tmp_path):
    env = java_process.auth_environment(_cluster(token=TOKEN, trust_certs="/ca.pem"))
    assert env == {"PULSAR_CONFORMANCE_HARNESS_AUTH_PLUGIN": "org.apache.pulsar.client.impl.auth.AuthenticationToken",
                   "PULSAR_CONFORMANCE_HARNESS_AUTH_PARAMS": f"token:{TOKEN}",
                   "PULSAR_CONFORMANCE_HARNESS_TRUST_CERTS": "/ca.pem"}
    tls = java_process.auth_environment(_cluster(tls_cert="/c.pem", tls_key="/k.pem"))
    assert tls["PULSAR_CONFORMANCE_HARNESS_AUTH_PARAMS"] == "tlsCertFile:/c.pem,tlsKeyFile:/k.pem"
    creds = ClientCredentials("https://idp.example.com", "app", "OAuth2SecretStaysInTheFile", audience="urn:a")
    oauth = java_process.auth_environment(_cluster(oauth2=creds, oauth2_file=str(tmp_path / "c.json")))
    params = json.loads(oauth["PULSAR_CONFORMANCE_HARNESS_AUTH_PARAMS"])
    assert params == {"type": "client_credentials", "issuerUrl": "https://idp.example.com",
                      "privateKey": f"file://{tmp_path / 'c.json'}", "audience": "urn:a"}
    assert "OAuth2SecretStaysInTheFile" not in json.dumps(oauth)
    assert java_process.auth_environment(_cluster()) == {}
    # what the caller decided wins (the failover scenario's per-cluster tokens; () for none)
    assert java_process.auth_environment(_cluster(token=TOKEN), ()) == {}


def test_events_become_capture_rows_and_other_kinds_errors(tmp_path):
    events = tmp_path / "events.jsonl"
    url = "pulsar://127.0.0.1:6650"
    lines = [
        {"ts_ns": 1, "kind": "receive", "client": "c-b", "url": url, "uid": "p-a/7", "key": "k7",
         "msg_id": "12:6:-1:-1", "redelivery_count": 1, "error": None},
        {"ts_ns": 2, "kind": "ack", "client": "c-b", "url": url, "uid": "p-a/7", "key": "k7",
         "msg_id": "12:6:-1:-1", "redelivery_count": None, "error": None},
        {"ts_ns": 3, "kind": "ack_error", "client": "c-b", "url": url, "uid": "p-a/8", "key": "k0",
         "msg_id": "12:7:-1:-1", "redelivery_count": None, "error": "AlreadyClosed"},
    ]
    events.write_text("".join(json.dumps(e) + "\n" for e in lines))
    rows = []
    capture = SimpleNamespace(run_id="r1", writer=SimpleNamespace(append=rows.append))
    errors = java_process.append_events(capture, events, "persistent://t/ns/orders", "sub", lambda _u: "green")
    assert errors == ["ack_error: AlreadyClosed"]
    assert rows == [("r1", 1, "c-b", "green", "persistent://t/ns/orders", "sub", "receive", "p-a/7", "p-a", 7, "k7",
                     "12:6:-1:-1", 1),
                    ("r1", 2, "c-b", "green", "persistent://t/ns/orders", "sub", "ack", "p-a/7", "p-a", 7, "k7",
                     "12:6:-1:-1", None)]
    assert java_process.append_events(capture, tmp_path / "none.jsonl", "t", "sub", str) == []


def test_the_client_log_prints_slog_attributes_masked_like_the_message(tmp_path):
    # Pulsar 5's client logs a topic or producer name as slog attributes (the event's context data), not in
    # the message; they are printed after it, and a token among them is masked as one in the message is
    # (checked against log4j 2.25.4: "with attrs {conf=token:***, topic=persistent://a/b/c}")
    import xml.etree.ElementTree as ET

    from pulsar_conformance.conformance.harness.java_process import log4j_config

    (tmp_path / "log4j2.xml").write_text(log4j_config(tmp_path / "client.log", ("AutoClusterFailover",)))
    pattern = ET.parse(tmp_path / "log4j2.xml").getroot().find("./Appenders/File/PatternLayout").get("pattern")
    assert "%replace{%m%notEmpty{ %X}}{token:[A-Za-z0-9._~+/=-]+}{token:***}" in pattern
