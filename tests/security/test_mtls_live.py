"""Live: mutual TLS (issue 32). Clusters whose brokers authenticate clients by certificate stand in
for a vendor's: the suite's local clusters with ``auth="mtls"`` (fixtures/deploy/tls.py: the
brokers' AuthenticationProviderTls takes the certificate's CN as the role, an untrusted certificate
fails the handshake, a plain connection carries no certificate).

One cluster is described with ``tls_cert_file``/``tls_key_file`` in the deployment file, the other by
the client.conf pulsar-admin reads (``authPlugin=...AuthenticationTls``). The Python client, the admin
calls and the brokers' own replicators must all present their certificate; a certificate of another
authority is refused with exit 64 before anything runs; a certification runs through it, and the
client key appears in no output or bundle file.

Run (starts two brokers, then a certification of the spec checks):
    .venv/bin/pytest -x -q tests/security/test_mtls_live.py
"""
from __future__ import annotations

import json
import os
import uuid

import pytest

from pulsar_conformance import errors

from ..support.cli import run_cli as _cli
from ..support.java_traffic import java_traffic
from ..support.vendor import vendor_file

pytestmark = [pytest.mark.pulsar, pytest.mark.slow]

TLS_PLUGIN = "org.apache.pulsar.client.impl.auth.AuthenticationTls"



def _key_lines(path) -> list[str]:
    return [line for line in open(path).read().splitlines() if line and not line.startswith("-----")]


@pytest.fixture(scope="module")
def mutual(tmp_path_factory):
    """(local mutual-TLS deployment, deployment file: blue by tls_cert_file, green by client.conf)."""
    from pulsar_conformance.fixtures.deploy import start_local

    base = tmp_path_factory.mktemp("mtls")
    with start_local(["blue", "green"], auth="mtls", heap_mb=384,
                     name=f"mtls-{os.getpid()}-{uuid.uuid4().hex[:6]}") as deployment:
        tls = deployment.record["tls"]

        def entry(cluster):
            common = {"service_url": cluster.service_url, "admin_url": cluster.admin_url, "tls_trust_certs": tls["ca"]}
            if cluster.name == "blue":
                return {**common, "tls_cert_file": tls["client_cert"], "tls_key_file": tls["client_key"]}
            conf = base / "green.client.conf"
            conf.write_text(f"webServiceUrl={cluster.admin_url}/\nbrokerServiceUrl={cluster.service_url}/\n"
                            f"authPlugin={TLS_PLUGIN}\n"
                            f"authParams=tlsCertFile:{tls['client_cert']},tlsKeyFile:{tls['client_key']}\n"
                            f"tlsTrustCertsFilePath={tls['ca']}\ntlsEnableHostnameVerification=true\n")
            return {"client_conf": conf}

        yield deployment, vendor_file(base / "vendor.yaml", deployment, entry)


def test_clients_admin_and_replicators_present_the_client_certificate(mutual):
    from pulsar_conformance.fixtures.deploy.external import load_external

    local, config = mutual
    assert all(c.service_url.startswith("pulsar+ssl://") for c in local.clusters.values())
    external = load_external(config)  # check=True: the admin API answers the certificate
    blue, green = external.clusters["blue"], external.clusters["green"]
    assert blue.client_certificate and green.client_certificate and green.verify_hostname
    # a replicated namespace: the brokers' replicators must present the certificate to the peer too
    tenant, namespace = f"mtls-{uuid.uuid4().hex[:6]}", "geo"
    external.replicated_namespace(tenant, namespace)
    topic = f"persistent://{tenant}/{namespace}/orders"
    sender, receiver = blue.client(operation_timeout_seconds=20), green.client(operation_timeout_seconds=20)
    try:
        consumer = receiver.subscribe(topic, "s")
        sender.create_producer(topic).send(b"over-mutual-tls")
        message = consumer.receive(timeout_millis=60_000)
        assert message.data() == b"over-mutual-tls"
        consumer.acknowledge(message)
    finally:
        sender.close()
        receiver.close()
    # without the certificate the same broker refuses the admin API: the check above was real
    from pulsar_conformance.fixtures.deploy.admin import Admin, AdminError

    with pytest.raises(AdminError) as refused:
        Admin(blue.admin_url, trust_certs=blue.trust_certs).clusters(timeout=10)
    assert refused.value.status in (None, 401, 403), refused.value


def test_the_java_client_presents_the_certificate_too(mutual, tmp_path):
    """The Java client (Harness.java, the failover scenarios' client) given AuthenticationTls with the
    file's certificate by environment: it sends and receives on blue."""
    from pulsar_conformance.fixtures.deploy.external import load_external

    _, config = mutual
    kinds = java_traffic(load_external(config).clusters["blue"], tmp_path / "java",
                         f"persistent://public/default/mtls-java-{uuid.uuid4().hex[:6]}")
    assert kinds[None] is None and kinds["send_ok"] > 0 and kinds["receive"] >= kinds["send_ok"], kinds
    assert not any(line in (tmp_path / "java" / "java-client.log").read_text()
                   for line in _key_lines(load_external(config, check=False).clusters["blue"].tls_key))


def test_a_certificate_of_another_authority_is_refused_with_exit_64(mutual, tmp_path):
    from pulsar_conformance.fixtures.deploy import tls

    local, _ = mutual
    stranger = tls.make_authority(tmp_path / "stranger", client_role="admin")
    blue = local.clusters["blue"]
    config = tmp_path / "stranger.yaml"
    config.write_text(f"clusters:\n  blue:\n    service_url: {blue.service_url}\n    admin_url: {blue.admin_url}\n"
                      f"    tls_trust_certs: {local.record['tls']['ca']}\n"
                      f"    tls_cert_file: {stranger['client_cert']}\n    tls_key_file: {stranger['client_key']}\n")
    done = _cli("up", "--backend", "external", "--config", str(config), "--json", state_dir=tmp_path / "s")
    assert done.returncode == errors.EXIT_BAD_INPUT, done.stdout + done.stderr
    error = json.loads(done.stdout)["error"]
    assert "TLS handshake" in error or "refused the credentials" in error, error
    for line in _key_lines(stranger["client_key"]):
        assert line not in done.stdout + done.stderr


def test_a_certification_runs_through_mutual_tls_and_writes_no_key(mutual, tmp_path):
    """A verdict, never bad input or a crash; the client key in no output or bundle file. The spec checks
    only: the run still checks every cluster's admin API through the certificate before it starts and
    writes a whole bundle to search, and the traffic above already went through every client kind (as
    test_client_conf_live.py)."""
    local, config = mutual
    out = tmp_path / "bundle"
    done = _cli("certify", "--profile", "smoke", "--select", "test_spec_check", "--deployment", str(config),
                "--out", str(out), "--json", state_dir=tmp_path / "s")
    assert done.returncode in (errors.EXIT_PASS, errors.EXIT_FAIL, errors.EXIT_UNKNOWN), \
        done.stdout + done.stderr[-3000:]
    assert (out / "summary.json").is_file()  # the run began past the edge's check of every cluster's admin API
    secrets = _key_lines(local.record["tls"]["client_key"])
    for text in (done.stdout, done.stderr):
        assert not any(line in text for line in secrets)
    for path in out.rglob("*"):
        if path.is_file():
            data = path.read_bytes()
            assert not any(line.encode() in data for line in secrets), path
