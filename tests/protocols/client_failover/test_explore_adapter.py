"""The client-failover live adapter's pure parts (conformance/protocols/client_failover/explore.py,
explore_judge.py), offline: the tester's steps the spec enables, the closing steps, the outcome a
schedule's observations make judged by the real judge functions, and the live search over a simulated
Java client.

The simulated client is the spec's own ``java`` variant ticking every 500 ms on a virtual clock: a
correct client by construction, so every schedule it runs must pass; a planted defect (a client that
fails over on its first failed probe, one that never switches back, one that goes to a dead cluster)
must fail, in the requirement the defect breaks. Nothing here is a verdict on Pulsar: the live run is
``explore --live client-failover`` (the lead's)."""
from __future__ import annotations

import dataclasses
import json
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

from pulsar_conformance.conformance.explore.machine import Explorer, Settings
from pulsar_conformance.conformance.explore.model import Tracker
from pulsar_conformance.conformance.explore.schedule import Step
from pulsar_conformance.conformance.harness import outcome as saved
from pulsar_conformance.conformance.protocols.client_failover import explore, explore_judge, trace
from pulsar_conformance.conformance.protocols.client_failover.checks import CHECKS
from pulsar_conformance.conformance.protocols.client_failover.client import CLUSTERS
from pulsar_conformance.conformance.protocols.client_failover.outcome import Event, Outcome
from pulsar_conformance.spec.core.interpreter import apply, find_ground, initial_state
from pulsar_conformance.spec.protocols.client_failover import ClientFailover

S = 1_000_000_000
MS = 1_000_000
CONFIG = explore.CONFIG
DATA = Path(__file__).resolve().parents[2] / "data" / "failover" / "certify-4.2.4"


def down(c: int) -> Step:
    return Step("go_down", "operation", (("c", c),))


def up(c: int) -> Step:
    return Step("come_up", "operation", (("c", c),))


# ------------------------------------------------------------------ the vocabulary and the closing steps


def test_the_adapter_explores_the_java_client_against_the_java_variant_of_its_scenarios():
    assert CONFIG.variant == "java" and (CONFIG.primary, *CONFIG.secondaries) == CLUSTERS == explore.CLUSTERS
    spec = explore.spec()
    assert spec.variant == "java" and spec.CHECK_INTERVAL_MS == 500 and spec.FAILOVER_DELAY_MS == 2800
    assert explore.WAITS == (1, 3, 7, 11)  # a check, a few, and the probes each delay takes (F-121-3)
    assert explore.SPARK is True and explore.JUDGE is explore_judge.judge  # a capture: Spark's verdict is recorded


def test_the_steps_are_those_the_spec_enables_for_the_tester():
    tracker = Tracker(explore.spec(), explore.VOCABULARY)
    labels = [s.label() for s in tracker.choices()]
    # every cluster up: each may go down, none come up; the client's tick is Pulsar's, never chosen
    assert labels[:3] == ["go_down(c=0)", "go_down(c=1)", "go_down(c=2)"]
    assert not any(label.startswith(("come_up", "tick", "admin_points_to", "resume-")) for label in labels)
    assert {"pause-primary", "wait-7", "await-switch", "await-primary"} <= set(labels)
    tracker.take(down(0))
    labels = [s.label() for s in tracker.choices()]
    assert "come_up(c=0)" in labels and "go_down(c=0)" not in labels
    tracker.take(Step("pause-s1", "fault"))
    labels = [s.label() for s in tracker.choices()]
    # a paused cluster is neither killed nor started until it is resumed
    assert "go_down(c=1)" not in labels and "resume-s1" in labels and "pause-s1" not in labels
    assert tracker.abstract() == ((False, True, True),)  # the tester's part of the state: which clusters are up


def test_only_what_the_deployment_can_perform_is_generated():
    everything = frozenset({"kill", "start", "pause", "resume"})
    assert explore.usable(everything).operations == ("go_down", "come_up")
    # a cluster killed must come back: no start, no kill
    assert explore.usable(everything - {"start"}).operations == ()
    # a pause must end: no resume, no pause
    names = [f.name for f in explore.usable(everything - {"resume"}).faults]
    assert not any(n.startswith(("pause-", "resume-")) for n in names) and "wait-1" in names
    assert "pause-primary (needs pause)" in explore.VOCABULARY.missing(frozenset({"kill", "start"}))


def test_the_last_cluster_up_is_never_killed():
    """With every cluster down nothing can be judged; Hypothesis's plainest schedule was exactly that."""
    adapter = explore.Adapter(None, Path("unused"), frozenset({"kill", "start", "pause", "resume"}))
    tracker = Tracker(adapter.spec, adapter.vocabulary)
    for step in (down(0), down(1)):
        tracker.take(step)
    assert down(2) in tracker.choices()  # no schedule under way: the spec alone, not narrowed
    adapter.live = type("Live", (), {"down": {"primary", "s1"}})()
    assert down(2) not in tracker.choices() and up(0) in tracker.choices()
    adapter.live = None  # a tracker that gives its state narrows by it
    assert not adapter.allows(down(2), frozenset(), tracker.state)
    assert adapter.allows(down(2), frozenset(), Tracker(adapter.spec, adapter.vocabulary).state)


def test_a_half_dead_cluster_is_generated_only_behind_a_proxy_and_is_revived_before_anything_else():
    """PIP-121's half-dead cluster (its brokers killed, its Pulsar proxy answering): a fault of a deployment with a
    proxy (ComponentFaults' ``half-dead`` capability), never killed, started or paused until it is revived."""
    plain = frozenset({"kill", "start", "pause", "resume"})
    assert not [f.name for f in explore.usable(plain).faults if f.name.startswith(("half-dead-", "revive-"))]
    assert "half-dead-primary (needs half-dead)" in explore.VOCABULARY.missing(plain)
    proxied = explore.usable(plain | {"half-dead"})
    tracker = Tracker(explore.spec(), proxied)
    assert {"half-dead-primary", "half-dead-s2"} <= {s.label() for s in tracker.choices()}
    tracker.take(Step("half-dead-primary", "fault"))
    labels = {s.label() for s in tracker.choices()}
    assert {"go_down(c=0)", "pause-primary", "half-dead-primary"}.isdisjoint(labels) and "revive-primary" in labels
    assert tracker.state.up == (True, True, True)  # the spec's cluster is up: its port (the proxy's) is open
    tracker.take(down(1))
    assert [s.label() for s in explore.closing_steps(tracker)] == ["revive-primary", "come_up(c=1)", "await-primary"]


def test_a_half_dead_step_kills_the_brokers_and_a_revive_starts_them_and_a_down_cluster_gets_neither(monkeypatch):
    deployment = _Deployment()
    session = _session(deployment)
    session.client = type("C", (), {"current": lambda self: "primary"})()
    monkeypatch.setattr(explore, "_port_open", lambda *_a, **_k: True)
    session._half_dead("primary", entry := _Entry())
    assert deployment.calls == ["half-dead primary"] and session.adapter.half_dead == {"primary"}
    assert "proxy up" in entry.said and any("half-dead" in m["label"] for m in session.faults.line.markers)
    session._revive("primary", entry := _Entry())
    assert deployment.calls[-1] == "revive primary" and session.half_dead == session.adapter.half_dead == set()
    session.down.add("s1")
    session._half_dead("s1", entry := _Entry())
    assert entry.result == "not-reached" and deployment.calls[-1] == "revive primary"
    session._revive("s1", entry := _Entry())
    assert "nothing to revive" in entry.said and deployment.calls[-1] == "revive primary"


def test_closing_brings_every_cluster_back_and_waits_for_the_primary():
    tracker = Tracker(explore.spec(), explore.VOCABULARY)
    for step in (down(0), Step("pause-s1", "fault"), down(2)):
        tracker.take(step)
    steps = explore.closing_steps(tracker)
    assert [s.label() for s in steps] == ["resume-s1", "come_up(c=0)", "come_up(c=2)", "await-primary"]
    for step in steps:  # every closing step is one the vocabulary knows (the machine takes them)
        tracker.take(step)
    assert tracker.state.up == (True, True, True) and tracker.active == frozenset()
    fresh = Tracker(explore.spec(), explore.VOCABULARY)
    assert [s.label() for s in explore.closing_steps(fresh)] == ["await-primary"]


# ------------------------------------------------------------------ a simulated Java client


class Simulated:
    """A schedule's session against the spec's java variant on a virtual clock: what a correct Java client
    does (``delay_ms``: its failoverDelay, CONFIG's unless a defect is planted; ``drop``: switches to a
    cluster the client then does not make, seen from outside)."""

    START_S = 9.0  # a start, until the port opens

    def __init__(self, name: str, run_dir: Path, delay_ms: int = CONFIG.failover_delay_ms, drop: str | None = None,
                 logged_every: int = 1):
        self.name, self.dir = name, run_dir / name
        self.spec = ClientFailover(variant="java", SECONDARIES=2, CHECK_INTERVAL_MS=CONFIG.interval_ms,
                                   FAILOVER_DELAY_MS=delay_ms, SWITCH_BACK_DELAY_MS=CONFIG.switch_back_delay_ms)
        self.state = initial_state(self.spec)
        self.drop = drop
        self.now = 1 * S
        self.start_ns = self.now
        self.next_tick = self.start_ns + 137 * MS  # the JVM's checks, at their own phase
        self.faults: list[Event] = []
        self.switches: list[tuple[int, str, str]] = []
        self.failed_probes: list[tuple[int, str]] = []  # its log: each check's failed probe of where it is
        self.logged_every, self.checks = logged_every, 0
        self.closed = False

    @property
    def current(self) -> str:
        return self.spec.clusters.names[self.state.current]

    def _act(self, label: str) -> None:
        self.state = apply(self.spec, self.state, find_ground(self.spec, label))

    def run_until(self, until: int, stop=lambda: False) -> bool:
        while self.next_tick <= until:
            before, state = self.current, self.state
            self.checks += 1
            if not self.state.up[self.state.current] and self.checks % self.logged_every == 0:
                self.failed_probes.append((self.next_tick, before))
            self._act("tick")
            self.now = self.next_tick
            self.next_tick += CONFIG.interval_ms * MS
            if self.current != before:
                if self.current == self.drop:  # the planted defect: that check does not switch (nor count)
                    self.state = state
                else:
                    self.switches.append((self.now + 4 * MS, before, self.current))  # the harness sees it 4 ms late
            if stop():
                return True
        self.now = until
        return stop()

    def perform(self, step: Step, entry) -> None:
        if step.kind == "operation":
            cluster = CLUSTERS[step.arg("c")]
            if step.action == "come_up":
                self.run_until(self.now + int(self.START_S * S))
            else:
                self.run_until(self.now + 5 * MS)
            self._act(f"{step.action}(c={cluster})")
            self.faults.append(Event(self.now, "down" if step.action == "go_down" else "up", cluster))
        elif step.action.startswith("wait-"):
            self.run_until(self.now + int(step.action.removeprefix("wait-")) * CONFIG.interval_ms * MS)
        elif step.action == "await-switch":
            seen = len(self.switches)
            self.run_until(self.now + int(explore.AWAIT_SWITCH_S * S), lambda: len(self.switches) > seen)
        elif step.action == "await-primary":
            if self.current != "primary" and self.state.up[0]:
                self.run_until(self.now + int(explore.AWAIT_PRIMARY_S * S), lambda: self.current == "primary")
        else:  # a pause: the probe sees nothing (its port stays open)
            self.run_until(self.now + 5 * MS)

    @property
    def down(self) -> set[str]:
        return {c for c, on in zip(CLUSTERS, self.state.up, strict=True) if not on}

    def closing(self, tracker):
        return explore.closing_steps(tracker)

    def outcome(self) -> explore_judge.ExploredOutcome:
        self.run_until(self.now + 1 * S)  # what the judge step costs, the client still watched
        sent = [f"p-writer/{i}" for i in range(1, 51)]
        columns = {"kind": ["send_ok"] * 50 + ["receive"] * 50, "uid": sent + sent,
                   "ts_ns": [self.start_ns + i * 20 * MS for i in range(100)]}
        verdict = {"valid": True, "anomalies": {}, "events": 100}
        java = {"version": "simulated", "failed_probes": list(self.failed_probes), "switch_log": list(self.switches), "drained": "drained 0"}
        return explore.outcome_of(self.name, self.dir, self.start_ns, self.faults, self.switches, [],
                                  {"end": self.now}, columns, verdict, errors=[], hung=[], java=java,
                                  backlogs={c: {"msg_backlog": 0, "uids": [], "complete": True} for c in CLUSTERS})

    def judge(self, schedule):
        out = self.outcome()
        return out, explore.JUDGE(out)

    def close(self) -> None:
        self.closed = True
        self.adapter.live = None


class SimulatedAdapter(explore.Adapter):
    """The real adapter's vocabulary and narrowing (``Adapter.allows``), its sessions simulated."""

    def __init__(self, run_dir: Path, **defect):
        super().__init__(None, run_dir, frozenset({"kill", "start", "pause", "resume"}))
        self.defect = defect
        self.sessions: list[Simulated] = []

    def begin(self, name):
        self.live = Simulated(name, self.run_dir, **self.defect)
        self.live.adapter = self
        self.sessions.append(self.live)
        return self.live


def failing(_outcome, rows) -> list[str]:
    return [f"{r.check} ({q}): {r.evidence[:200]}" for r in rows for q in (r.requirements or CHECKS.requirements(r.check))
            if r.ok is False]


def judged(steps: list[Step], tmp_path: Path, **defect):
    session = Simulated("x0001", tmp_path, **defect)
    tracker = Tracker(explore.spec(), explore.VOCABULARY)
    for step in steps:
        assert step in tracker.choices(), step
        session.perform(step, None)
        tracker.take(step)
    for step in explore.closing_steps(tracker):
        session.perform(step, None)
        tracker.take(step)
    out = session.outcome()
    rows = explore_judge.judge(out)
    assert not any(r.raised for r in rows), [r.evidence for r in rows if r.raised]
    for r in rows:  # each a check checks.py declares, the schedule's name as its scenario, naming the client
        CHECKS.requirements(r.check, r.requirements if CHECKS.find(r.check).chosen else None)
        assert r.check.split("/")[:2] == ["client-failover", "x0001"] and r.details["client"] == "java"
    return out, {r.check.rsplit("/", 1)[1]: r for r in rows}


KILL_AND_BACK = [down(0), Step("await-switch", "fault"), up(0), Step("await-switch", "fault")]


def test_a_correct_client_passes_and_the_trace_judges_what_the_schedule_reached(tmp_path):
    out, rows = judged(KILL_AND_BACK, tmp_path)
    assert [(e.origin, e.cluster) for e in out.switches()] == [("primary", "s1"), ("s1", "primary")]
    assert rows["trace"].ok is True and rows["trace"].requirements == ["PIP121-R01", "PIP121-R02"]
    assert "counted as made" in rows["trace"].evidence
    assert rows["switches-apart"].ok is True and rows["nothing-acknowledged-lost"].ok is True
    assert rows["no-needless-reconnect"].ok is True


def test_a_schedule_that_reached_nothing_judges_nothing(tmp_path):
    # the primary paused, a secondary killed and restarted: no switch was due, none made
    out, rows = judged([Step("pause-primary", "fault"), down(1), Step("wait-3", "fault"), Step("resume-primary", "fault")],
                       tmp_path)
    assert out.switches() == [] and rows == {}  # no requirement's state reached: no row, never a pass


def test_with_the_first_secondary_down_the_failover_to_the_second_judges_r03(tmp_path):
    _, rows = judged([down(1), down(0), Step("await-switch", "fault")], tmp_path)
    assert rows["trace"].ok is True and "PIP121-R03" in rows["trace"].requirements


def test_a_client_failing_over_on_its_first_failed_probe_fails_r01_and_r04(tmp_path):
    _, rows = judged(KILL_AND_BACK, tmp_path, delay_ms=0)
    assert rows["trace"].ok is False and rows["trace"].requirements == ["PIP121-R01", "PIP121-R04"]
    assert "NOT a behaviour" in rows["trace"].evidence and "client primary -> s1" in rows["trace"].evidence


def test_a_client_that_never_switches_back_fails_r02_where_the_trace_alone_passed(tmp_path):
    out, rows = judged(KILL_AND_BACK, tmp_path, drop="primary")
    assert [(e.origin, e.cluster) for e in out.switches()] == [("primary", "s1")]
    assert rows["trace"].ok is False and rows["trace"].requirements == ["PIP121-R02"]
    assert "none of which switched" in rows["trace"].evidence
    # the scenarios' trace (hidden checks bounded from above only) takes it for a behaviour of the spec
    assert trace.validation(out).ok


def test_a_client_that_never_fails_over_fails_r01(tmp_path):
    out, rows = judged([down(0), Step("wait-11", "fault"), Step("wait-11", "fault")], tmp_path, drop="s1")
    assert out.switches() == [] and rows["trace"].ok is False and rows["trace"].requirements == ["PIP121-R01"]
    assert trace.validation(out).ok  # the old trace again: nothing observed, nothing wrong


def test_a_missing_failover_the_clients_own_log_shows_late_checks_for_is_not_judged(tmp_path):
    """The count of checks that must have run is the suite's assumption (a fixed rate, two late checks
    allowed): where the Java client's own log shows fewer failed probes of the dead primary than were
    counted, its checks ran late and the failure would be the suite's, so the row is unknown."""
    _, rows = judged([down(0), Step("wait-11", "fault"), Step("wait-11", "fault")], tmp_path, drop="s1",
                     logged_every=4)
    assert rows["trace"].ok is None and "ran late" in rows["trace"].evidence, rows["trace"].evidence


def test_a_switch_to_a_cluster_that_is_down_fails_r03(tmp_path):
    out, rows = judged(KILL_AND_BACK, tmp_path)
    s1_dies = Event(out.switches()[0].at_ns - 200 * MS, "down", "s1")
    corrupted = dataclasses.replace(out, events=sorted([*out.events, s1_dies], key=lambda e: e.at_ns))
    trace_row = next(r for r in explore_judge.judge(corrupted) if r.check.endswith("/trace"))
    assert trace_row.ok is False and trace_row.requirements == ["PIP121-R03"]


# ------------------------------------------------------------------ the real Java client's recorded runs


def _recorded(tmp_path: Path, name: str, end_after_s: float) -> explore_judge.ExploredOutcome:
    shutil.copytree(DATA / name, tmp_path / name)
    out = dataclasses.replace(saved.load(Outcome, tmp_path / name), run_dir=tmp_path / name)
    fields = {f.name: getattr(out, f.name) for f in dataclasses.fields(out)}
    end = max(e.at_ns for e in out.events) + int(end_after_s * S)
    return explore_judge.ExploredOutcome(**{**fields, "name": "x0007", "marks": {**out.marks, "end": end}})


def test_the_recorded_stale_failure_shows_f_121_1_in_r09_and_no_pass_of_r01(tmp_path):
    """The Java client 4.2.4's java-stale-failure run judged as an explored schedule: its trace (with the
    checks a fixed-rate client must have made) is a behaviour of the java variant; the failover 2.0 s after
    the primary's second death (failoverDelay 2.8 s) fails switches-apart (R09), and the trace does not
    pass R01 over it (the variant allows that failover: F-121-1)."""
    out = _recorded(tmp_path, "java-stale-failure", 3.0)
    rows = {r.check.rsplit("/", 1)[1]: r for r in explore_judge.judge(out)}
    assert rows["trace"].ok is True, rows["trace"].evidence
    assert rows["trace"].requirements == ["PIP121-R02", "PIP121-R03"] and "PIP121-R01 not judged" in rows["trace"].evidence
    assert rows["switches-apart"].ok is False and "2.00 s apart" in rows["switches-apart"].evidence
    assert rows["no-needless-reconnect"].ok is True and rows["nothing-acknowledged-lost"].ok is True


def test_a_saved_explored_outcome_loads_as_its_own_type_and_judges_the_same(tmp_path):
    out = _recorded(tmp_path, "java-stale-failure", 3.0)
    saved.save(out, out.run_dir)
    assert json.loads((out.run_dir / "outcome.json").read_text())["type"].endswith("explore_judge.ExploredOutcome")
    back = saved.load(explore_judge.ExploredOutcome, out.run_dir)
    assert isinstance(back, Outcome) and back.marks["end"] == out.marks["end"]
    assert [(r.check, r.ok) for r in explore_judge.judge(back)] == [(r.check, r.ok) for r in explore_judge.judge(out)]


# ------------------------------------------------------------------ the search over the simulated client


def test_the_search_passes_a_correct_client(tmp_path):
    explorer = Explorer(SimulatedAdapter(tmp_path), Settings(budget_s=120.0, max_steps=8, seed=2, max_schedules=40), failing)
    assert explorer.explore() == []
    assert explorer.runs and all(r.verdict in ("pass", "unknown") for r in explorer.runs)
    assert any(r.verdict == "pass" for r in explorer.runs)


def test_the_search_finds_a_client_that_fails_over_too_early_and_it_fails_again_on_replay(tmp_path):
    adapter = SimulatedAdapter(tmp_path, delay_ms=0)
    explorer = Explorer(adapter, Settings(budget_s=120.0, max_steps=8, seed=1, shrink_share=0.05, max_schedules=60), failing)
    found = explorer.explore()
    assert found, f"not found in {len(explorer.runs)} schedules"
    smallest = found[0]
    assert len(smallest.schedule.steps) <= len(smallest.original.schedule.steps)
    chosen = [e.step for e in smallest.schedule.history if not e.closing]
    # the defect needs the primary killed while a secondary answers (the closing does the rest); how far it
    # shrinks depends on the time the budget leaves (the shrinker drops one step at a time: tests/harness)
    assert down(0) in chosen and "PIP121-R04" in " ".join(smallest.failures), [s.label() for s in chosen]
    assert [r.verdict for r in explorer.replay(smallest.schedule.steps, 2)] == ["fail", "fail"]
    assert all(s.closed for s in adapter.sessions)


# ------------------------------------------------------------------ the adapter's own bookkeeping


def test_the_explored_judge_is_pure():
    """As judge.py (tests/harness/test_package_shape.py): importing it reaches no cluster and records nothing."""
    code = ("import sys, pulsar_conformance.conformance.protocols.client_failover.explore_judge; "
            "print('\\n'.join(sorted(sys.modules)))")
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                            check=True).stdout.split()
    assert not [m for m in loaded if m in ("pulsar", "subprocess") or m.startswith(
        ("pulsar_conformance.fixtures.deploy", "pulsar_conformance.conformance.harness.recorder"))]


class _Deployment:
    def __init__(self):
        self.calls: list[str] = []
        self.closed = self.collected = False

    @property
    def faults(self):  # the fake is its own fault verbs (a deployment's are deployment.faults)
        return self

    @staticmethod
    def components(_cluster):  # a standalone: one process, no components
        return []

    def pause(self, cluster):
        self.calls.append(f"pause {cluster}")

    def resume(self, cluster):
        self.calls.append(f"resume {cluster}")

    def half_dead(self, cluster):
        self.calls.append(f"half-dead {cluster}")

    def revive(self, cluster):
        self.calls.append(f"revive {cluster}")

    def collect_logs(self, _where):
        self.collected = True

    def close(self):
        self.closed = True


class _Entry:
    index, invoke_ns, result, said = 1, 0, "ok", ""


def _session(deployment) -> explore.Session:
    """A session's bookkeeping without its namespace, capture or JVM (what __init__ sets up live)."""
    session = explore.Session.__new__(explore.Session)
    session.adapter = type("A", (), {"deployment": deployment, "paused": set(), "half_dead": set()})()
    session.faults = explore._Faults(deployment)
    session.down, session.paused, session.resumed_by_adapter = set(), {}, {}
    session.noop_paused, session.starting, session.start_errors = set(), {}, {}
    session.half_dead, session.noop_half_dead = set(), set()
    session._lock, session.start_ns = threading.Lock(), 0
    return session


def test_a_pause_is_held_at_most_its_bound_and_a_pause_of_a_dead_cluster_does_nothing(monkeypatch):
    monkeypatch.setattr(explore, "PAUSE_MAX_S", 0.05)
    deployment = _Deployment()
    session = _session(deployment)
    session._pause("s1", entry := _Entry())
    assert session.adapter.paused == {"s1"} and deployment.calls == ["pause s1"]
    time.sleep(0.3)  # the adapter resumed it: the schedule's resume step then does nothing, and says so
    assert deployment.calls == ["pause s1", "resume s1"] and session.adapter.paused == set()
    session._resume("s1", entry := _Entry())
    assert deployment.calls == ["pause s1", "resume s1"] and "already resumed by the adapter" in entry.said
    session.down.add("s2")
    session._pause("s2", entry := _Entry())
    assert entry.result == "not-reached" and "down" in entry.said and deployment.calls[-1] == "resume s1"
    session._resume("s2", entry := _Entry())
    assert "nothing to resume" in entry.said


def test_the_explore_deployment_is_the_suites_shape_and_is_closed_with_its_logs(tmp_path):
    made = []

    def factory(names, **options):
        made.append((names, options))
        return _Deployment()

    run = type("Run", (), {"directory": lambda self, *parts: tmp_path.joinpath(*parts)})()
    with explore.deployment(factory, run) as clusters:
        assert not clusters.closed
    assert made[0][0] == CLUSTERS and made[0][1]["name"].startswith("failover-explore-")
    assert clusters.closed and clusters.collected


def _half_dead_outcome(switches, cluster="primary"):
    from types import SimpleNamespace

    markers = [{"ts_ns": 10 * S, "label": f"{cluster} half-dead: every broker killed (SIGKILL), its Pulsar proxy answering"},
               {"ts_ns": 32 * S, "label": f"{cluster} revived: its brokers started and healthy"}]
    return SimpleNamespace(markers=markers, marks={"end": 40 * S}, start_ns=0, config=CONFIG,
                           switches=lambda: switches, columns={"ts_ns": [5 * S, 12 * S], "kind": ["send_ok", "send_ok"]})


def test_pip121_r07_is_judged_over_a_half_dead_window_of_the_cluster_the_client_is_on():
    """The seed's first example of the probe's blind spot (a proxy answering, no broker behind it): the client stays."""
    stayed = explore_judge.blind_spot(_half_dead_outcome([]), "client-failover/x0009")
    assert stayed.check == "client-failover/x0009/tcp-probe-blind-spot" and stayed.ok is True
    assert "primary half-dead for 22.0 s" in stayed.evidence and "the client stayed, 1 sends" in stayed.evidence
    assert CHECKS.requirements(stayed.check) == ["PIP121-R07"]
    moved = explore_judge.blind_spot(_half_dead_outcome([Event(20 * S, "switch", "s1", "primary")]), "p")
    assert moved.ok is False and "switched to s1" in moved.evidence
    # a half-dead cluster the client was not on says nothing of the probe of its own
    assert explore_judge.blind_spot(_half_dead_outcome([], cluster="s1"), "p") is None
