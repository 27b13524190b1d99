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
from dataclasses import asdict, dataclass, field
from pathlib import Path

import pulsar

from pulsar_conformance.files import write_atomic

from ...harness.deadline import CLIENT_CALL_DEADLINE_S, Hung, within
from . import scenario, trace
from .client import FailoverClient, FailoverConfig

CONFIG = FailoverConfig("primary", ("s1",), interval_ms=200, failover_threshold=3, switch_back_threshold=3)
TOPIC = "persistent://public/default/credentials-{}"


@dataclass
class Outcome:
    run_dir: Path
    topic: str
    killed_ns: int = 0
    switched_ns: int | None = None
    ok_before: int = 0
    ok_after_switch: int = 0
    errors_after_switch: dict[str, int] = field(default_factory=dict)
    stored_on_s1: int | None = None
    start_ns: int = 0
    events: list = field(default_factory=list)  # trace.Event: the kill and the switches, for validation

    def verdict(self) -> tuple[bool | None, str]:
        if self.switched_ns is None:
            return None, f"the client never switched to s1 after the primary was killed ({self.ok_before} sends before)"
        took = round((self.switched_ns - self.killed_ns) / 1e9, 2)
        said = (f"switched to s1 {took} s after the primary's SIGKILL; {self.ok_before} sends acknowledged by the "
                f"primary before, {self.ok_after_switch} after the switch (s1 stored {self.stored_on_s1}); send "
                f"errors after the switch: {self.errors_after_switch or 'none'}")
        return self.ok_after_switch > 0 and bool(self.stored_on_s1), said


def run(deployment, run_dir: Path, *, tokens: dict[str, str] | None = None, after_s: float = 8.0) -> Outcome:
    run_dir.mkdir(parents=True, exist_ok=True)
    out = Outcome(run_dir, TOPIC.format(uuid.uuid4().hex[:8]))
    sends: list[tuple[int, str | None]] = []  # (completed at, error name or None)
    client = FailoverClient(deployment, CONFIG, tokens=tokens)
    out.start_ns = client.attached[0].at_ns
    try:
        producer = within(CLIENT_CALL_DEADLINE_S, "create the producer",
                          lambda: client.client.create_producer(out.topic, send_timeout_millis=3000))
        _send_for(producer, sends, 2.0)
        out.killed_ns = time.time_ns()
        deployment.kill("primary")
        _send_for(producer, sends, after_s)
    finally:
        client.close()
    # the poller saw the switch as it happened; a send blocked on the dead primary does not delay it
    out.switched_ns = next((at for at, _, to in client.switches() if to == "s1"), None)
    out.events = [trace.Event(out.killed_ns, "down", "primary"),
                  *(trace.Event(at, "switch", to, origin) for at, origin, to in client.switches())]
    out.ok_before = sum(1 for at, error in sends if at < out.killed_ns and error is None)
    if out.switched_ns is not None:
        after = [error for at, error in sends if at > out.switched_ns]
        out.ok_after_switch = after.count(None)
        for error in filter(None, after):
            out.errors_after_switch[error] = out.errors_after_switch.get(error, 0) + 1
    admin = deployment.clusters["s1"].admin()
    stats = admin.get_or_refusal(admin.topic_path(out.topic) + "/stats")
    out.stored_on_s1 = stats.get("msgInCounter") if "error" not in stats else None
    write_atomic(run_dir / "credentials.json", json.dumps(asdict(out) | {"run_dir": str(run_dir)}, indent=2,
                                                          default=str))
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


def run_java(deployment, run_dir: Path, *, tokens: dict[str, str] | None = None, seed: int = 1):
    """The Java client pointed from the primary to s1 by its URL provider, each cluster's token
    handed over with it (``tokens`` overrides them: the suite's own tests give s1 the primary's)."""
    if deployment.process("primary") is None:  # the Python scenario killed it: this one needs it
        deployment.start("primary")
    given = {name: c.token for name, c in deployment.clusters.items()} | (tokens or {})
    topic = TOPIC.format(uuid.uuid4().hex[:8])
    return scenario.run_java(deployment, run_dir, "java-credentials-on-switch", JAVA_CONFIG, topic,
                        [(3.0, lambda f: f.point_to("s1")), (6.0, lambda f: None)], seed=seed, controlled=True,
                        tokens=given, drain_seconds=10.0), topic


def java_verdict(deployment, out, topic: str) -> tuple[bool | None, str]:
    """Sends acknowledged after the Java client's switch to s1, and s1 stored them."""
    switch = next((e for e in out.events if e.kind == "switch" and e.cluster == "s1"), None)
    if switch is None:
        return None, "the Java client never switched to s1 (the URL provider pointed it there)"
    kinds = list(zip(out.columns["ts_ns"], out.columns["kind"], strict=True))
    ok_before = sum(1 for t, k in kinds if k == "send_ok" and t < switch.at_ns)
    ok_after = sum(1 for t, k in kinds if k == "send_ok" and t > switch.at_ns)
    failed_after = sum(1 for t, k in kinds if k in ("send_err", "send_unknown") and t > switch.at_ns)
    admin = deployment.clusters["s1"].admin()
    stats = admin.get_or_refusal(admin.topic_path(topic) + "/stats")
    stored = stats.get("msgInCounter") if "error" not in stats else None
    return ok_after > 0 and bool(stored), (
        f"ControlledClusterFailover switched to s1 {(switch.at_ns - out.start_ns) / 1e9:.2f} s after it started, "
        f"handed s1's URL and a token by the URL provider; {ok_before} sends acknowledged by the primary before, "
        f"{ok_after} after the switch, {failed_after} failed after it; s1 stored {stored}")
