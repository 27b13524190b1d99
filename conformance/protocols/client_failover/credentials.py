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
from . import trace
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
