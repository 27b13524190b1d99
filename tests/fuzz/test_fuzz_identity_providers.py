"""OAuth2 identity providers that fail (issue 48): ``certify``, ``status`` and ``up --backend external`` against
an issuer that is down, answers 401, HTML or ``{}``, has no token endpoint, or answers the token request with
anything but a token. Each is the user's configuration or the issuer's state, so the run is refused (exit 64)
naming the issuer URL (masked, pulsar_conformance.redact), what it answered, and the fix; never a traceback
(exit 70), never the client secret.

The issuer is tests/fuzz/loopback.py's server on 127.0.0.1, which also plays the clusters' admin API and
service port: the documents are valid and their clusters answer, so the issuer is the one thing wrong. The
control (``ok`` mode) is the same document accepted by ``up``.
"""
from __future__ import annotations

import json

import pytest
import yaml
from hypothesis import strategies as st

from . import loopback
from .cases import CLIENT_SECRET, URL_PASSWORD, Case, fuzz, json_flag, params, run_valid

KNOWN: dict[str, str] = {}

# what the message must say the issuer answered, per mode (case-insensitive substrings)
ANSWERED = {
    "down": "connection refused", "discovery-401": "HTTP 401", "discovery-403": "HTTP 403",
    "discovery-404": "HTTP 404", "discovery-500": "HTTP 500", "discovery-302": "HTTP 302",
    "discovery-html": "HTML", "discovery-empty": "token_endpoint", "discovery-list": "JSON list",
    "discovery-text": "not JSON", "discovery-deep": "not JSON", "discovery-binary": "not JSON",
    "endpoint-relative": "token_endpoint", "endpoint-number": "token_endpoint",
    "endpoint-down": "connection refused", "endpoint-file": "token_endpoint",
    "token-401": "401 invalid_client", "token-400-echo": "HTTP 400", "token-500-html": "HTTP 500",
    "token-html": "HTML", "token-empty": "access_token", "token-number": "access_token",
    "token-newline": "access_token", "token-list": "JSON list",
}
FAILING = [m for m in ANSWERED]


def _cluster(**auth) -> dict:
    port = loopback.port()
    return {"service_url": f"pulsar://127.0.0.1:{port}", "admin_url": f"http://127.0.0.1:{port}", **auth}


def _document(issuer: str, how: str) -> tuple[str, dict]:
    """(the deployment file, the other files): blue authenticates with OAuth2 at ``issuer``, given in the
    file's oauth2 block or by a client.conf's AuthenticationOAuth2 parameters; green needs nothing."""
    files: dict = {}
    if how == "client.conf":
        port = loopback.port()
        params = json.dumps({"type": "client_credentials", "issuerUrl": issuer,
                             "privateKey": "file://{dir}/creds/oauth2.json"})
        files["blue.conf"] = (f"webServiceUrl=http://127.0.0.1:{port}/\nbrokerServiceUrl=pulsar://127.0.0.1:{port}/\n"
                              "authPlugin=org.apache.pulsar.client.impl.auth.oauth2.AuthenticationOAuth2\n"
                              f"authParams={params}\n")
        blue = {"client_conf": "{dir}/blue.conf"}
    else:
        blue = _cluster(oauth2={"issuer_url": issuer, "credentials_file": "{dir}/creds/oauth2.json",
                                "audience": "urn:fuzz"})
    doc = {"clusters": {"blue": blue, "green": _cluster()}}
    return yaml.safe_dump(doc, sort_keys=False, width=10_000), files


COMMANDS = (["up", "--backend", "external", "--config", "vendor.yaml"], ["status", "--config", "vendor.yaml"],
            ["certify", "--profile", "smoke", "--deployment", "vendor.yaml"])


@st.composite
def _failing_issuer(draw, modes=tuple(FAILING), secret_in_url: bool = False):
    mode = draw(st.sampled_from(modes))
    issuer = loopback.issuer_url(mode)
    said = [issuer.split("//", 1)[1], ANSWERED[mode]]
    if secret_in_url:  # a credential in the issuer URL's query: masked as every URL the suite shows (the
        # clients append the discovery path to the URL as given, after the query: what it answers is moot)
        issuer += f"?client_secret={URL_PASSWORD}"
        said = [said[0] + "?client_secret=[REDACTED]"]
    text, files = _document(issuer, draw(st.sampled_from(["oauth2", "client.conf"])))
    argv = [*draw(st.sampled_from(COMMANDS)), *draw(json_flag())]
    return Case(argv=argv, files={"vendor.yaml": text, **files}, said=tuple(said))


CLASSES = {
    "issuer-fails": _failing_issuer(),
    "issuer-url-with-a-secret": _failing_issuer(("discovery-401", "down", "discovery-html"), secret_in_url=True),
}
def _explicit() -> list[Case]:
    """Every mode once, the commands and the two ways of giving OAuth2 taking turns (the generated cases mix them)."""
    out = []
    for i, mode in enumerate(FAILING):
        issuer = loopback.issuer_url(mode)
        text, files = _document(issuer, "client.conf" if i % 4 == 3 else "oauth2")
        argv = [*COMMANDS[i % len(COMMANDS)], *(["--json"] if i % 2 else [])]
        out.append(Case(argv=argv, files={"vendor.yaml": text, **files},
                        said=(issuer.split("//", 1)[1], ANSWERED[mode])))
    return out


@pytest.mark.parametrize("name", params(CLASSES, KNOWN))
def test_an_identity_provider_that_fails_is_refused_naming_it(name):
    explicit = _explicit() if name == "issuer-fails" else ()
    fuzz(CLASSES[name], "identity-providers", examples=6, explicit=explicit)


def test_control_a_working_issuer_is_accepted():
    """The same document with an issuer that gives a token: ``up --backend external`` checks it and exits 0,
    so the refusals above are the issuer's doing."""
    text, files = _document(loopback.issuer_url("ok"), "oauth2")
    outcome = run_valid(Case(argv=["up", "--backend", "external", "--config", "vendor.yaml", "--json"],
                             files={"vendor.yaml": text, **files}))
    assert outcome.code == 0 and not outcome.work and CLIENT_SECRET not in outcome.stdout + outcome.stderr, \
        outcome.show()
