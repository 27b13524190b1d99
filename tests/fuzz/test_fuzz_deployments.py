"""Deployment documents (up --backend external, status --config, certify --deployment) and the options
of up/status/down/fault: refused before anything connects or starts, and no credential printed.

Every document carries canary credentials (a URL password, a JWT inline or in a file, an OAuth2
client secret, a private key); none may appear in stdout or stderr, whatever is wrong with it.
"""
from __future__ import annotations

import json
import re

import pytest
import yaml
from hypothesis import strategies as st

from pulsar_conformance.conformance.profiles import PROFILES

from .cases import (
    CLIENT_SECRET,
    FIFO,
    JWT,
    KEY_BODY,
    NODASH_JWT,
    OPAQUE_TOKEN,
    TOKEN_ENV,
    URL_PASSWORD,
    Case,
    big_file,
    fuzz,
    json_flag,
    params,
)
from .material import closed_port
from .values import (
    HOSTILE_TEXT,
    WORDS,
    bad_input_file,
    bad_release_syntax,
    ints_outside,
    nonpositive_seconds,
    not_a_number,
    unknown_release_line,
)

KNOWN: dict[str, str] = {
}

def _cluster(**changes) -> dict:
    port = closed_port()
    cluster = {"service_url": f"pulsar://127.0.0.1:{port}", "admin_url": f"http://127.0.0.1:{port}"}
    for key, value in changes.items():
        if value is _DROP:
            cluster.pop(key, None)
        else:
            cluster[key] = value
    return cluster


_DROP = object()


def _yaml(doc) -> str:
    return yaml.safe_dump(doc, allow_unicode=True, sort_keys=False, width=10_000)


@st.composite
def _with_command(draw, text, *, reachable_ok=False):
    """The document under one of the commands that read deployment files."""
    commands = [["up", "--backend", "external", "--config", "vendor.yaml"],
                ["certify", "--profile", draw(st.sampled_from(list(PROFILES))), "--deployment", "vendor.yaml"]]
    if not reachable_ok:  # status reports an unreachable (but valid) deployment as not ready: a verdict of sorts
        commands.append(["status", "--config", "vendor.yaml"])
    argv = draw(st.sampled_from(commands)) + draw(json_flag())
    return Case(argv=argv, files={"vendor.yaml": text})


# ---------------------------------------------------------------------------------------- YAML itself

_BILLION_LAUGHS = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join(['*' + chr(97 + i)] * 9)}]\n" for i in range(8)) + "clusters: *i\n"
RAW_DOCUMENTS = [
    _BILLION_LAUGHS,
    f"clusters:\n  blue: &b\n    service_url: pulsar://127.0.0.1:1\n    admin_url: http://127.0.0.1:1\n"
    f"    token: {JWT}\n  green: *b\n",
    f"clusters:\n  blue:\n    service_url: pulsar://127.0.0.1:1\n    admin_url: http://127.0.0.1:1\n"
    f"    token: {JWT}\n    token: {JWT}x\n",
    "clusters:\n  blue: {}\nclusters:\n  green: {}\n",
    f"clusters:\n  blue:\n    service_url: pulsar://127.0.0.1:1\n    token: {JWT}\n    : [\n",
    f"clusters:\n  blue:\n\tservice_url: pulsar://u:{URL_PASSWORD}@h:1\n",
    f"clusters: {{blue: {{admin_url: 'http://a:{URL_PASSWORD}@h:1', token: \"{JWT}\"",
    "- clusters\n- blue\n", "just a string\n", "42\n", "", "   \n", "# only a comment\n", "---\n...\n",
    "clusters:\n" + "  " * 0 + "[" * 100_000 + "]" * 100_000 + "\n",
    "clusters: " + "{a: " * 5_000 + "1" + "}" * 5_000 + "\n",
    "clusters: !!python/object/apply:os.system ['id']\n",
    "clusters: !!binary aGVsbG8=\n",
    "clusters:\n  blue:\n    service_url: 2024-13-45\n",
    "clusters:\n  blue:\n    service_url: " + "9" * 5000 + "\n",
    "\ufeffclusters: [\n",
    "%YAML 9.9\n---\nclusters: {}\n",
]


def _raw_documents():
    return st.one_of(
        st.sampled_from(RAW_DOCUMENTS),
        st.binary(min_size=1, max_size=300).map(lambda b: b"clusters:\n  blue:\n    token: " + JWT.encode() + b"\xff" + b),
        st.text(max_size=200).map(lambda t: f"clusters:\n  blue:\n    token: {JWT}\n" + t).filter(_not_yaml_mapping),
        st.just(big_file((1 << 20) + 10, b"clusters:\n  blue:\n    token: " + JWT.encode() + b"\n#")),
    )


def _not_yaml_mapping(text: str) -> bool:
    try:
        doc = yaml.safe_load(text)
    except Exception:  # noqa: BLE001 - not YAML at all: bad input either way
        return True
    return not (isinstance(doc, dict) and isinstance(doc.get("clusters"), dict) and doc["clusters"]
                and all(isinstance(c, dict) and "service_url" in c for c in doc["clusters"].values()))


# ---------------------------------------------------------------------------------------- values

PORTS_BAD = st.one_of(st.integers(65536, 10**7).map(str), st.sampled_from(["0", "-1", "abc", "6650x", "+1", " 1",
                                                                           "１２３", "0x1f", "6650.0"]))
HOSTS_BAD = st.sampled_from(["[::1", "::1]", "[zz]", "[::1]x", "[127.0.0.1]", "", "a..b", "-" * 70,
                             "x" * 64 + ".com", "h ost", "h\nost", "h\tost", "h\x00ost", "é" * 70])


@st.composite
def _bad_url(draw, scheme):
    kind = draw(st.sampled_from(["port", "host", "scheme", "userinfo", "type", "empty"]))
    if kind == "port":
        return f"{scheme}://127.0.0.1:{draw(PORTS_BAD)}"
    if kind == "host":
        return f"{scheme}://{draw(HOSTS_BAD)}:6650"
    if kind == "scheme":
        return draw(st.sampled_from(["ftp", "file", "pulsar+tcp", "javascript", "", "http" if scheme == "pulsar"
                                     else "pulsar"])) + "://127.0.0.1:6650"
    if kind == "userinfo" and scheme == "pulsar":
        return f"pulsar://admin:{URL_PASSWORD}@127.0.0.1:{closed_port()}"
    if kind == "userinfo":  # a password in admin_url together with a token
        return f"http://admin:{URL_PASSWORD}@127.0.0.1:{draw(PORTS_BAD)}"
    if kind == "type":
        return draw(st.sampled_from([None, 5, ["pulsar://h:1"], {"url": "x"}, True]))
    return draw(st.sampled_from(["", " ", f"{scheme}://", f"{scheme}:", "//127.0.0.1:1", "127.0.0.1:6650"]))


@st.composite
def _url_document(draw):
    field = draw(st.sampled_from(["service_url", "admin_url"]))
    url = draw(_bad_url("pulsar" if field == "service_url" else "http"))
    extra = {"token": JWT} if isinstance(url, str) and URL_PASSWORD in url and field == "admin_url" else {}
    return draw(_with_command(_yaml({"clusters": {"blue": _cluster(**{field: url}, **extra)}})))


TOKENS_BAD = [f"{JWT}\n{JWT}", f"{JWT} {JWT}", f"{JWT}\x07", f"{JWT}é", f"Bearer {JWT}",
              f"-----BEGIN PRIVATE KEY-----\n{KEY_BODY}\n-----END PRIVATE KEY-----",
              json.dumps({"client_secret": CLIENT_SECRET}), f"{JWT}\r", "\u200b" + JWT, 12345, ["a"], True]
TOKEN_FILES_BAD = [("{dir}/creds/oauth2.json", {}), ("{dir}/creds/client.key", {}), ("{dir}/creds/binary.der", {}),
                   ("{dir}/missing.jwt", {}), ("{dir}/creds", {}), ("/dev/zero", {}), ("{dir}/pipe.jwt", {"pipe.jwt": FIFO}),
                   ("{dir}/big.jwt", {"big.jwt": big_file(70_000, JWT.encode() + b"\n")}),
                   ("{dir}/two.jwt", {"two.jwt": f"{JWT}\n{JWT}\n"})]


@st.composite
def _token_document(draw):
    kind = draw(st.sampled_from(["token", "token_file", "token_env", "several", "url-and-token"]))
    files: dict = {}
    env: dict = {}
    if kind == "token":
        cluster = _cluster(token=draw(st.sampled_from(TOKENS_BAD)))
    elif kind == "token_file":
        path, files = draw(st.sampled_from(TOKEN_FILES_BAD))
        cluster = _cluster(token_file=path)
    elif kind == "token_env":
        name, env = draw(st.sampled_from([
            (JWT, {}), ("FUZZ_UNSET_TOKEN_VARIABLE", {"FUZZ_UNSET_TOKEN_VARIABLE": None}),
            ("FUZZ_BAD_TOKEN", {"FUZZ_BAD_TOKEN": f"{JWT}\n{JWT}"}), ("FUZZ_EMPTY_TOKEN", {"FUZZ_EMPTY_TOKEN": ""}),
            ("lower case name", {}), (f"{TOKEN_ENV}\n{JWT}", {})]))
        cluster = _cluster(token_env=name)
    elif kind == "several":
        cluster = _cluster(token=JWT, token_file="{dir}/creds/blue.jwt", token_env=TOKEN_ENV)
    else:
        port = closed_port()
        cluster = _cluster(admin_url=f"http://admin:{URL_PASSWORD}@127.0.0.1:{port}",
                           **draw(st.sampled_from([{"token": JWT}, {"token_file": "{dir}/creds/blue.jwt"},
                                                   {"token_env": TOKEN_ENV}])))
    case = draw(_with_command(_yaml({"clusters": {"blue": cluster}})))
    case.files.update(files)
    case.env.update(env)
    return case


@st.composite
def _fields_document(draw):
    kind = draw(st.sampled_from(["unknown-field", "cluster-type", "clusters-type", "cluster-name", "name",
                                 "metadata-sync", "trust-certs"]))
    if kind == "unknown-field":
        key, value = draw(st.sampled_from([("client_secret", CLIENT_SECRET), ("private_key", "file://{dir}/creds/client.key"),
                                           ("password", URL_PASSWORD), ("auth_params", f"token:{JWT}"),
                                           ("tokens", JWT), ("Token", JWT)]))
        doc = {"clusters": {"blue": _cluster(**{key: value})}}
    elif kind == "cluster-type":
        doc = {"clusters": {"blue": draw(st.sampled_from([None, "pulsar://h:1", ["pulsar://h:1"], 5, True]))}}
    elif kind == "clusters-type":
        doc = {"clusters": draw(st.sampled_from([None, {}, [], "blue", 1, [{"blue": _cluster()}]]))}
    elif kind == "cluster-name":
        name = draw(st.one_of(st.sampled_from(["", "a b", "a/b", "x" * 200, "a\nb", 1, True, None, "${HOME}"]),
                              WORDS.filter(lambda w: not re.fullmatch(r"[-=:.\w]{1,128}", w))))
        doc = {"clusters": {name: _cluster()}}
    elif kind == "name":
        doc = {"name": draw(st.sampled_from([1, ["a"], {"a": 1}, True])), "clusters": {"blue": _cluster()}}
    elif kind == "metadata-sync":
        doc = {"clusters": {"blue": _cluster()},
               "metadata_sync": draw(st.sampled_from(["persistent://a/b/c", [], {"topic": 5}, {"topic": "no-scheme"},
                                                      {"name": "x"}]))}
    else:
        doc = {"clusters": {"blue": _cluster(tls_trust_certs=draw(st.sampled_from(
            ["{dir}/missing-ca.pem", "{dir}/creds", 5, ["a.pem"]])))}}
    return draw(_with_command(_yaml(doc)))


@st.composite
def _unreachable_document(draw):
    """Valid documents whose clusters do not answer: refused up front (64), credentials unprinted."""
    port = closed_port()
    credentials = draw(st.sampled_from([
        {"admin_url": f"http://admin:{URL_PASSWORD}@127.0.0.1:{port}"}, {"token": JWT},
        {"token_file": "{dir}/creds/blue.jwt"}, {"token_env": TOKEN_ENV},
        {"service_url": f"pulsar://127.0.0.1:{port},127.0.0.1:{port}", "token": JWT},
        {"service_url": f"pulsar://[::1]:{port}", "admin_url": f"http://admin:{URL_PASSWORD}@[::1]:{port}"}]))
    return draw(_with_command(_yaml({"clusters": {"blue": _cluster(**credentials), "green": _cluster()}}),
                              reachable_ok=True))


# ---------------------------------------------------------------------------------------- client.conf

_TOKEN_PLUGIN = "org.apache.pulsar.client.impl.auth.AuthenticationToken"
_OAUTH2_PLUGIN = "org.apache.pulsar.client.impl.auth.oauth2.AuthenticationOAuth2"
_TLS_PLUGIN = "org.apache.pulsar.client.impl.auth.AuthenticationTls"
_DATA_KEY = "data:application/json;base64," + __import__("base64").b64encode(
    json.dumps({"client_id": "fuzz", "client_secret": CLIENT_SECRET}).encode()).decode()
# (the bad lines, what the refusal must name): a credential where the file wants something else, or a
# credential pasted where no credential goes. None of it may be quoted.
CLIENT_CONF_BAD = [
    ([f"authPlugin={NODASH_JWT}", f"authParams=token:{JWT}"], ("authPlugin",)),
    ([f"authPlugin={OPAQUE_TOKEN}", "authParams=x"], ("authPlugin",)),
    ([f"authPlugin=com.example.{OPAQUE_TOKEN}", "authParams=x"], ("authPlugin",)),
    ([f"authPlugin={_TOKEN_PLUGIN}", f"authParams=token:{NODASH_JWT}\\u0007"], ("token",)),
    ([f"authPlugin={_TOKEN_PLUGIN}", f'authParams={{"token": 5, "x": "{OPAQUE_TOKEN}"}}'], ("authParams",)),
    ([NODASH_JWT], ("line",)),
    ([OPAQUE_TOKEN], ("line",)),
    ([f"tlsCertificateFilePath={NODASH_JWT}"], ("tlsCertificateFilePath",)),
    ([f"authPlugin={_TLS_PLUGIN}", f"authParams=tlsCertFile:{NODASH_JWT},tlsKeyFile:{OPAQUE_TOKEN}"], ("tlsCertFile",)),
    ([f"authPlugin={_TOKEN_PLUGIN}", f"authParams=file:///nonexistent/{NODASH_JWT}"], ("token file",)),
    ([f"authPlugin={_OAUTH2_PLUGIN}",
      f'authParams={{"issuerUrl": "https://idp.example.com", "privateKey": "{_DATA_KEY}"}}'], ("privateKey",)),
    ([f"authPlugin={_OAUTH2_PLUGIN}",
      f'authParams={{"issuerUrl": "https://idp.example.com", "privateKey": "file:///k.json", "{OPAQUE_TOKEN}": "x"}}'],
     ("not understood",)),
    ([f"authPlugin={_OAUTH2_PLUGIN}",
      f'authParams={{"type": "{OPAQUE_TOKEN}", "issuerUrl": "https://idp", "privateKey": "file:///k.json"}}'],
     ("flow",)),
    ([f"authPlugin={_OAUTH2_PLUGIN}",
      f'authParams={{"issuerUrl": "https://u:{URL_PASSWORD}@idp.example.com", "privateKey": "file:///k.json"}}'],
     ("issuer_url",)),
    ([f"tlsAllowInsecureConnection={NODASH_JWT}"], ("tlsAllowInsecureConnection",)),
    ([f"tlsTrustCertsFilePath={NODASH_JWT}"], ("tlsTrustCertsFilePath",)),
    ([f"webServiceUrl=https://admin:{URL_PASSWORD}@127.0.0.1:1/", f"authPlugin={_TOKEN_PLUGIN}",
      f"authParams=token:{JWT}"], ("user name or password",)),
    ([f"brokerServiceUrl=pulsar://u:{URL_PASSWORD}@127.0.0.1:1/"], ("user name or password",)),
    (["authPlugin=org.apache.pulsar.client.impl.auth.AuthenticationKeyStoreTls", f"authParams=keyStorePassword:{OPAQUE_TOKEN}"],
     ("KeyStore",)),
]


def _client_conf_file(lines: list[str]) -> str:
    port = closed_port()
    base = [f"webServiceUrl=http://127.0.0.1:{port}/", f"brokerServiceUrl=pulsar://127.0.0.1:{port}/"]
    keys = {line.partition("=")[0] for line in lines if "=" in line}
    return "\n".join([b for b in base if b.partition("=")[0] not in keys] + lines) + "\n"


@st.composite
def _client_conf_case(draw):
    lines, said = draw(st.sampled_from(CLIENT_CONF_BAD))
    case = draw(_with_command(_yaml({"clusters": {"blue": {"client_conf": "{dir}/blue.conf"}, "green": _cluster()}})))
    case.files["blue.conf"] = _client_conf_file(draw(st.permutations(lines)))
    case.said = said
    return case


def _client_conf_explicit() -> list[Case]:
    """Each bad client.conf once, under up, certify and status in turn."""
    text = _yaml({"clusters": {"blue": {"client_conf": "{dir}/blue.conf"}, "green": _cluster()}})
    commands = [["up", "--backend", "external", "--config", "vendor.yaml"], ["status", "--config", "vendor.yaml", "--json"],
                ["certify", "--profile", "smoke", "--deployment", "vendor.yaml", "--json"]]
    return [Case(argv=commands[i % 3], files={"vendor.yaml": text, "blue.conf": _client_conf_file(lines)}, said=said)
            for i, (lines, said) in enumerate(CLIENT_CONF_BAD)]


DOCUMENT_CLASSES = {
    "document-yaml": _raw_documents().flatmap(lambda text: _with_command(text)),
    "document-urls": _url_document(),
    "document-tokens": _token_document(),
    "document-fields": _fields_document(),
    "document-unreachable": _unreachable_document(),
    "document-client-conf-credentials": _client_conf_case(),
    # Pulsar's NamedEntity.checkName is Java's [-=:.\\w]: ASCII letters and digits only
    "document-cluster-name-non-ascii": st.sampled_from(["é", "名前", "ñandú", "blue-ü", "ｂｌｕｅ"]).flatmap(
        lambda name: _with_command(_yaml({"clusters": {name: _cluster()}}))),
    "document-file": bad_input_file().flatmap(lambda pair: st.sampled_from([
        ["up", "--backend", "external", "--config", pair[0]], ["status", "--config", pair[0]]]).flatmap(
        lambda argv: json_flag().map(lambda j: Case(argv=argv + j, files=pair[1])))),
}
DOCUMENT_EXAMPLES = {"document-yaml": 30, "document-urls": 25, "document-tokens": 25, "document-fields": 15,
                     "document-unreachable": 8, "document-client-conf-credentials": 4}


@pytest.mark.parametrize("name", params(DOCUMENT_CLASSES, KNOWN))
def test_deployment_documents_are_refused_without_printing_a_credential(name):
    explicit = _client_conf_explicit() if name == "document-client-conf-credentials" else ()
    fuzz(DOCUMENT_CLASSES[name], "deployments", examples=DOCUMENT_EXAMPLES.get(name, 6), explicit=explicit)


# ---------------------------------------------------------------------------------------- up / status / down / fault


def _up(words):
    return st.tuples(words, json_flag()).map(lambda t: Case(argv=["up", *t[0], *t[1]]))


UP_CLASSES = {
    "up-port": _up(st.one_of(
        st.tuples(st.sampled_from(["blue.broker", "green.web", "blue.bookie"]), PORTS_BAD).map(lambda t: f"{t[0]}={t[1]}"),
        st.sampled_from(["blue=6650", "blue.broker", "=6650", ".broker=1", "nope.broker=6650", "blue.nope=6650",
                         "blue.broker=6650=1"])).map(lambda p: ["--port", p])),
    "up-broker-config": _up(st.sampled_from(["nokv", "=1", "nope:key=1", ":", "blue:", "blue:=1"]).map(
        lambda c: ["--broker-config", c])),
    "up-heap-and-timeout": _up(st.one_of(ints_outside(64, 1 << 20).map(lambda v: ["--heap-mb", v]),
                                         not_a_number().map(lambda v: ["--heap-mb", v]),
                                         nonpositive_seconds().map(lambda v: ["--timeout", v]))),
    "up-pulsar-version": _up(bad_release_syntax().map(lambda v: ["--pulsar-version", v])),
    "up-pulsar-version-unknown-line": _up(unknown_release_line().map(lambda v: ["--pulsar-version", v])),
    "up-java": _up(st.sampled_from([["--java", "/nonexistent/java"], ["--java", "{dir}/creds"],
                                    ["--java", "{dir}/creds/blue.jwt"]])),
    "up-clusters": _up(st.one_of(st.sampled_from(["", ",", " , ", "blue,blue", "a b", "a/b", "x" * 200]),
                                 HOSTILE_TEXT.filter(lambda t: t.strip() and not t.startswith("-"))).map(
        lambda c: ["--clusters", c])),
    "up-external-without-config": _up(st.just(["--backend", "external"])),
    "up-state-dir": st.tuples(st.sampled_from([["up"], ["status"], ["down"], ["fault", "kill", "blue"]]),
                              json_flag()).map(lambda t: Case(argv=[*t[0], "--state-dir", "afile", *t[1]],
                                                              files={"afile": "x"})),
    "status-fault-nothing-up": st.tuples(st.sampled_from(["status", "fault"]), WORDS, json_flag()).map(
        lambda t: Case(argv=([t[0]] if t[0] == "status" else ["fault", "kill", "blue"]) + ["--name", t[1], *t[2]])),
    "fault-arguments": st.tuples(st.sampled_from([["fault"], ["fault", "kill"], ["fault", "explode", "blue"],
                                                  ["fault", "cut", "blue", "--mode", "shred"]]), json_flag()).map(
        lambda t: Case(argv=t[0] + t[1])),
}


@pytest.mark.parametrize("name", params(UP_CLASSES, KNOWN))
def test_up_status_down_fault_refuse_bad_options_before_starting_a_broker(name):
    fuzz(UP_CLASSES[name], "up-status-fault", examples=5)

