"""The PIP-454 live adapter's pure parts (conformance/protocols/metadata_migration/explore.py), offline: the
tester's steps the spec enables, what a deployment's capabilities leave, the closing steps, the checks a
schedule is judged by, the Outcome a recorded session builds judged by the real judge.judge, the live
narrowing, and the search over a simulated migration with a planted defect.

The simulated migration does what the PIP says (writes refused in PREPARATION and COPYING, FAILED on any
fault, the retry waiting for its participant), so every schedule it runs must be judged without a failure;
the planted defect (writes accepted in PREPARATION and COPYING) must be found, shrunk and fail again on replay.
Nothing here is a verdict on Pulsar: the live run is ``explore --live metadata-migration`` (the lead's)."""
from __future__ import annotations

from pathlib import Path

import pytest

from pulsar_conformance.conformance.explore.machine import Explorer, Settings
from pulsar_conformance.conformance.explore.model import Tracker
from pulsar_conformance.conformance.explore.schedule import Step
from pulsar_conformance.conformance.protocols.metadata_migration import explore, judge
from pulsar_conformance.conformance.protocols.metadata_migration.checks import CHECKS
from pulsar_conformance.spec.protocols.metadata_migration import CRASHED

S = 1_000_000_000
STANDALONE = frozenset({"kill", "stop", "start", "restart", "pause", "resume", "cut", "cut-one-way", "cut-client",
                        "oxia.kill", "oxia.start"})
TOPOLOGY = STANDALONE | {"participant"}


def _labels(tracker) -> list[str]:
    return [s.label() for s in tracker.choices()]


def _tracker(capabilities=STANDALONE) -> Tracker:
    return Tracker(explore.spec(), explore.usable(capabilities))


# ------------------------------------------------------------------ the vocabulary


def test_from_the_initial_state_the_spec_enables_a_start_and_oxias_loss_not_the_coordinators():
    tracker = _tracker()
    labels = _labels(tracker)
    # operations first (Hypothesis shrinks toward the first): the start, Oxia's loss; no coordinator before a start
    assert labels[:2] == ["start", "target_lost"] and "coordinator_crash" not in labels
    assert {"write-namespace", "write-policy", "write-topic", "await-copying", "await-end", "start-again"} <= set(labels)
    # Pulsar's actions are never chosen; a standalone has no participant apart from the coordinator
    assert not set(labels) & {"begin_copy", "complete", "fail", "notice", "prepare", "begin_write", "copy"}
    assert not any(label.endswith("-participant") for label in labels)
    tracker.take(Step("start"))
    labels = _labels(tracker)
    assert "coordinator_crash" in labels and "start" not in labels  # the first start once; the second is start-again
    tracker.take(Step("coordinator_crash"))
    assert "coordinator_crash" not in _labels(tracker)  # the spec's coordinator is crashed: once
    assert tracker.abstract() == (CRASHED, True)  # the visible state: the coordinator, the target
    tracker.take(Step("start-again", "fault"))
    assert "start-again" not in _labels(tracker) and "await-end" in _labels(tracker)  # one second start


def test_only_what_the_deployment_can_perform_is_generated_and_the_rest_is_named():
    assert "pause-participant" in _labels(_tracker(TOPOLOGY))
    without = explore.usable(frozenset({"kill", "start"}))
    assert without.operations == ("start",)
    missing = explore.VOCABULARY.missing(frozenset({"kill", "start"}))
    assert "coordinator_crash (needs pause, resume)" in missing and "target_lost (needs oxia.kill)" in missing
    assert "pause-participant (needs participant)" in explore.VOCABULARY.missing(STANDALONE)


def test_closing_starts_a_migration_never_started_resumes_the_participant_and_watches_to_the_end():
    assert [s.label() for s in explore.closing_steps(_tracker())] == ["start", "await-end"]
    tracker = _tracker(TOPOLOGY)
    for step in (Step("pause-participant", "fault"), Step("start"), Step("target_lost")):
        tracker.take(step)
    steps = explore.closing_steps(tracker)
    assert [s.label() for s in steps] == ["resume-participant", "await-end", "start-oxia"]
    for step in steps:  # every closing step is one the spec enables there (a schedule file with them replays)
        assert step in tracker.choices(), step
        tracker.take(step)
    assert "paused" not in tracker.active


def test_each_schedule_is_judged_by_the_checks_of_the_certify_scenario_with_its_fault():
    assert explore.judged_checks("none", traffic=True, target_up_at_start=True) == explore.SCENARIO_CHECKS["none"]
    assert explore.judged_checks("coordinator", traffic=True, target_up_at_start=True) == ("phases", "rollback")
    assert "data-plane" not in explore.judged_checks("oxia", traffic=False, target_up_at_start=True)
    # a start refused while Oxia was down may be right: the REST check is not judged on it
    assert "rest" not in explore.judged_checks("none", traffic=True, target_up_at_start=False)
    assert explore.JUDGE is judge.judge and explore.SPARK is True


# ------------------------------------------------------------------ a recorded session's Outcome, judged


def _phases(*timed, target="oxia://127.0.0.1:1/default"):
    return [{"ns": int(t * S), "phase": p, "target": None if p == "NOT_STARTED" else target} for p, t in timed]


def _write(kind, at, ok, i):
    return {"kind": kind, "target": f"{kind}-{i}", "sent_ns": int(at * S), "answered_ns": int((at + 0.02) * S),
            "status": 200 if ok else 500, "body": None if ok else "Write operations not allowed during migrations",
            "ok": ok}


def _conforming(tmp_path, **changes):
    phases = _phases(("NOT_STARTED", 0), ("PREPARATION", 1.0), ("COPYING", 1.5), ("COMPLETED", 3.0))
    writes = [_write(k, t, not 1.0 <= t < 3.0, i) for i, (t, k) in enumerate(
        ((0.5, "namespace"), (1.2, "policy"), (1.6, "topic"), (2.0, "namespace"), (3.2, "namespace"),
         (3.3, "policy"), (3.4, "topic")))]
    seen = explore.Observed(start={"sent_ns": int(0.9 * S), "answered_ns": int(0.95 * S), "status": 200, "body": None,
                                   "ok": True},
                            phases=phases, flag={"path": "/f", "seen": phases, "errors": 0}, writes=writes,
                            participants_before=1, kept={w["target"]: True for w in writes if w["ok"]},
                            log_marks={"ephemerals": 1, "participants_ready": 2, "copy": 3, "copied": 4, "completed": 5,
                                       "failed": None})
    for key, value in changes.items():
        setattr(seen, key, value)
    return seen


def _cut_over(out):
    """What scenario._after_cutover adds after COMPLETED, as a conforming cluster shows it."""
    out.comparison = {"compared": 100, "same": 100, "missing": 0, "version_changed": 0, "value_differs": 0,
                      "rewritten_after_cutover": 0, "examples": {"version_changed": []}}
    out.oxia_ephemerals = ["/loadbalance/brokers/127.0.0.1:8080", "/ledgers/available/127.0.0.1:3181"]
    out.cas_after = {"update": 200, "read_back": {"retentionTimeInMinutes": 77}}
    out.restarted_on_oxia = {"metadata_url": "oxia://x/default", "kept": {"namespace-4": True}, "restart_error": None,
                             "namespace_created": 204}
    out.metadata_nodes, out.metadata_bytes = 100, 5000
    out.verdict = {"valid": True, "anomalies": {}}
    return out


def _verdicts(out) -> dict[str, object]:
    return {r.check.rsplit("/", 1)[-1]: r.ok for r in judge.judge(out)}


def test_a_conforming_recorded_session_passes_every_check_its_scenario_judges(tmp_path):
    out = _cut_over(explore.outcome_of("x0001", tmp_path, _conforming(tmp_path)))
    assert out.plan.fault == "none" and out.judged == explore.SCENARIO_CHECKS["none"]
    assert explore.ended(_conforming(tmp_path)) == "COMPLETED"
    verdicts = _verdicts(out)
    assert set(verdicts) == set(out.judged) and all(v is True for v in verdicts.values()), verdicts


def test_a_write_accepted_while_copying_fails_r02_in_the_explored_outcome(tmp_path):
    seen = _conforming(tmp_path)
    seen.writes[2] = _write("topic", 1.6, True, 2)  # the tester's write-topic, in COPYING, accepted
    assert _verdicts(_cut_over(explore.outcome_of("x0002", tmp_path, seen)))["writes-refused"] is False


def test_oxia_killed_before_the_start_is_placed_before_it_in_the_trace(tmp_path):
    """The kill in NOT_STARTED (target_lost from the initial state): FAILED after the start is a behaviour."""
    phases = _phases(("NOT_STARTED", 0), ("PREPARATION", 1.0), ("FAILED", 4.0))
    seen = _conforming(tmp_path, phases=phases, flag={"path": "/f", "seen": phases, "errors": 0}, fault_kind="oxia",
                       fault={"injected_in": "NOT_STARTED", "watched_s": 5.0}, target_up_at_start=False,
                       writes=[_write("namespace", 0.5, True, 0), _write("policy", 2.0, False, 1),
                               _write("namespace", 4.5, True, 2)],
                       kept={"namespace-0": True, "namespace-2": True},
                       log_marks={"ephemerals": None, "participants_ready": None, "copy": None, "completed": None,
                                  "failed": 3})
    out = explore.outcome_of("x0003", tmp_path, seen)
    out.verdict = {"valid": True, "anomalies": {}}
    assert "rest" not in out.judged
    verdicts = _verdicts(out)
    assert verdicts["phases"] is True and verdicts["rollback"] is True, [r.evidence for r in judge.judge(out)]


def test_a_coordinator_killed_with_no_end_is_one_event_charged_to_the_rollback(tmp_path):
    phases = _phases(("NOT_STARTED", 0), ("PREPARATION", 1.0))
    seen = _conforming(tmp_path, phases=phases, flag={"path": "/f", "seen": phases, "errors": 0},
                       fault_kind="coordinator", fault={"injected_in": "PREPARATION", "flag_at_kill": "PREPARATION",
                                                        "watched_s": 12.0})
    verdicts = _verdicts(explore.outcome_of("x0004", tmp_path, seen))
    assert verdicts == {"phases": None, "rollback": False}


# ------------------------------------------------------------------ the live narrowing


class _Series:
    def __init__(self, phase):
        self.phase = phase

    def current(self):
        return self.phase


def _live(phase="PREPARATION", faulted=False, started=True):
    session = object.__new__(explore.Session)
    session.seen = explore.Observed(start={"ok": True} if started else None)
    session.phases, session.flag, session.faulted = _Series(phase), _Series(phase), faulted
    return session


def test_one_fault_per_schedule_no_oxia_kill_after_completed_and_the_coordinator_killed_inside_the_migration():
    adapter = explore.Adapter(None, Path("unused"), TOPOLOGY)
    tracker = Tracker(adapter.spec, adapter.vocabulary)
    tracker.take(Step("start"))
    assert {"coordinator_crash", "target_lost", "pause-participant"} <= set(_labels(tracker))  # no schedule: the model's
    adapter.live = _live("COPYING", faulted=True)
    labels = _labels(tracker)
    assert not {"coordinator_crash", "target_lost", "pause-participant"} & set(labels) and "write-topic" in labels
    # the choices by the schedule's own steps only (a replay takes the same); the phase when the step is performed
    adapter.live = _live("COMPLETED")
    assert {"target_lost", "coordinator_crash", "start-again"} <= set(_labels(tracker))
    assert _live("COMPLETED").can(Step("target_lost"), now=True).startswith("the migration COMPLETED")
    assert "not in PREPARATION or COPYING" in _live("FAILED").can(Step("coordinator_crash"), now=True)
    assert _live("COPYING").can(Step("coordinator_crash"), now=True) is None
    adapter.live = _live("NOT_STARTED", started=False)
    fresh = Tracker(adapter.spec, adapter.vocabulary)
    assert not {"await-copying", "await-end", "start-again"} & set(_labels(fresh)) and "start" in _labels(fresh)


# ------------------------------------------------------------------ the search over a simulated migration


class _Simulated:
    """A migration as the PIP tells it, on a virtual clock: each tester step takes 0.2 s, and every second one
    moves the migration one phase on (PREPARATION, COPYING, COMPLETED); a fault makes it FAILED at the next;
    writes are refused in PREPARATION and COPYING (``planted``: accepted there, the defect: the spec's mutant
    ``write-slips-in-during-copying``, read-only mode not enforced)."""

    def __init__(self, name, run_dir, planted):
        self.name, self.dir, self.planted = name, run_dir / name, planted
        self.now, self.phase, self.failing = 0.0, "NOT_STARTED", False
        self.seen = explore.Observed(participants_before=1)
        self.seen.phases = _phases(("NOT_STARTED", 0.0))
        self.marks = {"ephemerals": None, "participants_ready": None, "copy": None, "copied": None, "completed": None,
                      "failed": None}
        self.line = 0
        self.oxia_up, self.faulted = True, False

    def _to(self, phase):
        self.phase = phase
        self.seen.phases.append(_phases((phase, self.now))[0])
        self.line += 1
        key = {"PREPARATION": "ephemerals", "COPYING": "copy", "COMPLETED": "completed", "FAILED": "failed"}[phase]
        if phase == "COPYING":
            self.marks["participants_ready"] = self.line
            self.line += 1
        self.marks[key] = self.line

    def _tick(self, force=False):
        self.now += 0.2
        self.steps = getattr(self, "steps", 0) + 1
        if not force and self.steps % 2:
            return
        if self.failing and self.phase in ("PREPARATION", "COPYING"):
            self._to("FAILED")
        elif self.phase == "PREPARATION":
            self._to("COPYING")
        elif self.phase == "COPYING":
            self._to("COMPLETED")

    def can(self, step, now=False):
        return explore.refusal(step, started=self.seen.start is not None, faulted=self.faulted,
                               retried=self.seen.retry is not None, phase=self.phase if now else None)

    def perform(self, step, entry):
        self._tick()  # the phase moved on before the step is taken (live: the migration does not wait)
        refused = step.action not in ("start-oxia", "resume-participant") and self.can(step, now=True)
        self.faulted = self.faulted or step.action in explore.FAULT_OF
        if refused:
            entry.result = "not-reached"  # as Session.perform
            return
        action = step.action
        if action == "start":
            self.seen.start = {"sent_ns": int(self.now * S), "answered_ns": int(self.now * S), "status": 200,
                               "body": None, "ok": True}
            self.seen.target_up_at_start = self.oxia_up
            self._to("PREPARATION")
            if not self.oxia_up:
                self.failing = True
        elif action in explore.WRITES:
            ok = self.planted or self.phase not in ("PREPARATION", "COPYING")
            i = len(self.seen.writes)
            self.seen.writes.append(_write(explore.WRITES[action], self.now + 0.01, ok, i))
            if ok:
                self.seen.kept[f"{explore.WRITES[action]}-{i}"] = True
        elif action in ("target_lost", "coordinator_crash"):
            self.seen.fault_kind = explore.FAULT_OF[action]
            self.seen.fault = {"injected_in": self.phase}
            self.oxia_up = self.oxia_up and action != "target_lost"
            self.failing = self.phase in ("NOT_STARTED", "PREPARATION", "COPYING")
        elif action in ("await-copying", "await-end"):
            while self.phase in ("PREPARATION", "COPYING") and not (action == "await-copying" and self.phase == "COPYING"):
                self._tick(force=True)
        elif action == "start-oxia":
            self.oxia_up = True

    def closing(self, tracker):
        return explore.closing_steps(tracker)

    def judge(self, schedule):
        self.now += 0.2
        self.seen.writes.append(_write("namespace", self.now, self.phase not in ("PREPARATION", "COPYING"), 99))
        self.seen.kept["namespace-99"] = self.seen.writes[-1]["ok"]
        self.seen.log_marks, self.seen.flag = dict(self.marks), {"path": "/f", "seen": self.seen.phases, "errors": 0}
        out = explore.outcome_of(self.name, self.dir, self.seen)
        out.verdict = {"valid": True, "anomalies": {}}
        if explore.ended(self.seen) == "COMPLETED":
            _cut_over(out)
        return out, judge.judge(out)

    def close(self):
        self.adapter.live = None


class _Adapter(explore.Adapter):
    """The real adapter's vocabulary and live narrowing (Adapter.allows), over the simulated migration."""

    def __init__(self, planted, capabilities=STANDALONE - {"pause"}):
        # no coordinator kill by default (a schedule of its own below)
        super().__init__(None, Path("unused"), capabilities)
        self.planted = planted

    def begin(self, name):
        self.live = _Simulated(name, self.run_dir, self.planted)
        self.live.adapter = self
        return self.live


def _failing(_outcome, rows):
    """The recorder's rule, offline: a failing row fails the requirements its check is declared with."""
    return [f"{r.check} ({q}): {r.evidence}" for r in rows if r.ok is False for q in CHECKS.requirements(r.check)]


def test_a_migration_as_the_pip_tells_it_fails_no_schedule():
    # a search of a known size (max_schedules), not of wall time: 2 s ran too few on two loaded cores
    explorer = Explorer(_Adapter(planted=False), Settings(budget_s=120.0, max_steps=8, seed=3, max_schedules=60), _failing)
    assert explorer.explore() == []
    assert explorer.runs and all(r.verdict != "fail" for r in explorer.runs), \
        [(r.schedule.steps, r.failures) for r in explorer.runs if r.failures][:2]
    assert any(r.verdict == "pass" for r in explorer.runs)
    assert len({tuple(s.label() for s in r.schedule.steps) for r in explorer.runs}) > 3


@pytest.mark.parametrize("seed", [1, 2])
def test_a_write_accepted_in_the_read_only_phases_is_found_shrunk_and_fails_again_on_replay(seed):
    explorer = Explorer(_Adapter(planted=True), Settings(budget_s=120.0, max_steps=8, seed=seed, shrink_share=0.05, max_schedules=80),
                        _failing)
    found = explorer.explore()
    assert found, f"seed {seed}: the planted defect was not found in {len(explorer.runs)} schedules"
    smallest = found[0]
    assert any("writes-refused" in f for f in smallest.failures), smallest.failures
    assert len(smallest.schedule.steps) <= len(smallest.original.schedule.steps)
    chosen = [e.step.action for e in smallest.schedule.history if not e.closing]
    assert "start" in chosen and any(a in explore.WRITES for a in chosen), chosen
    assert [r.verdict for r in explorer.replay(smallest.schedule.steps, 3)] == ["fail"] * 3


def test_a_coordinator_lost_and_the_migration_failed_as_the_pip_says_passes_the_phases(tmp_path):
    """The PIP's recovery (as-proposed's coordinator_crash writes FAILED): what a release that fixes F-454-1 would
    show must not fail PIP454-R01. Live today no FAILED follows the kill (F-454-1), so no recorded verdict moves."""
    phases = _phases(("NOT_STARTED", 0), ("PREPARATION", 1.0), ("FAILED", 2.0))
    seen = _conforming(tmp_path, phases=phases, flag={"path": "/f", "seen": phases, "errors": 0},
                       fault_kind="coordinator", fault={"injected_in": "PREPARATION", "flag_at_kill": "PREPARATION"},
                       writes=[_write("namespace", 2.5, True, 0)], kept={"namespace-0": True})
    verdicts = _verdicts(explore.outcome_of("x0005", tmp_path, seen))
    assert verdicts == {"phases": True, "rollback": True}
    explorer = Explorer(_Adapter(planted=False, capabilities=STANDALONE), Settings(budget_s=120.0, max_steps=8, seed=5, max_schedules=60),
                        _failing)
    assert explorer.explore() == [] and any("coordinator_crash" in [s.action for s in r.schedule.steps]
                                            for r in explorer.runs)


def test_a_standalone_is_no_topology():
    """Deployment.components is empty on a standalone: no participant steps, and the coordinator killed as the
    whole process, never a "broker-1" component it does not have."""
    class Standalone:
        def components(self, cluster, kind=None):
            return []

    class Cluster:
        def components(self, cluster, kind=None):
            return ["bookie-1", "bookie-2"] if kind in (None, "bookie") else []

    assert not explore._topology(Standalone()) and explore._topology(Cluster())
