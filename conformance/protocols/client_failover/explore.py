"""PIP-121 client failover explored live (``explore --live client-failover``): the tester's faults on the
primary and the secondaries in any order and at any timing the spec allows, against the real Java client,
each schedule judged by explore_judge.judge (judge.py's ``common``, the trace with the checks that must
have run).

**The client.** One: the Java client (pulsar-client-original's ``AutoClusterFailover``, Harness.java in a
JVM through java_client.py), with the Java scenarios' ``FailoverConfig`` (checks every 500 ms,
failoverDelay 2800 ms, switchBackDelay 5000 ms), judged against the spec's ``java`` variant. It is the one
whose switches are seen as they happen (the harness says where the client is attached, polled every 5 ms)
and whose own log names every failed probe and every switch with where it came from (java_log.py), so a
schedule judges R10 too; its checks run at a fixed rate, which bounds the checks between two observations
from below as well as above (explore_judge.py), and its known defects (F-121-1, F-121-2) live in exactly
the interleavings a schedule generates: a kill within one check of a switch-back, a secondary dying
shortly before one. The Python client (the spec's ``cpp``) and ControlledClusterFailover (``controlled``,
the URL provider's answer as a tester step) are not explored yet.

**The tester's steps.** The spec's environment actions ``go_down(c)`` (SIGKILL: the port closes, the
probe fails) and ``come_up(c)`` (a start: the step ends when the port opens, as the probe first sees it,
while the broker finishes starting behind it, so the next step is timed against the client, not against
the broker's health check); a restart is a ``go_down`` and a ``come_up``, with what the schedule puts
between them; the last cluster up is never killed (Adapter.allows: with all down nothing can be judged).
Faults the spec does not model: ``pause-c``/``resume-c`` (SIGSTOP: the port stays open, the
probe succeeds, nothing is served; a pause is held at most PAUSE_MAX_S, then the adapter resumes it, as a
standalone paused much longer may lose its metadata session), ``wait-k`` (k checks of the client: 1, 3,
and the probes failoverDelay and switchBackDelay take, 7 and 11), ``await-switch`` (until the client's
next switch, bounded), ``await-primary`` (until the client is on the primary, bounded) and, on a cluster topology
with a Pulsar proxy per cluster (``--topology cluster --proxy``, where the clients connect through the proxies),
``half-dead-c``/``revive-c`` (every broker of c killed while its proxy answers the probe: the seed's own first
example of the probe's blind spot, PIP121-R07; revived, the brokers started and healthy). The client's
checks and switches are Pulsar's: observed, never chosen. The tracked spec state is the tester's part of
it (which clusters are up); where the client is comes from what it did, in the outcome.

**A schedule** starts with every cluster up and a new Java client on the primary, in a fresh namespace
replicated among the three (a producer at 50 msg/s and an Exclusive consumer through the failover
client), and ends (``closing``) with every paused cluster resumed, every killed one started, and the
client back on the primary (bounded), every start finished before the next schedule begins. Its outcome
is judge.py's ``Outcome`` (an ``ExploredOutcome``), saved beside its capture as a scenario's is.
"""
from __future__ import annotations

import json
import os
import socket
import threading
import time
import uuid
from contextlib import ExitStack, contextmanager
from pathlib import Path

from pulsar_conformance.files import write_atomic
from pulsar_conformance.fixtures.capture import Capture
from pulsar_conformance.output import progress
from pulsar_conformance.wait import wait_until

from ...explore.model import AdapterBase, Fault, Vocabulary
from ...explore.schedule import Entry, Schedule, Step, history_json
from ...harness import evidence, timeline
from ...harness import outcome as saved
from . import explore_judge, observe, scenario, trace
from .checks import CHECKS
from .client import client_url
from .explore_judge import ExploredOutcome
from .java_client import JavaFailoverClient
from .judge import probes_for
from .outcome import Event, FailoverConfig

PROTOCOL = "client-failover"
# the Java scenarios' configuration (test_java_client_failover.JAVA): figures comparable with theirs
CONFIG = FailoverConfig("primary", ("s1", "s2"), interval_ms=500, variant="java", failover_delay_ms=2800,
                        switch_back_delay_ms=5000)
# the spec's clusters (primary, s1, s2: a step's ``c`` indexes them) are the deployment's (client.CLUSTERS), in order
CLUSTERS = (CONFIG.primary, *CONFIG.secondaries)
INTERVAL_S = CONFIG.interval_ms / 1000
RATE = 50.0  # msg/s, as the scenarios
DRAIN_S = 30.0  # the harness's drain: until every acknowledged send was delivered, at most this long
PORT_OPEN_S = 180.0  # come_up waits this long for the started broker's port
PORT_CLOSED_S = 10.0  # go_down waits this long for the killed broker's port to refuse
START_S = 330.0  # a start under way is waited for this long (deployment.faults.start's own bound is 300 s)
PAUSE_MAX_S = 8.0  # the longest pause (the scenarios' is 4 s); then the adapter resumes it
# the waits, in checks: one, a few, and the probes each delay takes (7 and 11 at these settings)
WAITS = (1, 3, probes_for(CONFIG.failover_delay_ms, CONFIG), probes_for(CONFIG.switch_back_delay_ms, CONFIG))
# the next switch: the longer delay as probes, and a few checks for a loaded machine
AWAIT_SWITCH_S = (WAITS[-1] + 3) * INTERVAL_S
# back on the primary: a switch-back, or a failover delay and a switch-back from a dead secondary
AWAIT_PRIMARY_S = (WAITS[-2] + WAITS[-1] + 4) * INTERVAL_S


def _paused(cluster: str) -> str:
    return f"paused-{cluster}"


def _half_dead(cluster: str) -> str:
    return f"half-dead-{cluster}"


def _operable(step: Step, active: frozenset) -> bool:
    """A paused cluster is neither killed nor started (resume it first): its process is stopped; nor is a
    half-dead one (revive it first): its brokers are down behind a proxy that is up."""
    if step.kind != "operation":
        return True
    cluster = CLUSTERS[step.arg("c")]
    return _paused(cluster) not in active and _half_dead(cluster) not in active


VOCABULARY = Vocabulary(
    operations=("go_down", "come_up"),
    faults=(*(Fault(f"pause-{c}", "pause", lambda a, c=c: _paused(c) not in a and _half_dead(c) not in a,
                    lambda a, c=c: a | {_paused(c)})
              for c in CLUSTERS),
            *(Fault(f"resume-{c}", "resume", lambda a, c=c: _paused(c) in a, lambda a, c=c: a - {_paused(c)})
              for c in CLUSTERS),
            # PIP-121's half-dead cluster (a topology with a Pulsar proxy, --proxy): every broker killed while the
            # proxy answers, so the client's TCP probe succeeds and nothing is served (the seed's own first
            # example of the probe's blind spot, PIP121-R07); the spec does not model it: the cluster stays up
            *(Fault(f"half-dead-{c}", "half-dead", lambda a, c=c: _half_dead(c) not in a and _paused(c) not in a,
                    lambda a, c=c: a | {_half_dead(c)}) for c in CLUSTERS),
            *(Fault(f"revive-{c}", "half-dead", lambda a, c=c: _half_dead(c) in a, lambda a, c=c: a - {_half_dead(c)})
              for c in CLUSTERS),
            *(Fault(f"wait-{k}", None, lambda _a: True) for k in WAITS),
            Fault("await-switch", None, lambda _a: True),
            Fault("await-primary", None, lambda _a: True)),
    visible=("up",),  # the tester's part of the spec state; the client's is observed (explore_judge)
    allows=_operable)

# the spec operations' capabilities (Vocabulary's faults carry theirs): both, or the operations are not generated
OPERATIONS_NEED = ("kill", "start")


def usable(capabilities: frozenset, allows=_operable) -> Vocabulary:
    """What this deployment can perform: kill and start both or neither (a cluster killed must come back),
    pause with resume only (a pause must end); ``allows``: the adapter's narrowing (Adapter.allows)."""
    kept = VOCABULARY.usable(capabilities)
    faults = tuple(f for f in kept.faults if not (f.name.startswith("pause-") and "resume" not in capabilities))
    operations = VOCABULARY.operations if set(OPERATIONS_NEED) <= capabilities else ()
    return Vocabulary(operations, faults, kept.eventually, kept.visible, allows)


def spec():
    return trace.spec_for(CONFIG)


# the saved outcome's judge (what the recorded verdicts come from), its checks, and a capture Spark checks (R11)
JUDGE, CHECKS, SPARK = explore_judge.judge, CHECKS, True


@contextmanager
def deployment(factory, certify_run):
    """The deployment the client-failover suites share (conftest.py's ``clusters``: a primary and two
    secondaries), for the explore test, which runs where that package fixture is not seen: the same shape,
    its logs collected into the bundle, closed with the test."""
    clusters = factory(CLUSTERS, name=f"failover-explore-{os.getpid()}")
    try:
        yield clusters
    finally:
        try:
            clusters.collect_logs(certify_run.directory("logs", "client-failover"))
        finally:
            clusters.close()


def _port_open(deployment, cluster: str, *, brokers: bool = False) -> bool:
    """Whether the client's probe of ``cluster`` would succeed now: a TCP connect to any of its brokers, or to its
    Pulsar proxy where it has one (``client_url``); ``brokers``: to its brokers whatever is in front of them."""
    url = deployment.clusters[cluster].service_url if brokers else client_url(deployment, cluster)
    for host, port in scenario._addresses(url):
        try:
            with socket.create_connection((host, port), timeout=0.5):
                return True
        except OSError:
            continue
    return False


def closing_steps(tracker) -> list[Step]:
    """What brings the deployment back to where every schedule starts, from where the tracked schedule
    stopped: paused clusters resumed, half-dead ones revived, killed ones started, the client back on the primary
    (bounded)."""
    steps = [Step(f"resume-{c}", "fault") for c in CLUSTERS if _paused(c) in tracker.active]
    steps += [Step(f"revive-{c}", "fault") for c in CLUSTERS if _half_dead(c) in tracker.active]
    steps += [Step("come_up", "operation", (("c", i),)) for i, _ in enumerate(CLUSTERS) if not tracker.state.up[i]]
    return [*steps, Step("await-primary", "fault")]


def outcome_of(name: str, run_dir: Path, start_ns: int, faults: list[Event], switches: list[tuple[int, str, str]],
               markers: list[dict], marks: dict[str, int], columns: dict, verdict: dict, *, errors: list[str],
               hung: list[str], java: dict, backlogs: dict | None) -> ExploredOutcome:
    """A schedule's outcome from what it observed, as scenario._outcome builds a Java scenario's: the
    faults and the client's switches (``(time, from, to)``) as one time-ordered list of events, with the
    verdict over the capture the adapter's ``judge`` step took (the scenarios' is added by record.py)."""
    events = sorted([*faults, *(Event(at, "switch", to, origin) for at, origin, to in switches)], key=lambda e: e.at_ns)
    return ExploredOutcome(name, run_dir, CONFIG, start_ns, events, markers, verdict, columns["kind"].count("send_ok"),
                           errors, hung, java=java, backlogs=backlogs, drain_complete=True, controlled=False,
                           marks=dict(marks), columns=columns)


class Adapter(AdapterBase, protocol=PROTOCOL, vocabulary=VOCABULARY, spec=spec):
    def __init__(self, deployment, run_dir: Path, capabilities: frozenset):
        super().__init__(deployment, run_dir, capabilities)
        self.paused: set[str] = set()  # clusters a session left paused (resumed before the next one)
        self.half_dead: set[str] = set()  # clusters a session left half-dead (revived before the next one)
        self.live: Session | None = None  # the schedule under way

    def usable(self, capabilities: frozenset) -> Vocabulary:
        return usable(capabilities, allows=self.allows)

    def allows(self, step: Step, active: frozenset, state=None) -> bool:
        """The adapter's narrowing of what the spec enables: no kill or start of a paused cluster, and never
        the last cluster up killed. With every cluster down no switch can be made or judged (the client has
        nowhere to go), and Hypothesis's plainest schedule, the first choice at each step, was exactly that:
        every cluster killed, then the primary started and killed again, each start ten seconds, nothing
        judged. The clusters down are the spec state's (``state``, where the tracker gives it) or the live
        schedule's, which took the same steps; a check on the model alone (a shrinking candidate) has
        neither and does not narrow, so a candidate killing the last cluster is refused when it runs."""
        if not _operable(step, active):
            return False
        if step.action != "go_down":
            return True
        if state is not None:
            return sum(state.up) > 1
        live = self.live
        return live is None or len(live.down) < len(CLUSTERS) - 1

    def begin(self, name: str) -> Session:
        self.live = None
        self.all_up()
        self.live = Session(self, name)
        return self.live

    def all_up(self) -> None:
        """Every cluster up and not paused: what a schedule starts from. A session that could not heal what
        it did (its close said why) is healed here, or the schedule does not run (its error says why)."""
        for cluster in sorted(self.paused):
            self.deployment.faults.resume(cluster)
            self.paused.discard(cluster)
        for cluster in sorted(self.half_dead):
            self.deployment.faults.revive(cluster)
            self.half_dead.discard(cluster)
        for cluster in CLUSTERS:
            # its brokers, not the client's probe: a proxy in front of dead brokers answers the probe; and every
            # component of a cluster topology (a broker that exited while starting leaves the other's port open)
            stopped = [c for c in self.deployment.components(cluster) if c.process() is None]
            if stopped or not _port_open(self.deployment, cluster, brokers=True):
                progress(f"explore: {cluster} is down before a schedule; starting it")
                self.deployment.faults.start(cluster)

    def close(self) -> None:
        """The deployment left as the certification found it; never raises (the search's results are
        written after it): what could not be healed is said."""
        try:
            self.all_up()
        except Exception as error:  # noqa: BLE001 - said; the deployment's own close ends it anyway
            progress(f"explore: could not bring every cluster back up at the end: {type(error).__name__}: {error}")


class _Faults(scenario.Faults):
    """The scenarios' faults, a kill's event recorded before the SIGKILL: a start under way that the kill
    ends asks for it (scenario.Faults.start: a start ended by a kill of ours is no error)."""

    def kill(self, cluster: str) -> None:
        event = Event(time.time_ns(), "down", cluster)
        self._record(event)
        try:
            self.signal("kill", cluster)
        except BaseException:
            with self._lock:
                self.events.remove(event)
            raise
        self.mark(f"{cluster} killed (SIGKILL)")


class Session:
    """One schedule: its namespace and topic, its capture, its Java client, the faults it made."""

    def __init__(self, adapter: Adapter, name: str):
        self.adapter, self.name = adapter, name
        deployment = adapter.deployment
        self.dir = adapter.run_dir / name
        self.dir.mkdir(parents=True, exist_ok=True)
        ns = deployment.replicated_namespace("pfx", f"{name}-{uuid.uuid4().hex[:6]}", list(CLUSTERS))
        self.topic = f"persistent://{ns}/orders"
        self.faults = _Faults(deployment, timeline.Timeline(name))
        self.down: set[str] = set()  # killed and not started since
        self.paused: dict[str, threading.Timer] = {}  # paused now, with the timer that resumes it
        self.resumed_by_adapter: dict[str, int] = {}  # a pause the adapter ended at PAUSE_MAX_S, when
        self.noop_paused: set[str] = set()  # "paused" while down: nothing was done
        self.half_dead: set[str] = set()  # brokers killed behind the proxy, not revived since
        self.noop_half_dead: set[str] = set()  # "half-dead" while down: nothing was done
        self.starting: dict[str, threading.Thread] = {}
        self.start_errors: dict[str, BaseException] = {}
        self._lock = threading.Lock()
        self.stack = ExitStack()
        try:
            self.capture = self.stack.enter_context(Capture(
                self.dir, allowed=list(scenario.ALLOWED),
                scenario={"name": name, "client": "java", "explore": True, **CONFIG.to_json()}))
            self.capture.must_see(self.topic, "reader")
            self.client = JavaFailoverClient(deployment, CONFIG, self.dir, self.topic, rate=RATE, drain_seconds=DRAIN_S)
            self.faults.client = self.client
            self.client.start()
            self.stack.callback(self.client.kill)
            if self.client.current() != CONFIG.primary:
                raise RuntimeError(f"the Java client started on {self.client.current()}, not on the primary: every "
                                   "schedule starts on the primary")
        except BaseException:
            self.stack.close()
            raise
        self.start_ns = self.client.attached[0].at_ns
        self.faults.line.say(f"schedule {name}: {RATE:.0f} msg/s through a Java {self.client.version} failover client "
                             f"on the primary")

    # ----- the steps
    def perform(self, step: Step, entry: Entry) -> None:
        action = step.action
        if step.kind == "operation":
            cluster = CLUSTERS[step.arg("c")]
            (self._go_down if action == "go_down" else self._come_up)(cluster, entry)
        elif action.startswith("pause-"):
            self._pause(action.removeprefix("pause-"), entry)
        elif action.startswith("resume-"):
            self._resume(action.removeprefix("resume-"), entry)
        elif action.startswith("half-dead-"):
            self._half_dead(action.removeprefix("half-dead-"), entry)
        elif action.startswith("revive-"):
            self._revive(action.removeprefix("revive-"), entry)
        elif action.startswith("wait-"):
            checks = int(action.removeprefix("wait-"))
            time.sleep(checks * INTERVAL_S)
            entry.said = f"waited {checks} check(s) of the client ({checks * INTERVAL_S:g} s)"
        elif action == "await-switch":
            self._await_switch(entry)
        elif action == "await-primary":
            self._await_primary(entry)
        else:
            raise ValueError(f"{step.label()} is no step of {PROTOCOL}'s adapter")
        self.faults.line.mark(f"step {entry.index}: {step.label()}: {entry.result}" + (f" ({entry.said})" if entry.said
                                                                                       else ""), entry.invoke_ns)

    def _go_down(self, cluster: str, entry: Entry) -> None:
        self.faults.kill(cluster)
        self.down.add(cluster)
        # the step ends when the port refuses, as the client's probe sees a cluster go down: a killed JVM holds its
        # listening socket until it has exited, and a come_up right after once took that dying port for the new
        # broker's, so the schedule's next kill found no process ("primary is not running": the adapter's, 5 of 55
        # schedules of a 20-minute run)
        began = time.monotonic()
        closed = wait_until(lambda: not _port_open(self.adapter.deployment, cluster), timeout=PORT_CLOSED_S,
                            interval=0.005)
        if closed:
            entry.said = (f"{cluster} killed (SIGKILL), its port closed {time.monotonic() - began:.2f} s later; the "
                          f"client on {self.client.current()}")
        else:
            entry.result = "not-reached"
            entry.said = f"{cluster} killed (SIGKILL) but its port still open {PORT_CLOSED_S:.0f} s later"

    def _come_up(self, cluster: str, entry: Entry) -> None:
        earlier = self.starting.pop(cluster, None)
        if earlier is not None:  # a start a kill of ours ended: it returns as soon as it sees the process gone
            earlier.join(START_S)
        self.start_errors.pop(cluster, None)
        began = time.monotonic()
        starting = threading.Thread(target=self._start, args=(cluster,), name=f"start-{cluster}", daemon=True)
        starting.start()
        self.starting[cluster] = starting
        wait_until(lambda: _port_open(self.adapter.deployment, cluster) or not starting.is_alive(),
                   timeout=PORT_OPEN_S, interval=0.005)
        if cluster in self.start_errors:
            raise RuntimeError(f"{cluster} did not start: {self.start_errors[cluster]}")
        if not _port_open(self.adapter.deployment, cluster):
            raise RuntimeError(f"{cluster}'s port did not open within {PORT_OPEN_S:.0f} s of its start")
        self.down.discard(cluster)
        entry.said = (f"{cluster}'s port open {time.monotonic() - began:.1f} s after its start"
                      + ("; its broker still starting" if starting.is_alive() else "; ready"))

    def _start(self, cluster: str) -> None:
        try:
            self.faults.start(cluster)
        except BaseException as error:  # noqa: BLE001 - said by the step waiting for the port, or at the join
            self.start_errors[cluster] = error

    def _started(self, cluster: str) -> None:
        """``cluster``'s start, if one is under way, finished (its broker ready, its event recorded)."""
        starting = self.starting.get(cluster)
        if starting is not None:
            starting.join(START_S)
            if starting.is_alive():
                raise RuntimeError(f"{cluster} still starting after {START_S:.0f} s")
        if cluster in self.start_errors and cluster not in self.down:
            raise RuntimeError(f"{cluster} did not start: {self.start_errors[cluster]}")

    def _pause(self, cluster: str, entry: Entry) -> None:
        if cluster in self.down:
            self.noop_paused.add(cluster)
            entry.result = "not-reached"
            entry.said = f"{cluster} is down (killed): nothing to pause"
            return
        self._started(cluster)  # a starting broker paused would time its own start out
        with self._lock:
            self.faults.pause(cluster)
            timer = threading.Timer(PAUSE_MAX_S, self._end_pause, args=(cluster,))
            timer.daemon = True
            self.paused[cluster] = timer
            self.adapter.paused.add(cluster)
            timer.start()
        entry.said = f"{cluster} paused (SIGSTOP: its port open, nothing served); held at most {PAUSE_MAX_S:g} s"

    def _end_pause(self, cluster: str) -> None:
        """The timer of a pause held PAUSE_MAX_S: resumed by the adapter, said in the timeline."""
        with self._lock:
            if cluster not in self.paused:
                return
            self.paused.pop(cluster)
            try:
                self.adapter.deployment.faults.resume(cluster)
            except Exception as error:  # noqa: BLE001 - the next schedule's all_up resumes it again
                self.faults.mark(f"{cluster}: the adapter could not resume it after {PAUSE_MAX_S:g} s: {error}")
                return
            self.adapter.paused.discard(cluster)
            self.resumed_by_adapter[cluster] = time.time_ns()
            self.faults.mark(f"{cluster} resumed by the adapter: a pause is held at most {PAUSE_MAX_S:g} s")

    def _resume(self, cluster: str, entry: Entry) -> None:
        with self._lock:
            timer = self.paused.pop(cluster, None)
            if timer is not None:
                timer.cancel()
                self.faults.resume(cluster)
                self.adapter.paused.discard(cluster)
                entry.said = f"{cluster} resumed"
                return
        if cluster in self.noop_paused:
            self.noop_paused.discard(cluster)
            entry.said = f"{cluster} was not paused (it was down): nothing to resume"
        elif cluster in self.resumed_by_adapter:
            entry.said = (f"{cluster} already resumed by the adapter at "
                          f"+{(self.resumed_by_adapter.pop(cluster) - self.start_ns) / 1e9:.3f} s "
                          f"(a pause is held at most {PAUSE_MAX_S:g} s)")
        else:
            raise RuntimeError(f"resume {cluster}: it is not paused (the adapter lost track of its pauses)")

    def _half_dead(self, cluster: str, entry: Entry) -> None:
        if cluster in self.down:
            self.noop_half_dead.add(cluster)
            entry.result, entry.said = "not-reached", f"{cluster} is down (killed): no broker to kill behind its proxy"
            return
        self._started(cluster)  # a start under way finished first: its brokers are what this kills
        self.adapter.deployment.faults.half_dead(cluster)
        self.half_dead.add(cluster)
        self.adapter.half_dead.add(cluster)
        self.faults.mark(f"{cluster} half-dead: every broker killed (SIGKILL), its Pulsar proxy answering")
        entry.said = (f"{cluster}'s brokers killed, its proxy up (the client's probe succeeds: "
                      f"{_port_open(self.adapter.deployment, cluster)}); the client on {self.client.current()}")

    def _revive(self, cluster: str, entry: Entry) -> None:
        if cluster in self.noop_half_dead:
            self.noop_half_dead.discard(cluster)
            entry.said = f"{cluster} was not half-dead (it was down): nothing to revive"
            return
        began = time.monotonic()
        self.adapter.deployment.faults.revive(cluster)
        self.half_dead.discard(cluster)
        self.adapter.half_dead.discard(cluster)
        self.faults.mark(f"{cluster} revived: its brokers started and healthy")
        entry.said = f"{cluster}'s brokers ready {time.monotonic() - began:.1f} s later; the client on {self.client.current()}"

    def _await_switch(self, entry: Entry) -> None:
        seen = len(self.client.attached)
        if wait_until(lambda: len(self.client.attached) > seen, timeout=AWAIT_SWITCH_S, interval=0.005):
            a, b = self.client.attached[seen - 1], self.client.attached[seen]
            entry.said = f"the client switched {a.cluster} -> {b.cluster} {(b.at_ns - entry.invoke_ns) / 1e9:.3f} s later"
        else:
            entry.result, entry.said = "not-reached", (f"no switch within {AWAIT_SWITCH_S:g} s (the client on "
                                                       f"{self.client.current()})")

    def _await_primary(self, entry: Entry) -> None:
        primary = CONFIG.primary
        if self.client.current() == primary:
            entry.said = "the client is on the primary"
            return
        if primary in self.down:
            entry.result, entry.said = "not-reached", "the primary is down: nothing to wait for"
            return
        if wait_until(lambda: self.client.current() == primary, timeout=AWAIT_PRIMARY_S, interval=0.005):
            entry.said = f"the client back on the primary {(time.time_ns() - entry.invoke_ns) / 1e9:.3f} s later"
        else:
            entry.result, entry.said = "not-reached", (f"the client still on {self.client.current()} after "
                                                       f"{AWAIT_PRIMARY_S:g} s")

    # ----- the end of a schedule
    def closing(self, tracker) -> list[Step]:
        return closing_steps(tracker)

    def judge(self, schedule: Schedule) -> tuple[ExploredOutcome, list]:
        """The schedule's outcome, as scenario.run_java's, saved beside its capture with its history, and
        explore_judge's rows over it. Spark's verdict here is the in-process engine's, for the search's next
        decision; the recorded verdicts are Spark's, over every schedule at the end (``JUDGE`` on the saved
        outcome)."""
        for cluster in CLUSTERS:
            self._started(cluster)  # every start over: its "up" event recorded, its broker ready
        self.faults.marks["end"] = time.time_ns()  # the client watched until now (explore_judge: the last checks)
        hung = []
        stopped = self.client.stop()
        if stopped:
            hung.append(stopped)
        self.client.kill()
        errors = self.client.copy_into(self.capture)
        self.stack.close()  # the capture complete before it is read
        if self.client.drained() is None:
            raise RuntimeError(f"the Java failover client did not drain to its end ({'; '.join(hung) or 'no drained line'}); "
                               f"its command line and stderr are in {self.dir}")
        backlogs = observe.backlogs(self.adapter.deployment, self.topic, "reader", CLUSTERS)
        columns = evidence.read_capture(self.dir)
        verdict = evidence.spark_verdict(self.dir, columns, engine="duckdb")
        java = {"version": self.client.version, "failed_probes": self.client.failed_probes(),
                "switch_log": self.client.switch_log(), "provider_polls": None, "drained": self.client.drained()}
        out = outcome_of(self.name, self.dir, self.start_ns, self.faults.events, self.client.switches(),
                         self.faults.line.markers, self.faults.marks, columns, verdict, errors=errors, hung=hung,
                         java=java, backlogs=backlogs)
        saved.save(out, self.dir)
        write_atomic(self.dir / "schedule.json", json.dumps({**schedule.to_json(), "history": history_json(schedule)},
                                                             indent=1))
        labels = [{"ts_ns": e.at_ns, "label": f"client {e.origin} -> {e.cluster}"} for e in out.switches()]
        timeline.save(self.dir, "failover", {"config": CONFIG.to_json(), "start_ns": self.start_ns,
                                             "events": [vars(e) for e in out.events], "java": java},
                      out.markers + labels, verdict)
        return out, JUDGE(out)

    def close(self) -> None:
        """Whatever the schedule left (it may have stopped on an error before its closing steps): pauses
        ended, starts finished, killed clusters started, the JVM and the capture closed. Never raises: what
        could not be healed is said, and the next schedule's ``Adapter.all_up`` heals it or does not run."""
        problems = []
        with self._lock:
            paused, self.paused = dict(self.paused), {}
        for cluster, timer in paused.items():
            timer.cancel()
            try:
                self.adapter.deployment.faults.resume(cluster)
                self.adapter.paused.discard(cluster)
            except Exception as error:  # noqa: BLE001 - said; all_up tries again
                problems.append(f"resume {cluster}: {error}")
        for cluster in CLUSTERS:
            starting = self.starting.get(cluster)
            if starting is not None:
                starting.join(START_S)
        for cluster in sorted(self.half_dead):
            try:
                self.adapter.deployment.faults.revive(cluster)
                self.half_dead.discard(cluster)
                self.adapter.half_dead.discard(cluster)
            except Exception as error:  # noqa: BLE001 - said; all_up tries again
                problems.append(f"revive {cluster}: {error}")
        for cluster in sorted(self.down):
            try:
                self.adapter.deployment.faults.start(cluster)
                self.down.discard(cluster)
            except Exception as error:  # noqa: BLE001 - said; all_up tries again
                problems.append(f"start {cluster}: {error}")
        try:
            self.stack.close()
        except Exception as error:  # noqa: BLE001 - the JVM or the capture: said
            problems.append(f"closing the client and the capture: {error}")
        if self.adapter.live is self:
            self.adapter.live = None
        if problems:
            progress(f"explore: schedule {self.name} could not heal everything: {'; '.join(problems)}")
