"""What a PIP-454 run leaves to be judged (``Outcome``, saved as outcome.json by harness/outcome.py;
``to_json`` is the record the judges read, metadata-migration.json): the phases the status
endpoint showed and those ZooKeeper's migration flag held, the metadata writes and their answers, the two stores compared, the broker's log
marks, the retry after FAILED, the ephemeral nodes each store held, and the checks the scenario asks for; then
Spark's verdict on the traffic, which the record step (record.py) takes after the run (None until then)."""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path


@dataclass(frozen=True)
class Plan:
    fault: str = "none"  # none | oxia | coordinator | participant (a bookie of a cluster topology)
    nodes: int = 50  # namespaces seeded before the migration, each with one topic
    rate: float = 40.0  # messages per second on the data topic (0: no traffic, no capture to check)
    target: str | None = None  # a migration target other than the deployment's Oxia (bad-input scenarios)
    # 5.0.0-M1's coordinator gives up waiting for participants after 60 s, checked after backoff
    # sleeps of up to 60 s: a target killed in PREPARATION ends FAILED after ~117 s (measured)
    timeout_s: float = 180.0


@dataclass
class Outcome:
    name: str
    plan: Plan
    run_dir: Path
    start: dict  # the start call's answer
    phases: list[dict]  # the status endpoint's: {"ns", "phase", "target"} at each change
    writes: list[dict]
    participants_before: int | None
    # the migration flag in the source ZooKeeper, polled beside the status (observe.ZooKeeperFlag):
    # {"path", "seen": [{"ns", "phase", "target", "version"}], "errors"}; None in runs before it was read
    zookeeper_flag: dict | None = None
    kept: dict[str, bool] = field(default_factory=dict)  # accepted write -> present after the run
    comparison: dict | None = None
    oxia_ephemerals: list[str] = field(default_factory=list)
    cas_after: dict | None = None
    restarted_on_oxia: dict | None = None
    retry: dict | None = None
    fault: dict = field(default_factory=dict)  # what the fault did: phase when injected, a restart's error
    log_marks: dict[str, int | None] = field(default_factory=dict)  # line number of each LOG_MARKS entry
    verdict: dict | None = None  # Spark's, over the traffic's capture: taken after the run (record.py)
    markers: list = field(default_factory=list)
    metadata_nodes: int | None = None
    metadata_bytes: int | None = None
    target_server: str | None = None
    target_broken: str | None = None  # the target server failed by itself: the run judges nothing
    judged: tuple[str, ...] = ()  # the checks the scenario asks for (judge.judge)
    other_source: dict | None = None  # other-target: a source other than ZooKeeper asked to migrate
    unreachable_target: dict | None = None  # other-target: what an Oxia target nobody listens on was answered
    # a run recorded before issue 49: the brokers and bookies registered in the source store when the migration
    # ended, as the scenario counted them ({"broker": n, "bookie": m}); runs since record source_ephemerals, and
    # the judge counts (judge.registered)
    participants_registered: dict | None = None
    # the source store's ephemeral paths when the migration ended (its brokers' and bookies' registrations among
    # them: those that serve, not every JVM that runs), read on a cluster topology or an operator's cluster, each
    # registered broker and bookie of which must be live in the target; None on a standalone (one of each)
    source_ephemerals: list[str] | None = None

    def to_json(self) -> dict:
        doc = {k: v for k, v in asdict(self).items() if k not in ("verdict", "markers")}
        doc["run_dir"] = str(self.run_dir)
        return doc
