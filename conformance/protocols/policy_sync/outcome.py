"""What a policy-sync run leaves to be judged (``Outcome``, saved as outcome.json by
harness/outcome.py): the steps it ran and what each did, every cluster's final value and its value
over time, and the events each cluster's synchronizer consumed, in order. Value 0 stands for
"absent" (no retention set, or the namespace gone), as in the spec."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ...harness import outcome as saved

ABSENT = 0


@dataclass(frozen=True)
class Policy:
    tenant: str
    namespace: str

    @property
    def name(self) -> str:
        return f"{self.tenant}/{self.namespace}"

    @property
    def store_path(self) -> str:
        return f"/admin/policies/{self.tenant}/{self.namespace}"

@dataclass
class Event:
    """One MetadataEvent as a cluster's copy of the sync topic holds it."""

    index: int  # position in that cluster's topic: the order its synchronizer consumed it
    path: str
    kind: str  # Modified / Deleted (MetadataEvent.type)
    value: int
    ts: int  # lastUpdatedTimestamp (ms, the writer's clock)
    source: str
    expected_version: int | None
    publish_ms: int = 0
    raw: dict = saved.unsaved(default_factory=dict, repr=False)  # the record as read (not needed to judge)

    def to_json(self) -> dict:
        return {"index": self.index, "path": self.path, "kind": self.kind, "value": self.value, "ts": self.ts,
                "source": self.source, "expected_version": self.expected_version, "publish_ms": self.publish_ms}


@dataclass(frozen=True)
class Step:
    """``op``: write (``cluster``, ``value``), writes (``together``: (cluster, value) pairs sent at
    once), delete, delete-and-write (``cluster`` deletes while ``to`` writes ``value``, at once), hold / release (the link ``cluster`` -> ``to``), freeze (``clocks``: (cluster, ms
    past the scenario's base time) pairs), redeliver (``cluster``'s
    synchronizer consumes every event again), break-sync-topic (``cluster``'s copy of the topic is
    terminated: its publisher fails from then on), skew (``cluster``'s clock runs ``seconds`` ahead of
    the others), pause (``seconds``)."""

    op: str
    cluster: str = ""
    value: int = 0
    to: str = ""
    together: tuple[tuple[str, int], ...] = ()  # (cluster, value) pairs
    clocks: tuple[tuple[str, int], ...] = ()  # (cluster, ms past the base time) pairs
    seconds: float = 0.0
    note: str = ""

    def show(self) -> str:
        if self.op == "write":
            return f"write {self.value} at {self.cluster}"
        if self.op == "writes":
            return "writes at once: " + ", ".join(f"{v} at {c}" for c, v in self.together)
        if self.op == "delete-and-write":
            return f"delete at {self.cluster} and write {self.value} at {self.to}, at once"
        if self.op in ("hold", "release"):
            return f"{self.op} {self.cluster} -> {self.to}"
        if self.op == "freeze":
            return "clocks stand at " + ", ".join(f"{c} base+{ms} ms" for c, ms in self.clocks)
        if self.op == "pause":
            return f"pause {self.seconds} s"
        if self.op == "skew":
            return f"{self.cluster}'s clock runs {self.seconds:+} s from the others'"
        return f"{self.op} {self.cluster}".strip()


@dataclass
class Outcome:
    name: str
    run_dir: Path
    clusters: list[str]
    policy: Policy
    steps: list[Step]
    results: list[dict]  # per step: what happened (ok, error)
    final: dict[str, int | None]
    quiesced: bool
    series: dict[str, list[tuple[int, int]]]
    events: dict[str, list[Event]]  # per cluster, in the order it consumed them
    markers: list[dict] = field(default_factory=list)
    base_ms: int = 0
    judged: tuple[str, ...] = ()  # the checks the scenario asks for (judge.JUDGES)
    stored_after_restart: int | None = None  # publish-before-write: the writer's store, read after a restart
    counterexample: dict | None = None  # a replayed spec trace: trace, realized, moved, clusters (trace.py)
    # each of ``clusters`` (the scenario's roles) -> the name Pulsar knows it by, which events carry as their
    # source (an external deployment's alpha is us-east); a cluster left out is its own name (local clusters)
    names: dict[str, str] = field(default_factory=dict)

    def written(self) -> list[Event]:
        """The scenario's events once each (as their writers' copies hold them), oldest first."""
        seen, out = set(), []
        for cluster in self.clusters:
            for event in self.events.get(cluster, []):
                key = (event.source, event.ts, event.value, event.kind, event.expected_version)
                if key not in seen and event.source == self.names.get(cluster, cluster):
                    seen.add(key)
                    out.append(event)
        return sorted(out, key=lambda e: (e.ts, e.source))


@dataclass
class Enabling:
    """How the sync was switched on, with PIP136-R07's probe before and after (clusters.enable): which
    clusters a tenant written at ``writer`` reached before the setting and after it (both empty: an
    external deployment, whose sync was on before the run). Saved as captures/enable/outcome.json, so
    ``judge BUNDLE`` judges it again (judge.judge_enabling)."""

    before: dict[str, bool]
    after: dict[str, bool]
    how: dict[str, str]
    run_dir: Path
    writer: str = "alpha"


@dataclass
class SyncerStats:
    """Each cluster's subscription stats of its synchronizer on the sync topic, as its admin answered
    (observe.syncer_stats), saved as captures/syncer/outcome.json for judge.judge_syncer."""

    stats: dict[str, dict]
    run_dir: Path
