"""PIP-454 metadata store migration explored live (``explore --live metadata-migration``): the tester's steps
of the metadata-migration spec (a start, the coordinator killed, Oxia killed) with metadata writes of every
kind, waits for a phase, a second start (the retry after FAILED) and, on a cluster topology, a participant
paused and restarted, in any order the spec allows; each schedule judged by the judge certify's scenarios
use (judge.judge), from the same Outcome, with the checks the certify scenario that makes the same fault
judges (``judged_checks``).

**A deployment per schedule.** A migrated (or failed) cluster cannot be migrated again from scratch, so
unlike the other adapters no deployment is shared: each schedule starts a fresh standalone on ZooKeeper with
an Oxia server beside it (as test_metadata_migration's ``migrating`` fixture does), seeds it, and stops it
at its end (its logs kept in the bundle). A schedule costs a deployment start (about 20 s on the 2-core
machine), the seed (``NODES`` namespaces with a topic each), the migration (seconds; about two minutes
where Pulsar waits out a preparation timeout, F-454-7, F-454-13), and after COMPLETED the broker restarted
on oxia:// (scenario._after_cutover: tens of seconds); progress says each start. Schedules per minute are
therefore a fraction of the other protocols'.

**The spec's tester actions** (``MetadataMigration``, tracked on its ``as-implemented`` variant, the one
that assumes no recovery Pulsar has not shown: the PIP's variant writes FAILED in the same step as the
coordinator's loss, which is exactly what a schedule must observe rather than assume): ``start`` (the
start call over REST, observe.start), ``coordinator_crash`` (the broker that took the call, on a standalone
the one process, killed and started again: scenario._fault's, as the coordinator-killed scenario) and
``target_lost`` (the Oxia server killed). Each comes at most once per schedule, as the spec has it. The
spec's other actions are Pulsar's and observed, never chosen: the phases (PREPARATION is ``start``'s,
COPYING ``begin_copy``, COMPLETED ``complete``, FAILED ``fail``) through the status endpoint and ZooKeeper's
migration flag (observe.Phases, observe.ZooKeeperFlag, polled every 50 ms), and the participants' notices,
preparations and the writes they accept (``begin_write`` is a participant *accepting* a write where its
view allows: whether Pulsar does is what the judges check, so the tester's write is no spec action).

**Steps the spec does not model** (faults, each with the capability it needs):
- ``write-namespace``, ``write-policy``, ``write-topic``: one metadata write of that kind now
  (observe.Prober.write: a namespace created, a retention policy updated, a topic created), its answer and
  the phase it met in the history; besides them a background Prober writes one of each in turn every 50 ms
  through the whole schedule, as the certify scenarios do, so every phase sees writes of every kind;
- ``await-copying`` (until COPYING or an end phase shows, bounded) and ``await-end`` (until COMPLETED or
  FAILED shows, bounded by ``END_S``): so a later step lands in a later phase;
- ``start-again``: a second start call. After FAILED it is the retry (scenario._retry: Oxia started first
  if it was killed; whom the coordinator waits for is judged, PIP454-R04); in PREPARATION, COPYING or after
  COMPLETED it must be refused (a start that restarts the phases breaks their order, PIP454-R01). A schedule
  makes one. The retry ends the first migration's observation (its pollers and prober stopped, the
  writes kept and the log marks read first), as in the scenario;
- ``pause-participant``, ``restart-participant``, ``resume-participant`` (a cluster topology with two bookies
  or more, capability ``participant``): the last bookie, a participant that is not the coordinator, paused;
  then either held ``scenario.HOLD_S`` more, killed and started again at once as a supervisor would
  (scenario._held), or resumed;
- ``start-oxia``: a killed Oxia server started again on its data (nothing when it runs); also a closing step.

A standalone has no participant apart from the coordinator (its one process is both): the participant steps
are not generated there. Deployment capabilities decide the rest (``usable``): ``target_lost`` needs
``oxia.kill``, ``coordinator_crash`` needs ``kill``, ``start``, ``pause`` and ``resume`` (the coordinator is
paused for the instant it takes to read the flag it wrote, so that it is killed in PREPARATION or COPYING
for certain, never after the migration ended: a kill after COMPLETED is no PIP-454 fault, and the trace the
judge validates would place it wrongly).

**One fault per schedule.** The outcome names one fault (``Plan.fault``: oxia, coordinator or participant),
which the judge's trace projection places among the phases (trace.py): a schedule that made one is not given
another (``Adapter.allows``), and a replayed candidate that asks for one anyway is told ``not-reached``.

**A schedule ends** (``closing_steps``) with the migration started if the tester never started it, a paused
participant resumed, the migration watched to its end (COMPLETED or FAILED, at most ``END_S``; not watched
where the coordinator's broker did not start again on a standalone: nobody is left to end it, F-454-1) and
a killed Oxia started again; then the judge step reads what the scenario reads (the writes kept, the
broker's log marks; after COMPLETED both stores compared, a conditional write, the broker restarted on
oxia://) into an Outcome, and judge.judge gives its rows. Spark's verdict over the traffic's capture is the
framework's, afterwards (``SPARK``)."""
from __future__ import annotations

import dataclasses
import json
import os
import time
import uuid
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace

from pulsar_conformance.errors import UsageError
from pulsar_conformance.files import write_atomic
from pulsar_conformance.fixtures import request_file
from pulsar_conformance.fixtures.capture import Capture
from pulsar_conformance.fixtures.deploy.versions import parse_version
from pulsar_conformance.output import progress
from pulsar_conformance.spec.protocols.metadata_migration import IDLE, NOT_STARTED, MetadataMigration
from pulsar_conformance.wait import wait_until

from ...explore.model import AdapterBase, Fault, Vocabulary
from ...explore.schedule import Entry, Schedule, Step, history_json
from ...harness import evidence, timeline
from ...harness import outcome as saved
from ...harness.recorder import Recorder
from ...harness.rows import not_applicable
from ...harness.traffic import Sub, TopicLoad, Traffic
from . import judge, observe, scenario, site, stores
from .checks import CHECKS
from .outcome import Outcome, Plan

PROTOCOL = "metadata-migration"
VARIANT = "as-implemented"  # the tracked variant (the docstring says why); the judge validates against both
CLUSTER = "zeta"  # test_metadata_migration's cluster
FIRST_RELEASE = (4, 2)  # PIP-454 shipped in 4.2.0 (test_metadata_migration.FIRST_RELEASE)
DEFAULT_RELEASE = "5.0.0-M1"  # test_metadata_migration.DEFAULT_RELEASE
NODES = 50  # seeded namespaces (each with a topic): the migrate scenario's, so its read-only window is comparable
RATE = 20.0  # msg/s on the data topic through the whole schedule (R06)
COPYING_S = 60.0  # await-copying waits this long for COPYING (or an end)
END_S = 180.0  # await-end: Plan.timeout_s (a target killed in PREPARATION ends FAILED after ~117 s: F-454-7)
SETTLE_S = 1.5  # the pollers and the prober running before the first step (as scenario.run)
AFTER_END_S = 3.0  # writes after the end, before the judge step reads (as scenario.run: accepted again?)
DRAIN_S = 20.0  # the traffic's drain at the end (as scenario.run)
WRITES = {"write-namespace": "namespace", "write-policy": "policy", "write-topic": "topic"}
# the faults a schedule makes at most one of (the outcome's Plan.fault)
FAULT_OF = {"coordinator_crash": "coordinator", "target_lost": "oxia", "pause-participant": "participant"}
PARTICIPANT = ("pause-participant", "restart-participant", "resume-participant")
# the capabilities each spec operation needs (Vocabulary's faults carry their own): the operation is not
# generated without them. The coordinator is paused while the flag is read (the docstring says why)
OPERATIONS_NEED = {"start": (), "coordinator_crash": ("kill", "start", "pause", "resume"), "target_lost": ("oxia.kill",)}
# capabilities this adapter adds to the deployment's (``Deployments.capabilities``)
OXIA = ("oxia.kill", "oxia.start")  # a local deployment's Oxia server (kill_service/start_service)
PARTICIPANT_CAPABILITY = "participant"  # a cluster topology with a bookie apart from the coordinator


def _topology(deployment) -> bool:
    """A cluster of several processes (brokers, bookies): the base Deployment's ``components`` is empty for a
    standalone."""
    return bool(deployment.components(CLUSTER))


def _allows(_step: Step, _active: frozenset) -> bool:
    """The model does not narrow the spec's operations (the live schedule does: ``refusal``)."""
    return True


def _faults() -> tuple[Fault, ...]:
    always = lambda _a: True  # noqa: E731 - a write or a wait may come at any point
    return (*(Fault(name, None, always) for name in WRITES),
            Fault("await-copying", None, always),
            Fault("await-end", None, always),
            Fault("start-again", None, lambda a: "again" not in a, lambda a: a | {"again"}),
            Fault("pause-participant", PARTICIPANT_CAPABILITY, lambda a: not a & {"paused", "participant-done"},
                  lambda a: a | {"paused"}),
            Fault("restart-participant", PARTICIPANT_CAPABILITY, lambda a: "paused" in a,
                  lambda a: (a - {"paused"}) | {"participant-done"}),
            Fault("resume-participant", PARTICIPANT_CAPABILITY, lambda a: "paused" in a,
                  lambda a: (a - {"paused"}) | {"participant-done"}),
            # Oxia started again on its data (nothing when it runs): chosen too, a target back mid-migration; the
            # closing step after a kill (every closing step is one the spec enables, so a schedule file replays)
            Fault("start-oxia", "oxia.start", always))


@dataclass(frozen=True)
class MigrationVocabulary(Vocabulary):
    """The Vocabulary, with the capabilities each spec operation needs (``OPERATIONS_NEED``): ``usable``
    keeps only those the deployment can perform, and ``missing`` names the others too."""

    def usable(self, capabilities: frozenset) -> MigrationVocabulary:
        kept = super().usable(capabilities)
        operations = tuple(o for o in self.operations if set(OPERATIONS_NEED[o]) <= capabilities)
        return MigrationVocabulary(operations, kept.faults, kept.eventually, kept.visible, kept.allows)

    def missing(self, capabilities: frozenset) -> list[str]:
        found = [f"{o} (needs {', '.join(n for n in OPERATIONS_NEED[o] if n not in capabilities)})"
                 for o in self.operations if not set(OPERATIONS_NEED[o]) <= capabilities]
        return found + super().missing(capabilities)


VOCABULARY = MigrationVocabulary(
    operations=("start", "coordinator_crash", "target_lost"),
    faults=_faults(),
    eventually=(),  # the phases are Pulsar's and timing decides them: observed, never taken as done
    visible=("coord", "target_up"),  # the tester's levers in the spec state; the phases are observed
    allows=_allows)


def spec() -> MetadataMigration:
    """The spec as tracked: one participant (a standalone's one process is participant and coordinator),
    one key, one write (the tester's writes are no spec action: the docstring)."""
    return MetadataMigration(VARIANT, PARTICIPANTS=1, KEYS=1, WRITES=1)


# the saved outcome's judge (what the recorded verdicts come from), its checks, and a capture Spark checks (R06)
JUDGE, CHECKS, SPARK = judge.judge, CHECKS, True


def usable(capabilities: frozenset, allows=_allows) -> MigrationVocabulary:
    return dataclasses.replace(VOCABULARY.usable(capabilities), allows=allows)


def closing_steps(tracker) -> list[Step]:
    """What reaches the judged state from where a schedule stopped: the migration started if it never was,
    a paused participant resumed, the migration watched to its end, a killed Oxia started again."""
    steps = [Step("start")] if tracker.state.phase == NOT_STARTED and tracker.state.coord == IDLE else []
    if "paused" in tracker.active:
        steps.append(Step("resume-participant", "fault"))
    steps.append(Step("await-end", "fault"))
    if not tracker.state.target_up:
        steps.append(Step("start-oxia", "fault"))
    return steps


# the checks each certify scenario judges, by the fault it makes (test_metadata_migration.py): a schedule is
# judged by those of the scenario whose fault it made, so each verdict means what the certified one does (one
# addition, said below). Not after a coordinator killed: on a standalone its one broker may not come back
# (F-454-1), so no write can be read back ("lost") and the traffic cannot drain, the tester's doing, not PIP-454's
SCENARIO_CHECKS = {
    "none": ("phases", "writes-refused", "ephemerals-recreated", "participants-waited", "versions-preserved",
             "after-cutover", "rest", "data-plane", "read-only-window"),  # test_migration_with_traffic
    # test_oxia_killed_during_the_copy's, and the writes and the status watched through the read-only phases as
    # test_migration_with_traffic's: a schedule writes in any phase, and a lost target excuses no accepted write
    "oxia": ("phases", "writes-refused", "rollback", "participants-waited", "rest", "data-plane"),
    # the one broker killed: no data plane, no writes to judge (test_coordinator_killed_during_preparation)
    "coordinator": ("phases", "rollback"),
    "participant": ("phases", "participants-waited", "ephemerals-recreated"),  # PARTICIPANT_CHECKS
}


def judged_checks(fault: str, *, traffic: bool, target_up_at_start: bool) -> tuple[str, ...]:
    """The checks a schedule's outcome asks for (Outcome.judged): its certify scenario's; without traffic no
    data plane; the REST check not on a start made while Oxia was down (refusing it may be right)."""
    checks = SCENARIO_CHECKS[fault]
    return tuple(c for c in checks if (traffic or c != "data-plane") and (target_up_at_start or c != "rest"))


@dataclass
class Observed:
    """What a schedule saw, as scenario.run records it: the first start's answer, the phases of the status
    and of ZooKeeper's flag, every metadata write (the background prober's and the tester's), the fault it
    made, the writes kept, the broker's log marks and the retry; the rest (the stores compared, the cutover)
    scenario._after_cutover adds to the Outcome itself."""

    start: dict | None = None  # observe.Answer's fields and ok; None: no start call was made
    phases: list[dict] = dataclasses.field(default_factory=list)
    flag: dict | None = None
    writes: list[dict] = dataclasses.field(default_factory=list)
    participants_before: int | None = None
    fault_kind: str = "none"
    fault: dict = dataclasses.field(default_factory=dict)
    kept: dict[str, bool] = dataclasses.field(default_factory=dict)
    log_marks: dict[str, int | None] = dataclasses.field(default_factory=dict)
    retry: dict | None = None
    traffic: bool = True
    target_up_at_start: bool = True


NO_START = {"sent_ns": 0, "answered_ns": 0, "status": None, "body": "no start call was made", "ok": False}


def outcome_of(name: str, run_dir: Path, seen: Observed) -> Outcome:
    """The schedule's Outcome from what it observed: scenario.run's, with the checks its fault's scenario
    judges."""
    plan = Plan(fault=seen.fault_kind, nodes=NODES, rate=RATE if seen.traffic else 0.0, timeout_s=END_S)
    writes = sorted(seen.writes, key=lambda w: w["sent_ns"])
    out = Outcome(name, plan, run_dir, dict(seen.start or NO_START), list(seen.phases), writes, seen.participants_before,
                  zookeeper_flag=seen.flag, fault=dict(seen.fault), judged=judged_checks(
                      seen.fault_kind, traffic=seen.traffic, target_up_at_start=seen.target_up_at_start))
    out.kept, out.log_marks, out.retry = dict(seen.kept), dict(seen.log_marks), seen.retry
    return out


def ended(seen: Observed) -> str | None:
    """COMPLETED or FAILED where the status or ZooKeeper's flag showed it (the flag where 4.2.4's status stops:
    F-454-10), else None."""
    for series in (seen.phases, (seen.flag or {}).get("seen") or []):
        found = next((p["phase"] for p in reversed(series) if p["phase"] in observe.DONE), None)
        if found:
            return found
    return None


# ------------------------------------------------------------------ deployments, one per schedule


def release() -> str:
    return request_file.pulsar_version() or DEFAULT_RELEASE


def _has_pip454(version: str) -> bool:
    found = parse_version(version)
    return (found.major, found.minor) >= FIRST_RELEASE


class _Nowhere:
    """The outcome of nothing run: where the recorder files its rows."""

    def __init__(self, run_dir: Path):
        self.run_dir = run_dir


def lacking(certify_run, request) -> bool:
    """True, with every check of an explored migration recorded not applicable, when the release lacks PIP-454
    (as test_metadata_migration records its scenarios then: issue 33); nothing is started."""
    if request_file.external() or _has_pip454(release()):
        return False
    reason = f"PIP-454 is in Pulsar 4.2.0 and later; this run is on {release()}"
    rec = Recorder(certify_run, request, _Nowhere(certify_run.directory("captures", "explore")), CHECKS)
    rec.record(not_applicable(f"metadata-migration/explore/{check}", reason) for check in SCENARIO_CHECKS["none"])
    rec.finish()
    return True


class Deployments:
    """Fresh standalones on ZooKeeper with an Oxia server, one per schedule (``fresh``), each stopped with its
    logs collected when its schedule ends (``done``). The first is started at once: what it can do is the
    run's capabilities (``capabilities``), and the first schedule takes it."""

    def __init__(self, factory, certify_run):
        if request_file.external():
            raise UsageError("explore --live metadata-migration migrates a fresh cluster in every schedule, and an "
                             "operator's cluster can be migrated once",
                             "certify it with `certify --profile metadata-migration --deployment FILE` (one scenario "
                             "per fresh cluster), or explore on the suite's own deployments (no --deployment FILE)")
        if not _has_pip454(release()):  # lacking() records it not applicable before anything is asked for
            raise UsageError(f"PIP-454 is in Pulsar 4.2.0 and later; this run is on {release()}",
                             "explore it with --pulsar-version 4.2.4 (or later)")
        self.factory, self.certify_run = factory, certify_run
        self.count = 0
        self.spare = self._start("first")
        self._capabilities = self._can(self.spare)

    def _start(self, label: str):
        self.count += 1
        began = time.monotonic()
        deployment = self.factory([CLUSTER], name=f"mm-explore-{os.getpid()}-{self.count}-{uuid.uuid4().hex[:4]}",
                                  pulsar_version=release(), metadata="zk", oxia_server=True)
        progress(f"explore: {label}: a fresh {release()} standalone on ZooKeeper with an Oxia server, up in "
                 f"{time.monotonic() - began:.1f} s (a schedule costs a deployment start)")
        return deployment

    @staticmethod
    def _can(deployment) -> frozenset:
        found = set(deployment.capabilities())
        if isinstance(site.of(deployment, CLUSTER), site.LocalSite):
            found |= set(OXIA)  # the Oxia server beside the brokers: kill_service/start_service
        if _topology(deployment) and len(deployment.components(CLUSTER, "bookie")) >= 2:
            found.add(PARTICIPANT_CAPABILITY)  # a bookie that is not the coordinator, and not the only one
        return frozenset(found)

    def capabilities(self) -> frozenset:
        return self._capabilities

    def fresh(self, name: str):
        if self.spare is not None:
            deployment, self.spare = self.spare, None
            return deployment
        return self._start(f"schedule {name}")

    def done(self, deployment, name: str) -> None:
        """The schedule's deployment stopped, its logs in the bundle first; never raises (said)."""
        try:
            deployment.collect_logs(self.certify_run.directory("logs", "metadata-migration", name))
        except Exception as error:  # noqa: BLE001 - the logs are evidence, not the verdict
            progress(f"explore: the logs of schedule {name} could not be kept: {type(error).__name__}: {error}")
        finally:
            try:
                deployment.close()
            except Exception as error:  # noqa: BLE001 - said; the factory stops it at the session's end anyway
                progress(f"explore: the deployment of schedule {name} did not stop: {type(error).__name__}: {error}")

    def close(self) -> None:
        if self.spare is not None:
            self.done(self.spare, "unused")
            self.spare = None


@contextmanager
def deployment(factory, certify_run):
    """The explore test's deployments (conformance/explore/test_explore_live.py): fresh ones per schedule."""
    made = Deployments(factory, certify_run)
    try:
        yield made
    finally:
        made.close()


# ------------------------------------------------------------------ the adapter


def refusal(step: Step, *, started: bool, faulted: bool, retried: bool, phase: str | None = None) -> str | None:
    """Why the live schedule cannot take ``step`` (None: it can). By the schedule's own steps (the same on every
    replay, so ``Adapter.allows`` narrows the choices by them): the waits, the second start and the
    coordinator's kill only once a migration was started; one fault per schedule (the outcome names one: a
    fault step that came to nothing counts too); one retry. By the ``phase`` now, when given (at the moment a
    step is performed, said ``not-reached``): Oxia not killed once the migration COMPLETED (the cluster runs on
    it then: an outage of its only store is no PIP-454 fault), the coordinator killed only in PREPARATION or
    COPYING."""
    action = step.action
    if action in ("await-copying", "await-end", "start-again", "coordinator_crash") and not started:
        return "no migration was started yet"
    if action in FAULT_OF and faulted:
        return "the schedule made its one fault already (the outcome names one)"
    if action == "start-again" and retried:
        return "the migration was retried already"
    if phase is None:
        return None
    if action == "target_lost" and phase == "COMPLETED":
        return "the migration COMPLETED: the cluster runs on Oxia, and killing its only store is no PIP-454 fault"
    if action == "coordinator_crash" and phase not in observe.READ_ONLY:
        return f"the migration is not in PREPARATION or COPYING ({phase}): the coordinator is killed inside it"
    return None


def narrowed(vocabulary: Vocabulary, allows) -> Vocabulary:
    """``vocabulary`` with ``allows`` applied to its faults too (the Tracker asks ``allows`` of the spec's
    operations only; a fault's ``enabled`` sees the active faults alone)."""
    def fault(f: Fault) -> Fault:
        return dataclasses.replace(f, enabled=lambda a, f=f: f.enabled(a) and allows(Step(f.name, "fault"), a))

    return dataclasses.replace(vocabulary, faults=tuple(fault(f) for f in vocabulary.faults), allows=allows)


class Adapter(AdapterBase, protocol=PROTOCOL, vocabulary=VOCABULARY, spec=spec):
    def __init__(self, deployments, run_dir: Path, capabilities: frozenset):
        super().__init__(deployments, run_dir, capabilities)
        self.deployments = deployments  # a deployment per schedule (Deployments), not one shared
        self.live: Session | None = None

    def usable(self, capabilities: frozenset) -> Vocabulary:
        return narrowed(usable(capabilities), self.allows)

    def allows(self, step: Step, active: frozenset) -> bool:
        """The model's narrowing, then the live schedule's (``refusal``; no schedule under way: a check on the
        model alone, a shrinking candidate, is not narrowed, and a step the live schedule cannot take is
        ``not-reached`` when it runs)."""
        if not _allows(step, active):
            return False
        live = self.live
        if live is None:
            return True
        return live.can(step) is None

    def begin(self, name: str) -> Session:
        self.live = None
        self.live = Session(self, name)
        return self.live

    def close(self) -> None:
        self.deployments.close()


class Session:
    """One schedule: its own deployment, seeded; the traffic, the pollers and the background prober
    running; what the tester's steps did."""

    def __init__(self, adapter: Adapter, name: str):
        self.adapter, self.name = adapter, name
        self.dir = adapter.run_dir / name
        self.dir.mkdir(parents=True, exist_ok=True)
        self.line = timeline.Timeline(name)
        self.stack = ExitStack()
        self.seen = Observed()
        self.oxia_down = False
        self.broker_gone = False  # the coordinator's broker did not start again on a standalone (F-454-1)
        self.paused: str | None = None  # the participant paused now
        self.watching = True  # the first migration's pollers and prober still run (a retry ends them)
        self.faulted = False  # a fault step was taken (whatever came of it): the schedule's one
        self.start_call: float | None = None
        self.writes_made = 0
        self.deployment = adapter.deployments.fresh(name)
        try:
            self._begin()
        except BaseException:
            self.close()
            raise

    def _begin(self) -> None:
        deployment = self.deployment
        self.cluster = deployment.clusters[CLUSTER]
        self.admin = self.cluster.admin()
        self.where = site.of(deployment, CLUSTER)
        scenario.seed(self.admin, self.cluster.name, NODES, self.line)
        self.log_from = len(deployment.broker_log(CLUSTER).splitlines())
        self.seen.participants_before = scenario._participants(self.where.zookeeper)
        self.prober = observe.Prober(self.admin, scenario.TENANT, scenario.BASE)
        self.tester = observe.Prober(self.admin, scenario.TENANT, scenario.BASE, prefix="x")  # the write steps'
        self.phases = observe.Phases(self.admin)
        self.flag = observe.ZooKeeperFlag(self.where.zookeeper)
        self.capture = self.stack.enter_context(Capture(self.dir, allowed=["redelivered_after_ack", "duplicate"],
                                                        scenario={"name": self.name, "explore": True,
                                                                  "nodes": NODES, "rate": RATE}))
        self.traffic = Traffic(self.capture, self.cluster, [TopicLoad(scenario.DATA_TOPIC, (Sub("s", "Shared"),), rate=RATE)])
        self.stack.callback(self.traffic.close)
        self.traffic.start()
        self.phases.begin()
        self.flag.begin()
        self.prober.begin()
        self.stack.callback(self._unwatch)
        time.sleep(SETTLE_S)
        if not self.phases.wait_for(("NOT_STARTED",), 10):
            raise RuntimeError(f"the status endpoint did not answer NOT_STARTED within 10 s of the seed "
                               f"({self.phases.current()}): a fresh cluster is unmigrated")

    # ----- what the live schedule can take now
    def phase(self) -> str | None:
        """The phase now: ZooKeeper's flag where it is past the status (the coordinator writes it there first;
        4.2.4's status stops at COPYING: F-454-10), else the status's."""
        status, flag = self.phases.current(), self.flag.current()
        order = ("NOT_STARTED", "PREPARATION", "COPYING", "COMPLETED", "FAILED")
        if flag in order and (status not in order or order.index(flag) > order.index(status)):
            return flag
        return status

    def can(self, step: Step, now: bool = False) -> str | None:
        """None where the schedule can take ``step``, else why not: by its own steps, and (``now``) by the phase."""
        return refusal(step, started=self.seen.start is not None, faulted=self.faulted, retried=self.seen.retry is not None,
                       phase=self.phase() if now else None)

    # ----- the steps
    def perform(self, step: Step, entry: Entry) -> None:
        why = self.can(step, now=True) if step.action not in ("start-oxia", "resume-participant") else None
        self.faulted = self.faulted or step.action in FAULT_OF
        if why is not None:
            entry.result, entry.said = "not-reached", why
        else:
            getattr(self, "_" + step.action.replace("-", "_"))(step, entry)
        self.line.mark(f"step {entry.index}: {step.label()} in {self.phase()}: {entry.result}"
                       + (f" ({entry.said})" if entry.said else ""), entry.invoke_ns)

    def _start(self, step: Step, entry: Entry) -> None:
        self.seen.target_up_at_start = not self.oxia_down
        self.start_call = time.monotonic()
        answer = observe.start(self.admin, self.where.target_url)
        self.seen.start = answer.__dict__ | {"ok": answer.ok}
        if not answer.ok:
            entry.result = "error"
        entry.said = f"start -> {answer.status}" + ("" if answer.ok else f": {str(answer.body)[:160]}")

    def _write(self, kind: str, entry: Entry) -> None:
        i = 3 * self.writes_made + observe.Prober.KINDS.index(kind)  # Prober.write's kind is KINDS[i % 3]
        self.writes_made += 1
        phase = self.phase()
        write = self.tester.write(i)
        self.tester.writes.append(write)
        answer = write.answer
        entry.said = (f"{kind} {write.target} in {phase}: " + ("accepted" if answer.ok else
                      f"refused ({answer.status}: {str(answer.body)[:120]})"))

    def _write_namespace(self, step: Step, entry: Entry) -> None:
        self._write("namespace", entry)

    def _write_policy(self, step: Step, entry: Entry) -> None:
        self._write("policy", entry)

    def _write_topic(self, step: Step, entry: Entry) -> None:
        self._write("topic", entry)

    def _nobody_left(self) -> bool:
        """On a standalone whose one broker did not start again nobody can end the migration (F-454-1)."""
        return self.broker_gone and not _topology(self.deployment)

    def _await_copying(self, step: Step, entry: Entry) -> None:
        if self._nobody_left():
            entry.result, entry.said = "not-reached", "the coordinator's broker did not start again: nobody copies"
            return
        began = time.monotonic()
        found = wait_until(lambda: self.phase() if self.phase() in ("COPYING", *observe.DONE) else None,
                           timeout=COPYING_S, interval=0.02)
        if found is None:
            entry.result, entry.said = "not-reached", f"no COPYING within {COPYING_S:.0f} s (still {self.phase()})"
        else:
            entry.said = f"{found} seen {time.monotonic() - began:.1f} s later"

    def _await_end(self, step: Step, entry: Entry) -> None:
        if not self.watching:
            entry.said = f"the first migration ended {self.seen.phases[-1]['phase'] if self.seen.phases else '?'}; retried"
            return
        if self._nobody_left():
            entry.result, entry.said = "not-reached", ("the coordinator's broker did not start again on the standalone: "
                                                       "nobody is left to end the migration (F-454-1)")
        else:
            began = time.monotonic()
            status, flag = observe.wait_for_end(self.phases, self.flag, END_S)
            if status or flag:
                entry.said = f"status {status}, ZooKeeper's flag {flag} after {time.monotonic() - began:.1f} s"
            else:
                entry.result = "not-reached"
                entry.said = f"no end phase within {END_S:.0f} s (status {self.phases.current()}, flag {self.flag.current()})"
        if self.seen.fault and self.start_call is not None:
            self.seen.fault["watched_s"] = round(time.monotonic() - self.start_call, 1)

    def _coordinator_crash(self, step: Step, entry: Entry) -> None:
        deployment = self.deployment
        component = {"component": "broker-1"} if _topology(deployment) else {}
        # paused while the flag is read: it writes no phase meanwhile, so the kill lands in the phase read
        deployment.faults.pause(CLUSTER, **component)
        try:
            with stores.zookeeper_client(self.where.zookeeper, 10) as zk:
                flag = observe.read_flag(zk)["phase"]
        except BaseException:
            deployment.faults.resume(CLUSTER, **component)
            raise
        if flag not in observe.READ_ONLY:
            deployment.faults.resume(CLUSTER, **component)
            entry.result, entry.said = "not-reached", f"ZooKeeper's flag said {flag} when the coordinator was paused: not killed"
            return
        self.seen.fault_kind = "coordinator"
        fault = scenario._fault(deployment, self.where, Plan(fault="coordinator"), self.phases, self.line)
        self.seen.fault = {**fault, "flag_at_kill": flag}
        self.broker_gone = "restart_error" in fault
        entry.said = (f"killed with the flag at {flag} (status {fault.get('injected_in')}); "
                      + (f"it did not start again: {fault['restart_error']}" if self.broker_gone else "started again"))

    def _target_lost(self, step: Step, entry: Entry) -> None:
        injected = self.phases.current()
        self.where.kill_target()
        self.oxia_down = True
        self.seen.fault_kind = "oxia"
        self.seen.fault = {"injected_in": injected}
        self.line.mark(f"Oxia killed (phase {injected})")
        entry.said = f"Oxia killed in {injected} (flag {self.flag.current()})"

    def _start_oxia(self, step: Step, entry: Entry) -> None:
        if not self.oxia_down:
            entry.said = "Oxia is up (the retry started it)"
            return
        self.where.start_target()
        self.oxia_down = False
        self.line.mark("Oxia started again")
        entry.said = "Oxia started again on its data"

    def _stop_watching(self) -> None:
        """The first migration's observation over (scenario.run's order): the pollers and the prober stopped,
        then the writes kept and the broker's log marks read, before a retry or the judge step."""
        if not self.watching:
            return
        self.watching = False
        self.prober.end()
        self.phases.end()
        self.flag.end()
        self.seen.phases, self.seen.flag = list(self.phases.seen), self.flag.to_json()
        self.seen.writes = [w.to_json() for w in [*self.prober.writes, *self.tester.writes]]
        self.seen.kept = observe.kept(self.admin, scenario.TENANT, scenario.BASE, self._writes())
        log = "\n".join(self.deployment.broker_log(CLUSTER).splitlines()[self.log_from:])
        self.seen.log_marks = scenario._log_marks(log)

    def _writes(self) -> list:
        return [*self.prober.writes, *self.tester.writes]

    def _start_again(self, step: Step, entry: Entry) -> None:
        phase = self.phase()
        if phase == "FAILED":
            self._stop_watching()
            # scenario._retry starts the target first; here Oxia may be up already (never killed, or started again)
            where = self.where if self.oxia_down else SimpleNamespace(
                cluster=self.where.cluster, zookeeper=self.where.zookeeper, target_url=self.where.target_url,
                start_target=lambda: None)
            self.seen.retry = scenario._retry(self.deployment, where, self.line)
            self.oxia_down = False
            retry = self.seen.retry
            entry.said = (f"the retry after FAILED: start -> {retry['start']}, phases "
                          f"{' -> '.join(p['phase'] for p in retry['phases']) or 'none'}, "
                          f"{retry['participants_registered']} participant(s) registered")
            return
        answer = observe.start(self.admin, self.where.target_url)
        self.seen.fault.setdefault("second_starts", []).append(
            {"in": phase, "status": answer.status, "body": None if answer.ok else str(answer.body)[:300],
             "sent_ns": answer.sent_ns})
        entry.said = f"a second start in {phase} -> {answer.status}" + ("" if answer.ok else f": {str(answer.body)[:120]}")

    def _pause_participant(self, step: Step, entry: Entry) -> None:
        name = scenario._participant(self.deployment, CLUSTER)
        phase = self.phases.current()
        self.deployment.faults.pause(CLUSTER, component=name)
        self.paused = name
        self.seen.fault_kind = "participant"
        self.seen.fault = {"participant": name, "paused_in": phase}
        self.line.mark(f"{name} (a participant) paused")
        entry.said = f"{name} paused in {phase}"

    def _restart_participant(self, step: Step, entry: Entry) -> None:
        if self.paused is None:
            entry.result, entry.said = "not-reached", "no participant is paused"
            return
        held = scenario._held(self.deployment, self.where, self.phases, self.line)  # held, killed, started again
        self.paused = None
        self.seen.fault.update(held)
        entry.said = (f"{held['participant']} held {held['held_s']:.0f} s more (phases {', '.join(held['phases_while_held'])}), "
                      f"killed and started again" + (f": {held['participant_restart_error']}"
                                                    if held.get("participant_restart_error") else ""))

    def _resume_participant(self, step: Step, entry: Entry) -> None:
        if self.paused is None:
            entry.said = "no participant is paused"
            return
        self.deployment.faults.resume(CLUSTER, component=self.paused)
        self.seen.fault["resumed_in"] = self.phases.current()
        entry.said = f"{self.paused} resumed in {self.phases.current()}"
        self.paused = None

    # ----- the end of a schedule
    def closing(self, tracker) -> list[Step]:
        return closing_steps(tracker)

    def judge(self, schedule: Schedule) -> tuple[Outcome, list]:
        """What scenario.run reads after the migration, into the Outcome, saved beside the capture with the
        schedule's history, and judge.judge's rows over it. The capture's verdict is the in-process engine's
        here, for the search's next decision; the recorded one is Spark's, afterwards (test_explore_live)."""
        if self.watching:
            time.sleep(AFTER_END_S)  # writes after the end: accepted again?
            self._stop_watching()
        self.traffic.stop(drain_seconds=DRAIN_S)
        self.line.hung(self.traffic.hung)
        self.stack.close()  # the capture complete before it is read
        seen = self.seen
        if seen.fault.get("participant") and "held_s" in seen.fault:  # did it become a bookie again (F-454-13)?
            seen.fault["registered_after_restart"] = scenario._registered_bookie(self.deployment, self.where,
                                                                                 seen.fault["participant"])
        out = outcome_of(self.name, self.dir, seen)
        if seen.retry is None and ended(seen) == "COMPLETED":
            scenario._after_cutover(self.deployment, self.where, out, SimpleNamespace(writes=self._writes()), self.line)
        out.target_broken = self.where.target_problem()
        if out.target_broken:
            self.line.say(out.target_broken)
        columns = evidence.read_capture(self.dir)
        out.verdict = evidence.spark_verdict(self.dir, columns, engine="duckdb")
        out.columns = columns  # not a field (not saved): what test_explore_live's Spark step reads the capture from
        out.markers = self.line.markers
        timeline.save(self.dir, PROTOCOL, out.to_json(), self.line.markers, None)  # verdict.json: Spark's, afterwards
        saved.save(out, self.dir)
        write_atomic(self.dir / "schedule.json", json.dumps({**schedule.to_json(), "history": history_json(schedule)},
                                                             indent=1))
        return out, JUDGE(out)

    def _unwatch(self) -> None:
        for series in (self.prober, self.phases, self.flag):
            try:
                series.end()
            except Exception:  # noqa: BLE001, S110 - a poller of a stopped deployment
                pass

    def close(self) -> None:
        """Whatever the schedule left: a paused participant resumed, the threads and the capture closed, the
        deployment stopped with its logs kept. Never raises (said)."""
        if self.paused is not None:
            try:
                self.deployment.faults.resume(CLUSTER, component=self.paused)
            except Exception as error:  # noqa: BLE001 - the deployment is stopped next anyway
                progress(f"explore: could not resume {self.paused}: {error}")
            self.paused = None
        try:
            self.stack.close()
        except Exception as error:  # noqa: BLE001 - said
            progress(f"explore: schedule {self.name}: closing the traffic and the capture: {error}")
        self.adapter.deployments.done(self.deployment, self.name)
        if self.adapter.live is self:
            self.adapter.live = None
