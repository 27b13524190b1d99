"""What every run of the suite's Java client program shares (harness/Harness.java: the PIP-121
failover client, and ``mode=drain``, one consumer): the credentials it is handed by environment, and
its recorded events turned into capture rows.

The programs write one JSON object a client event (ts_ns, kind, client, url, uid, key, msg_id,
redelivery_count, error), the capture contract's fields (fixtures/capture/schema.py) with the
service URL the client used where the Python capture writes the cluster's name."""
from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from pulsar_conformance.fixtures.capture.clients import logical_topic
from pulsar_conformance.fixtures.capture.schema import KINDS, RECEIVE, SEND_KINDS, split_uid

# what a Java program says as it gives up (Harness.java's own lines, and java_consumer's for a killed JVM)
_LAST_WORDS = ("error ", "retry ", "timeout", "close ", "killed")


def last_words(lines: list[str]) -> str:
    """What a Java program that ended early said last of why: its last error, retry, timeout, close or kill
    line, else its last line; for the error a scenario raises when the program did not run to its end."""
    said = next((x for x in reversed(lines) if x.startswith(_LAST_WORDS)), lines[-1] if lines else "(it said nothing)")
    return said[:300]


def auth_environment(cluster, auth: tuple[str, str] | None = None) -> dict[str, str]:
    """The environment a Java program reads its credentials from (never argv, which any process may
    read): the plugin and its parameters (``auth`` as the caller decided them, an empty tuple for none;
    by default the cluster's own: a token, OAuth2 client credentials, a client certificate), the CA
    to trust, and whether to verify host names (a cluster read from a client.conf)."""
    env = {}
    auth = auth if auth is not None else cluster.java_auth()
    if auth:
        env["PULSAR_CONFORMANCE_HARNESS_AUTH_PLUGIN"], env["PULSAR_CONFORMANCE_HARNESS_AUTH_PARAMS"] = auth
    if cluster.trust_certs:
        env["PULSAR_CONFORMANCE_HARNESS_TRUST_CERTS"] = cluster.trust_certs
    if getattr(cluster, "verify_hostname", False):
        env["PULSAR_CONFORMANCE_HARNESS_VERIFY_HOSTNAME"] = "true"
    return env


def append_events(capture, events_path: Path, topic: str, subscription: str | None,
                  cluster_of: Callable[[str], str]) -> list[str]:
    """Every recorded client event into ``capture`` (``subscription`` for the consumer's rows,
    ``cluster_of(url)`` the cluster's name); a kind the capture has no row for, and every failed send,
    is returned as an error."""
    lines = events_path.read_text().splitlines() if events_path.exists() else []
    return append_lines(capture, lines, topic, subscription, cluster_of)


def append_lines(capture, lines, topic: str, subscription: str | None, cluster_of: Callable[[str], str]) -> list[str]:
    """``append_events`` of recorded lines already read (one client's of a JVM that ran several)."""
    errors = []
    logical = logical_topic(topic)
    append = capture.writer.append
    for line in lines:
        e = json.loads(line)
        if e["kind"] not in KINDS:
            errors.append(f"{e['kind']}: {e['error']}")
            continue
        if e["kind"] in SEND_KINDS and e["kind"] != "send_ok":
            errors.append(e["error"])
        producer, seq = split_uid(e["uid"]) if e["uid"] else ("", 0)
        uid = e["uid"] or f"foreign:{logical}:{e['msg_id']}"
        sub = None if e["kind"] in SEND_KINDS else subscription
        append((capture.run_id, e["ts_ns"], e["client"], cluster_of(e["url"]), logical, sub, e["kind"], uid,
                producer, seq, e["key"], e["msg_id"], e["redelivery_count"] if e["kind"] == RECEIVE else None))
    return errors


def log4j_config(log: Path, info_loggers: tuple[str, ...]) -> str:
    """The log4j2 configuration of one of the suite's Java programs: the client classes ``info_loggers`` at INFO
    (their own account, with epoch times), WARN elsewhere to keep the log small, into ``log``. A token in a
    message is masked (ControlledClusterFailover logs its whole configuration on a switch, token included), and
    so is one in the slog attributes printed after it (Pulsar 5's client keeps a topic or producer name there)."""
    loggers = "".join(f'    <Logger name="org.apache.pulsar.client.impl.{name}" level="INFO"/>\n' for name in info_loggers)
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<Configuration status="ERROR">
  <Appenders>
    <File name="file" fileName="{log}" append="false" immediateFlush="true">
      <PatternLayout pattern="%d{{UNIX_MILLIS}} %level %c{{1}} [%t] %replace{{%m%notEmpty{{ %X}}}}{{token:[A-Za-z0-9._~+/=-]+}}{{token:***}} %throwable{{short.message}}%n"/>
    </File>
  </Appenders>
  <Loggers>
{loggers}    <Root level="WARN"><AppenderRef ref="file"/></Root>
  </Loggers>
</Configuration>
"""
