"""PIP121-R06: the target cluster's credentials are applied when the client switches.

Two clusters that trust different token secrets (``auth="token-per-cluster"``: the primary's token
is refused by s1 and the other way round); the failover client gets each cluster's token in that
cluster's ServiceInfo. A producer sends through it, the primary is killed, and what counts is that
sends are acknowledged after the switch and s1 stored them: s1 accepted the client's connection only
with s1's token. Given the primary's token for s1 too (``tokens={"s1": ...}``, the suite's own tests
do), the same client must fail there: that is how this check shows it can fail.
"""
from __future__ import annotations

import json
import time
import uuid
from dataclasses import asdict
from pathlib import Path

import pulsar

from pulsar_conformance.files import write_atomic

from ...harness import outcome as saved
from ...harness.deadline import CLIENT_CALL_DEADLINE_S, Hung, within
from . import observe, scenario
from .client import FailoverClient
from .outcome import Credentials, Event, FailoverConfig, Outcome

CONFIG = FailoverConfig("primary", ("s1",), interval_ms=200, failover_threshold=3, switch_back_threshold=3)
TOPIC = "persistent://public/default/credentials-{}"
NAME, JAVA_NAME = "credentials-on-switch", "java-credentials-on-switch"


def run(deployment, run_dir: Path, *, tokens: dict[str, str] | None = None, after_s: float = 8.0) -> Outcome:
    run_dir.mkdir(parents=True, exist_ok=True)
    topic = TOPIC.format(uuid.uuid4().hex[:8])
    figures = Credentials()
    sends: list[tuple[int, str | None]] = []  # (completed at, error name or None)
    client = FailoverClient(deployment, CONFIG, tokens=tokens)
    start_ns = client.attached[0].at_ns
    try:
        producer = within(CLIENT_CALL_DEADLINE_S, "create the producer",
                          lambda: client.client.create_producer(topic, send_timeout_millis=3000))
        _send_for(producer, sends, 2.0)
        figures.killed_ns = time.time_ns()
        deployment.faults.kill("primary")
        _send_for(producer, sends, after_s)
    finally:
        client.close()
    # the deployment as it was found: on an external deployment the next module's primary is this cluster
    deployment.faults.start("primary")
    # the poller saw the switch as it happened; a send blocked on the dead primary does not delay it
    figures.switched_ns = next((at for at, _, to in client.switches() if to == "s1"), None)
    events = [Event(figures.killed_ns, "down", "primary"),
              *(Event(at, "switch", to, origin) for at, origin, to in client.switches())]
    figures.ok_before = sum(1 for at, error in sends if at < figures.killed_ns and error is None)
    if figures.switched_ns is not None:
        after = [error for at, error in sends if at > figures.switched_ns]
        figures.ok_after_switch = after.count(None)
        for error in filter(None, after):
            figures.errors_after_switch[error] = figures.errors_after_switch.get(error, 0) + 1
    figures.stored_on_target = observe.stored_on(deployment, "s1", topic)
    # no capture: nothing for Spark to judge ({}, not None); the trace is validated after the run (record.py)
    out = Outcome(NAME, run_dir, CONFIG, start_ns, events, [], {}, sum(1 for _, e in sends if e is None), [], [],
                  credentials=figures)
    saved.save(out, run_dir)
    write_atomic(run_dir / "credentials.json", json.dumps(asdict(figures) | {"run_dir": str(run_dir), "topic": topic},
                                                          indent=2, default=str))
    return out


def _send_for(producer, sends: list, seconds: float) -> None:
    until = time.monotonic() + seconds
    while time.monotonic() < until:
        try:
            within(CLIENT_CALL_DEADLINE_S, "send", lambda: producer.send(b"credentials"))
            sends.append((time.time_ns(), None))
        except (pulsar.PulsarException, Hung) as error:
            sends.append((time.time_ns(), type(error).__name__))
        time.sleep(0.05)


# The Java client: ControlledClusterFailover takes the target's credentials from the URL provider's
# answer (authPluginClassName, authParamsString) with its URL; no kill needed, the provider moves it.
JAVA_CONFIG = FailoverConfig("primary", ("s1",), interval_ms=500, variant="controlled")


def run_java(deployment, run_dir: Path, *, tokens: dict[str, str] | None = None, seed: int = 1) -> Outcome:
    """The Java client pointed from the primary to s1 by its URL provider, each cluster's token
    handed over with it (``tokens`` overrides them: the suite's own tests give s1 the primary's)."""
    if not deployment.admin("primary").ready():  # killed and not back (a scenario stopped half-way)
        deployment.faults.start("primary")
    given = {name: c.token for name, c in deployment.clusters.items()} | (tokens or {})
    topic = TOPIC.format(uuid.uuid4().hex[:8])
    out = scenario.run_java(deployment, run_dir, JAVA_NAME, JAVA_CONFIG, topic,
                            [(3.0, lambda f: f.point_to("s1")), (6.0, lambda f: None)], seed=seed, controlled=True,
                            tokens=given, drain_seconds=10.0)
    out.credentials = Credentials(stored_on_target=observe.stored_on(deployment, "s1", topic))
    saved.save(out, run_dir)
    return out
