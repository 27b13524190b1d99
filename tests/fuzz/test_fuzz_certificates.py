"""Certificates and keys a deployment file hands the clients (issue 48): a client certificate that is not PEM,
a key that does not match it, the two swapped, an encrypted, expired, empty, DER or unreadable file, a CA file
that holds a key. Each is refused (exit 64) before anything connects, naming the file and what is wrong with
it, and no line of a key is printed; they used to be checked with ``is_file()`` only and surface as a failed
TLS handshake with advice about the CA, or as an unreachable admin URL (``status``: a cluster not ready, 1).

Real material (EC P-256, made once per session with ``cryptography``): a CA, a client certificate and its key,
another key, the same key encrypted, an expired certificate, their DER forms. The clusters' URLs are a closed
loopback port, so a check that came after connecting would find nothing to connect to: the refusal must name
the file. The control is the good pair, which gets past every file check to the reachability check.
"""
from __future__ import annotations

import pytest
import yaml
from hypothesis import strategies as st

from .cases import CANARIES, DIR, FIFO, ROOT_USER, Case, fuzz, json_flag, params, run_valid, unreadable
from .material import closed_port, key_lines, material

KNOWN: dict[str, str] = {}


PAIRS = [
    ("client.key", "client.key", "ca.pem", ("tls_cert_file", "client.key", "private key")),
    ("client.key", "client.pem", "ca.pem", ("swapped",)),
    ("client.pem", "other.key", "ca.pem", ("is not the key of",)),
    ("client.pem", "encrypted.key", "ca.pem", ("encrypted",)),
    ("expired.pem", "client.key", "ca.pem", ("expired",)),
    ("future.pem", "client.key", "ca.pem", ("not valid before",)),
    ("client.der", "client.key", "ca.pem", ("DER",)),
    ("client.pem", "client-key.der", "ca.pem", ("tls_key_file", "DER")),
    ("damaged.pem", "client.key", "ca.pem", ("does not parse",)),
    ("client.pem", "damaged.key", "ca.pem", ("tls_key_file", "does not parse")),
    ("text.pem", "client.key", "ca.pem", ("no PEM block",)),
    ("empty.pem", "client.key", "ca.pem", ("empty",)),
    ("client.pem", "client.pem", "ca.pem", ("tls_key_file", "certificate")),
    ("client.pem", "client.key", "client.key", ("tls_trust_certs", "private key")),
    ("client.pem", "client.key", "client.der", ("tls_trust_certs", "DER")),
    ("client.pem", "client.key", "text.pem", ("tls_trust_certs", "no PEM block")),
    ("client.pem", "client.key", "empty.pem", ("tls_trust_certs", "empty")),
    ("client.pem", "client.key", "certs-folder", ("tls_trust_certs",)),
    ("client.pem", "key-pipe", "ca.pem", ("tls_key_file",)),
    *([("unreadable.pem", "client.key", "ca.pem", ("cannot be read",))] if not ROOT_USER else []),
]
COMMANDS = [["up", "--backend", "external", "--config", "vendor.yaml"], ["status", "--config", "vendor.yaml"],
            ["certify", "--profile", "smoke", "--deployment", "vendor.yaml"],
            ["plan", "--deployment", "vendor.yaml", "--profile", "smoke", "--offline"]]


def _files() -> dict:
    files = {f"tls/{name}": data for name, data in material().items()}
    files.update({"tls/certs-folder": DIR, "tls/key-pipe": FIFO})
    if not ROOT_USER:
        files["tls/unreadable.pem"] = unreadable(material()["client.pem"])
    return files


def _document(cert: str, key: str, trust: str, how: str) -> dict:
    port = closed_port()
    urls = {"service_url": f"pulsar+ssl://127.0.0.1:{port}", "admin_url": f"https://127.0.0.1:{port}"}
    if how == "client.conf":
        conf = (f"webServiceUrl={urls['admin_url']}/\nbrokerServiceUrl={urls['service_url']}/\n"
                f"tlsTrustCertsFilePath={{dir}}/tls/{trust}\n"
                "authPlugin=org.apache.pulsar.client.impl.auth.AuthenticationTls\n"
                f"authParams=tlsCertFile:{{dir}}/tls/{cert},tlsKeyFile:{{dir}}/tls/{key}\n")
        return {"blue.conf": conf, "vendor.yaml": yaml.safe_dump(
            {"clusters": {"blue": {"client_conf": "{dir}/blue.conf"},
                          "green": {"service_url": f"pulsar://127.0.0.1:{port}",
                                    "admin_url": f"http://127.0.0.1:{port}"}}})}
    blue = {**urls, "tls_trust_certs": f"{{dir}}/tls/{trust}", "tls_cert_file": f"{{dir}}/tls/{cert}",
            "tls_key_file": f"{{dir}}/tls/{key}"}
    green = {"service_url": f"pulsar://127.0.0.1:{port}", "admin_url": f"http://127.0.0.1:{port}"}
    return {"vendor.yaml": yaml.safe_dump({"clusters": {"blue": blue, "green": green}}, sort_keys=False)}


# a client.conf's fields are named by its own keys
CONF_NAMES = {"tls_cert_file": "tlsCertFile", "tls_key_file": "tlsKeyFile", "tls_trust_certs": "tlsTrustCertsFilePath"}


def _case(pair, command, how, json_mode) -> Case:
    cert, key, trust, said = pair
    if how == "client.conf":
        said = tuple(CONF_NAMES.get(s, s) for s in said)
    return Case(argv=[*command, *json_mode], files={**_files(), **_document(cert, key, trust, how)}, said=said)


@st.composite
def _certificate_case(draw):
    return _case(draw(st.sampled_from(PAIRS)), draw(st.sampled_from(COMMANDS)),
                 draw(st.sampled_from(["entry", "client.conf"])), draw(json_flag()))


def _explicit() -> list[Case]:
    """Each bad pair once, the commands and the two ways of giving the pair taking turns."""
    return [_case(pair, COMMANDS[i % len(COMMANDS)], "client.conf" if i % 3 == 2 else "entry",
                  ["--json"] if i % 2 else []) for i, pair in enumerate(PAIRS)]


CLASSES = {"client-certificate-and-key": _certificate_case()}


@pytest.mark.parametrize("name", params(CLASSES, KNOWN))
def test_certificates_and_keys_are_loaded_and_matched_before_anything_connects(name):
    fuzz(CLASSES[name], "certificates", examples=4, explicit=_explicit(), canaries=CANARIES + key_lines())


def test_control_the_good_pair_gets_past_the_file_checks():
    """The good certificate, key and CA: refused only for the unreachable cluster (what comes after the files)."""
    outcome = run_valid(_case(("client.pem", "client.key", "ca.pem", ()), COMMANDS[0], "entry", ["--json"]))
    assert outcome.code == 64 and "unreachable" in outcome.stdout, outcome.show()
    assert not any(line in outcome.stdout + outcome.stderr for line in key_lines())
