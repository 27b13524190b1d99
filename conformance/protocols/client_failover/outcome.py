"""What a PIP-121 scenario leaves to be judged (``Outcome``, saved as outcome.json by
harness/outcome.py, the capture's rows read back from the capture): the client's configuration,
the faults and switches with their times, the Java client's own log, the clusters' backlogs after
the client ended, and R06's figures for the credentials scenarios; then Spark's verdict over the
capture, added after the scenario by record.py."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ...harness import outcome as saved


@dataclass(frozen=True)
class FailoverConfig:
    primary: str
    secondaries: tuple[str, ...]
    interval_ms: int = 200
    failover_threshold: int = 3
    switch_back_threshold: int = 3
    # the Java client counts delays, not probes (the spec's ``java`` variant)
    variant: str = "cpp"
    failover_delay_ms: int = 0
    switch_back_delay_ms: int = 0

    def to_json(self) -> dict:
        policy = ({"failover_threshold": self.failover_threshold, "switch_back_threshold": self.switch_back_threshold}
                  if self.variant == "cpp" else
                  {"failover_delay_ms": self.failover_delay_ms, "switch_back_delay_ms": self.switch_back_delay_ms})
        return {"primary": self.primary, "secondaries": list(self.secondaries), "interval_ms": self.interval_ms,
                "variant": self.variant, **policy}


@dataclass(frozen=True)
class Event:
    at_ns: int
    kind: str  # "down" | "up" | "point" (a URL provider's new answer) | "switch"
    cluster: str  # down/up: the cluster; switch: where the client went
    origin: str | None = None  # switch: where it came from


@dataclass
class Credentials:
    """PIP121-R06: the sends around the switch to ``target`` and what ``target`` stored."""

    target: str = "s1"
    killed_ns: int = 0  # the primary's SIGKILL (0: a provider moved the client)
    switched_ns: int | None = None
    ok_before: int = 0
    ok_after_switch: int = 0
    errors_after_switch: dict[str, int] = field(default_factory=dict)
    stored_on_target: int | None = None  # the target topic's msgInCounter (None: not read)


@dataclass
class Outcome:
    name: str
    run_dir: Path
    config: FailoverConfig
    start_ns: int
    events: list[Event]  # faults and switches, in time order
    markers: list[dict]
    # Spark's over the capture: None as the scenario saves it, until record.py's ``recorded`` adds it (a run
    # without a capture, credentials.run's, has {}: nothing for Spark to judge)
    verdict: dict | None
    sends_ok: int
    errors: list[str]
    hung: list[str]
    # the spec's verdict on the events (trace.validation): computed after the scenario (record.py), again by the
    # judge on a loaded outcome
    validation: object = saved.unsaved(default=None)
    java: dict | None = None  # the Java client's release and its own log: failed probes (time, cluster)
    # per cluster, what the scenario's subscription still held after the client ended (observe.py)
    backlogs: dict | None = None
    # the client's drain waited for every acknowledged send (Java), not for a quiet spell (Python)
    drain_complete: bool = False
    controlled: bool = False  # a provider moved the client (no probes behind its switches)
    marks: dict[str, int] = field(default_factory=dict)  # instants a step noted (e.g. the switch-back it waited for)
    credentials: Credentials | None = None  # PIP121-R06's figures (credentials.py)
    columns: dict = saved.captured()  # the capture's rows

    def switches(self) -> list[Event]:
        return [e for e in self.events if e.kind == "switch"]

    def faults(self) -> list[Event]:
        return [e for e in self.events if e.kind != "switch"]
