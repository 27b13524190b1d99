"""Hypothesis's stateful machinery over a live adapter: each example a schedule on the real clusters.

``RuleBasedStateMachine`` with one rule, ``step``, enabled while the spec (``model.Tracker``) enables a
tester action: it draws the action among those enabled (operations in the spec's order, then faults, so
Hypothesis's shrinker moves toward the plainest one) and the adapter performs it at once. At teardown
the adapter closes the schedule out (heals what is cut, waits for what it judges) and the protocol's
judges read what it recorded; a schedule with a failing requirement raises, so Hypothesis shrinks it,
replaying each candidate live. Each schedule the machine ran is kept (``Explorer.runs``), and the
smallest failing one is taken from those, not from Hypothesis's last report: a candidate cut off by
the shrinking budget passes without running, and Hypothesis may then call the failure flaky.

The budget: generation stops at ``budget_s`` (or after ``max_schedules`` generated schedules); shrinking a failure may take ``shrink_share`` of the
budget more; each candidate is a live schedule. A failure is then replayed ``replays`` times (a
generated FAIL is a candidate until its smallest schedule fails again: docs/findings.md's rules).
"""
from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from hypothesis import HealthCheck, Phase, Verbosity, settings
from hypothesis import seed as hypothesis_seed
from hypothesis import strategies as st
from hypothesis.errors import Flaky
from hypothesis.stateful import RuleBasedStateMachine, precondition, rule, run_state_machine_as_test

from .model import Coverage, Tracker
from .schedule import Entry, Schedule, Step


class ScheduleFailed(AssertionError):
    """A schedule whose judged history fails a requirement: what Hypothesis shrinks."""


@dataclass
class Run:
    """One schedule as it ran: the schedule (steps, history), its spec states, rows and failures."""

    schedule: Schedule
    tracker: Tracker
    outcome: object | None = None  # what the judges read (saved beside the capture)
    rows: list = field(default_factory=list)  # the judge's rows over it (harness.rows.Row), provisional
    failures: list[str] = field(default_factory=list)  # "check (REQ): evidence" of each failing row
    seconds: float = 0.0
    error: str = ""  # the adapter could not run it (an infrastructure fault): judged nothing

    @property
    def verdict(self) -> str:
        if self.error:
            return "unknown"
        if self.failures:
            return "fail"
        judged = [r for r in self.rows if getattr(r, "ok", None) is not None]
        return "pass" if judged else "unknown"

    def signature(self) -> frozenset[str]:
        """What failed (check pattern tails and requirements): a shrunk candidate must fail the same way."""
        return frozenset(f.split(" ", 1)[0].split("/", 2)[-1] for f in self.failures)


@dataclass
class Live:
    """A schedule under way: its run and the adapter's session (None: it could not begin)."""

    run: Run
    session: object | None
    began: float


@dataclass
class Settings:
    budget_s: float = 300.0
    max_steps: int = 12
    shrink_share: float = 0.5  # of budget_s, at most, spent shrinking (each candidate live)
    replays: int = 3
    seed: int = 1
    # generation also ends after this many generated schedules (None: the time budget alone): a search of a
    # known size whatever the machine's load (a CI gate; the offline tests' simulated adapters)
    max_schedules: int | None = None


class Explorer:
    """A budgeted live search over one adapter (``adapter.begin(name) -> session``; a session has
    ``perform(step, entry)``, ``closing(tracker) -> [Step]``, ``judge(schedule) -> (outcome, rows)`` and
    ``close()``); ``failures(outcome, rows)`` says which of a judge's rows fail a requirement (the recorder's
    rules, nothing written)."""

    def __init__(self, adapter, settings_: Settings, failures: Callable[[object, list], list[str]],
                 say: Callable[[str], None] = lambda _text: None):
        self.adapter, self.settings, self.failures, self.say = adapter, settings_, failures, say
        self.runs: list[Run] = []
        self.coverage = Coverage()
        self.started = time.monotonic()
        self.phase = "generate"
        self.shrink_until = 0.0
        self._count = 0
        self.known: set[frozenset[str]] = set()  # the failure signatures already shrunk

    # ----- one schedule
    def new_name(self) -> str:
        self._count += 1
        return f"x{self._count:04d}"

    def begin(self, origin: str) -> Live:
        """A fresh schedule on the clusters (the adapter's fresh namespaces and topics)."""
        name = self.new_name()
        run = Run(Schedule(self.adapter.protocol, name, self.settings.seed, origin=origin),
                  Tracker(self.adapter.spec, self.adapter.vocabulary))
        live = Live(run, None, time.monotonic())
        try:
            live.session = self.adapter.begin(name)
        except Exception as error:  # noqa: BLE001 - a deployment that cannot give a fresh namespace judges nothing
            run.error = f"could not begin: {type(error).__name__}: {error}"
        return live

    def perform(self, live: Live, step: Step, *, closing: bool = False) -> None:
        schedule, tracker = live.run.schedule, live.run.tracker
        entry = Entry(len(schedule.history) + 1, step, time.time_ns(), closing=closing)
        try:
            live.session.perform(step, entry)
        except Exception as error:  # noqa: BLE001 - the adapter's fault, not Pulsar's: said, judged nothing
            entry.result, entry.said = "error", f"{type(error).__name__}: {error}"
            live.run.error = live.run.error or f"{step.label()}: {entry.said}"
        entry.complete_ns = entry.complete_ns or time.time_ns()
        schedule.history.append(entry)
        schedule.steps.append(step)
        tracker.take(step)

    def finish(self, live: Live) -> Run:
        """The adapter's closing steps, the judges over what the schedule recorded, and the schedule done."""
        run = live.run
        try:
            if live.session is not None:
                if not run.error:
                    for step in live.session.closing(run.tracker):
                        self.perform(live, step, closing=True)
                if not run.error:
                    run.outcome, run.rows = live.session.judge(run.schedule)
                    run.failures = self.failures(run.outcome, run.rows)
        except Exception as error:  # noqa: BLE001 - as in perform
            run.error = run.error or f"judging: {type(error).__name__}: {error}"
        finally:
            if live.session is not None:
                live.session.close()
        return self._done(run, live.began)

    def run_steps(self, steps: list[Step], *, origin: str = "replay") -> Run:
        """``steps`` as given (a replay): each must be enabled by the spec where it comes."""
        live = self.begin(origin)
        for step in steps:
            if live.run.error:
                break
            if step not in live.run.tracker.choices():
                live.run.error = f"{step.label()} is not enabled by the spec at step {len(live.run.schedule.steps) + 1}"
                break
            self.perform(live, step)
        return self.finish(live)

    def _done(self, run: Run, began: float) -> Run:
        run.seconds = round(time.monotonic() - began, 1)
        self.runs.append(run)
        self.coverage.add(run.schedule.steps, [run.tracker.abstract(s) for s in run.tracker.states])
        steps = len(run.schedule.steps)
        what = run.error or ("; ".join(run.failures)[:160] if run.failures else "")
        self.say(f"schedule {run.schedule.name} ({run.schedule.origin}): {steps} steps, {run.seconds:.1f} s, "
                 f"{run.verdict}" + (f": {what}" if what else ""))
        return run

    # ----- the budgeted search
    def remaining(self) -> float:
        if self.settings.max_schedules is not None and self.generated() >= self.settings.max_schedules:
            return 0.0
        return self.settings.budget_s - (time.monotonic() - self.started)

    def generated(self) -> int:
        return sum(1 for r in self.runs if r.schedule.origin == "generated")

    def explore(self) -> list[Run]:
        """Generate until the budget is spent; each failure shrunk, then its smallest schedule replayed.
        Returns the smallest failing run of each search that found one."""
        smallest = []
        search = 0
        while self.remaining() > 0:
            search += 1
            found = self._search(self.settings.seed + search - 1)
            if found is None:
                break  # the budget ended the search without a failure
            smallest.append(found)
        return smallest

    def _search(self, seed: int) -> Run | None:
        first = len(self.runs)
        explorer = self

        class LiveSchedule(RuleBasedStateMachine):
            """One example: one schedule, each rule call one tester step performed on the clusters."""

            def __init__(self):
                super().__init__()
                self.live = explorer.begin("generated" if explorer.phase == "generate" else "shrinking") \
                    if explorer._may_run() else None

            def _open(self) -> bool:
                live = self.live
                return (live is not None and not live.run.error and bool(live.run.tracker.choices())
                        and len(live.run.schedule.steps) < explorer.settings.max_steps)

            @precondition(lambda self: self._open())
            @rule(data=st.data())
            def step(self, data):
                choices = self.live.run.tracker.choices()
                explorer.perform(self.live, data.draw(st.sampled_from(choices), label="step"))

            @precondition(lambda self: not self._open())
            @rule()
            def rest(self):
                pass  # the schedule is over (or idle: the budget is spent); Hypothesis may still ask for steps

            def teardown(self):
                if self.live is not None:
                    explorer._record(explorer.finish(self.live))

        hypothesis_seed(seed)(LiveSchedule)
        config = settings(max_examples=10_000, stateful_step_count=explorer.settings.max_steps, deadline=None, database=None,
                          suppress_health_check=list(HealthCheck), print_blob=False, verbosity=Verbosity.quiet,
                          phases=(Phase.generate, Phase.shrink), report_multiple_bugs=False)
        try:
            run_state_machine_as_test(LiveSchedule, settings=config)
        except (ScheduleFailed, Flaky):
            pass
        failed = [r for r in self.runs[first:] if r.verdict == "fail" and r.signature() not in self.known]
        if not failed:
            self.phase = "generate"
            return None
        if self.phase == "generate":  # found by a replay of Hypothesis' own; shrinking starts now
            self._start_shrinking()
        original = failed[0]
        same = [r for r in failed if r.signature() == original.signature()]
        best = self._minimize(min(same, key=lambda r: (len(r.schedule.steps), r.schedule.name)))
        best.original = original  # type: ignore[attr-defined]
        self.known.add(original.signature())
        self.phase = "generate"
        return best

    def _minimize(self, best: Run) -> Run:
        """Hypothesis shrinks the draws, but a step's draw means another step once an earlier one is gone
        (the enabled set moves), so it leaves schedules longer than they need be. Then: drop one chosen step
        at a time (the closing steps follow from what is left), keep a candidate the spec still allows that
        fails the same way, until no single step can go or the shrinking budget is spent; live, each one."""
        self.phase = "shrink"
        chosen = [e.step for e in best.schedule.history if not e.closing]
        i = 0
        while i < len(chosen) and time.monotonic() < self.shrink_until:
            candidate = chosen[:i] + chosen[i + 1:]
            if not self._allowed(candidate):
                i += 1
                continue
            run = self.run_steps(candidate, origin="shrinking")
            if run.verdict == "fail" and run.signature() == best.signature():
                best, chosen = run, candidate
            else:
                i += 1
        return best

    def _allowed(self, steps: list[Step]) -> bool:
        """The spec enables each step where it comes (checked on the model alone, nothing live)."""
        tracker = Tracker(self.adapter.spec, self.adapter.vocabulary)
        for step in steps:
            if step not in tracker.choices():
                return False
            tracker.take(step)
        return True

    def _start_shrinking(self) -> None:
        """A new failure: shrinking it may take ``shrink_share`` of the budget from now."""
        self.phase = "shrink"
        self.shrink_until = time.monotonic() + self.settings.shrink_share * self.settings.budget_s

    def _may_run(self) -> bool:
        if self.phase == "generate":
            return self.remaining() > 0
        return time.monotonic() < self.shrink_until

    def _record(self, run: Run) -> None:
        # a failure already shrunk (its signature known) is kept as a failing schedule but not raised, so the
        # search goes on to new ground: each new search starts from Hypothesis' plainest schedule, and a protocol
        # that fails there (policy sync's concurrent puts) found the same failure first in every search otherwise
        if run.verdict == "fail" and (self.phase == "shrink" or run.signature() not in self.known):
            if self.phase == "generate":
                self._start_shrinking()
            raise ScheduleFailed("; ".join(run.failures))

    # ----- replays
    def replay(self, steps: list[Step], times: int) -> list[Run]:
        return [self.run_steps(list(steps), origin="replay") for _ in range(times)]
