"""PIP-136 policy sync explored live (``explore --live policy-sync``): the spec's tester actions performed on
the three synced clusters in any order the spec allows, with sync links held and released, broker clocks
frozen, ticked and skewed, and a broker restarted between them; each schedule judged by the judge the
policy-sync scenarios use (judge.judge), from the same Outcome.

The spec (``policy-sync``, variant ``as-proposed-raw-clock``: the PIP's rule with millisecond clocks as
they are, so a cluster may write twice in one frozen millisecond, which F-136-4's counterexample needs)
has three clusters ``a, b, c``: the deployment's three in the order of the names Pulsar knows them by,
as trace.py maps them, since a tie compares those names. Its tester actions:

- ``put(c)``: the admin write of the policy at c (a namespace's retention, observe.Policy), the value
  being the event slot's number (the spec's ``slot + 1``);
- ``delete(c)``: the namespace deleted at c (observe.Policy.delete). Pulsar deletes a namespace only
  while it has one replication cluster, and only there, so every schedule's namespace is replicated to
  ``a`` alone (its policies reach every cluster through the sync all the same) and a delete is generated
  at ``a`` only. On 4.2.4 a delete leaves sync events that are retried without end (docs/findings.md
  F-136-10): such a schedule does not settle and is unknown, as the delete-race scenario is;
- ``clock_tick(c)``: c's broker clock, frozen, moves one millisecond on (as trace.py replays it);
  generated only while the clocks are frozen: a running clock ticks by itself.

Pulsar's ``deliver`` is observed, never chosen: the tester may wait for it (``settle``), and a held link
holds it back. Faults the spec does not model (each with the deployment capability it needs):
``hold-x``/``release-x`` (x's sync links to the two others cut one way, ``cut-one-way``; released, the
link delivers what it held), ``freeze`` (every broker clock stands on one millisecond), ``skew-x`` (x's
clock runs ``SKEW_S`` ahead of the others), ``thaw`` (every clock runs again, together, never back; the
three ``clock``), ``restart-x`` (x's broker restarted, once per schedule: a start takes tens of seconds;
``restart``) and ``settle`` (wait, bounded, until the sync has nothing left to send or consume and no
value moved for ``QUIET_S``). A schedule ends with every link released, the clocks thawed and a settle
(the closing steps); then each cluster's value and the events each consumed are read into the Outcome
the scenarios leave, and judge.judge gives its rows. No capture: the policy-sync judge needs no capture
verdict.

The sync topic is shared by every schedule; one that ran a delete leaves events its synchronizers never
acknowledge (F-136-10), and they stay in the subscriptions' backlog for good. A schedule counts what is
pending above what was there when it began (``baseline``): those events are of other namespaces, and
cannot change this schedule's values."""
from __future__ import annotations

import json
import time
import uuid
from dataclasses import asdict, dataclass, field
from pathlib import Path

from pulsar_conformance.files import write_atomic
from pulsar_conformance.fixtures.deploy import metadata_sync
from pulsar_conformance.fixtures.deploy.admin import AdminError
from pulsar_conformance.spec.protocols.policy_sync import PolicySync
from pulsar_conformance.wait import wait_quiet, wait_until

from ...explore.model import AdapterBase, Fault, Vocabulary
from ...explore.schedule import Entry, Schedule, Step, history_json
from ...harness import outcome as saved
from ...harness import timeline
from . import judge, observe, scenario
from .checks import CHECKS
from .clusters import CLUSTERS
from .outcome import Outcome
from .outcome import Step as Done

PROTOCOL = "policy-sync"
VARIANT = "as-proposed-raw-clock"
WRITES = 3  # event slots of a schedule: puts and deletes together
MAX_CLOCK = 2  # clock ticks of a cluster, frozen
LETTERS = ("a", "b", "c")  # the spec's clusters (PolicySync.clusters)
DELETES_AT = 0  # the one cluster a namespace can be deleted at: the one it is replicated to (spec a)
SKEW_S = 5.0  # as the skewed-clock scenario
QUIET_S = 2.0  # settled: no value moved for this long (the scenarios' quiet) ...
SETTLE_S = 45.0  # ... within this (the scenarios' timeout)
STUCK_S = 10.0  # the same events left above the baseline this long, nothing to send: retried without end
STEADY_S, STEADY_WITHIN_S = 1.0, 10.0  # a schedule's baseline: pending counts unchanged this long
SYNCER_S = 60.0  # a restarted broker's synchronizer subscribed again within this


def _holding(active: frozenset) -> bool:
    return any(name.startswith("hold-") for name in active)


def _clock_moved(active: frozenset) -> bool:
    return "freeze" in active or any(name.startswith("skew-") for name in active)


def _faults() -> tuple[Fault, ...]:
    holds = tuple(f for x in LETTERS for f in (
        Fault(f"hold-{x}", "cut-one-way", lambda a, x=x: f"hold-{x}" not in a, lambda a, x=x: a | {f"hold-{x}"},
              blocks=("deliver",)),
        Fault(f"release-{x}", "cut-one-way", lambda a, x=x: f"hold-{x}" in a, lambda a, x=x: a - {f"hold-{x}"})))
    clocks = (Fault("freeze", "clock", lambda a: not _clock_moved(a), lambda a: a | {"freeze"}),
              *(Fault(f"skew-{x}", "clock", lambda a: not _clock_moved(a), lambda a, x=x: a | {f"skew-{x}"})
                for x in LETTERS),
              Fault("thaw", "clock", _clock_moved,
                    lambda a: frozenset(n for n in a if n != "freeze" and not n.startswith("skew-"))))
    # "restarted" is no fault's name: it blocks nothing, it only says the schedule had its restart
    restarts = tuple(Fault(f"restart-{x}", "restart", lambda a: "restarted" not in a, lambda a: a | {"restarted"})
                     for x in LETTERS)
    # waiting for the sync while a link is held waits for what the link holds back: release first
    settle = Fault("settle", None, lambda a: not _holding(a))
    return (*holds, *clocks, *restarts, settle)


def _allows(step: Step, active: frozenset) -> bool:
    if step.action == "clock_tick":
        return "freeze" in active
    if step.action == "delete":
        return step.arg("c") == DELETES_AT
    return True


VOCABULARY = Vocabulary(
    operations=("clock_tick", "put", "delete"),
    faults=_faults(),
    eventually=("deliver",),
    visible=("value", "kind", "esrc", "ets"),
    allows=_allows)


def spec() -> PolicySync:
    return PolicySync(VARIANT, CLUSTERS=len(LETTERS), WRITES=WRITES, MAX_CLOCK=MAX_CLOCK)


# the saved outcome's judge (what the recorded verdicts come from) and its checks
JUDGE, CHECKS, SPARK = judge.judge, CHECKS, False  # no capture: the judge reads the clusters' values


def closing_steps(active: frozenset) -> list[Step]:
    """What reaches the judged state from where a schedule stopped: every held link released, the
    clocks running again together, and the sync settled."""
    steps = [Step(f"release-{x}", "fault") for x in LETTERS if f"hold-{x}" in active]
    if _clock_moved(active):
        steps.append(Step("thaw", "fault"))
    return [*steps, Step("settle", "fault")]


def judged_checks(froze: bool) -> tuple[str, ...]:
    """The checks a schedule's outcome asks for (judge.JUDGES): convergence and the newest write always;
    the tie-break where the clocks stood still, the one way two clusters' events share a millisecond."""
    return ("converged", "newest-wins", *(("tie-to-smaller-source",) if froze else ()))


@dataclass
class Observed:
    """What a schedule saw of the clusters, as the scenarios record it: the steps it ran (the
    scenarios' Step) with what each did, each cluster's value over time and at the end, whether the
    sync settled, and the events each cluster consumed."""

    steps: list[Done] = field(default_factory=list)
    results: list[dict] = field(default_factory=list)
    series: dict[str, list[tuple[int, int]]] = field(default_factory=dict)
    final: dict[str, int | None] = field(default_factory=dict)
    quiesced: bool = False
    events: dict[str, list] = field(default_factory=dict)
    base_ms: int = 0
    froze: bool = False


def outcome_of(name: str, run_dir: Path, clusters: list[str], names: dict[str, str], policy: observe.Policy,
               seen: Observed, markers: list[dict]) -> Outcome:
    """The Outcome the policy-sync judge reads, from what a schedule saw (a pure function: the tests
    build one from made-up observations). Each cluster's values over time join the timeline's markers,
    as scenario.run puts them there."""
    markers = list(markers)
    for cluster, points in seen.series.items():
        for at_ns, value in points:
            markers.append({"ts_ns": at_ns, "label": f"{cluster} holds {value}", "cluster": cluster, "value": value})
    return Outcome(name, run_dir, list(clusters), policy, list(seen.steps), list(seen.results), dict(seen.final),
                   seen.quiesced, seen.series, seen.events, markers, seen.base_ms, judged_checks(seen.froze),
                   None, None, dict(names))


class Adapter(AdapterBase, protocol=PROTOCOL, vocabulary=VOCABULARY, spec=spec):
    def __init__(self, deployment, run_dir: Path, capabilities: frozenset):
        super().__init__(deployment, run_dir, capabilities)
        self.clusters = list(CLUSTERS)
        # the spec's a, b, c: the roles in the order of the names Pulsar compares on a tie (trace.plan's)
        self.by_letter = dict(zip(LETTERS, sorted(CLUSTERS, key=lambda role: deployment.clusters[role].name),
                                  strict=True))

    def begin(self, name: str) -> Session:
        return Session(self, name)

    def close(self) -> None:
        """Nothing of the adapter's own: each session heals and thaws what it moved, and reads the
        events with a client of its own."""


class Session:
    """One schedule: its namespace, the scenarios' step runner (scenario.Runner: the same writes,
    deletes, holds and clock moves), the values sampled while it runs, and what it saw."""

    def __init__(self, adapter: Adapter, name: str):
        self.adapter, self.name = adapter, name
        d = self.d = adapter.deployment
        self.dir = adapter.run_dir / name
        self.dir.mkdir(parents=True, exist_ok=True)
        self.line = timeline.Timeline(name)
        self.runner = scenario.Runner(d, adapter.clusters, self.line)
        self.seen = Observed()
        self.writes = 0
        self.ticks = dict.fromkeys(adapter.clusters, 0)
        self.sampler: observe.Sampler | None = None
        self.names = {c: d.clusters[c].name for c in adapter.clusters}
        self.baseline = self._steady()  # before the namespace: its creation's events are this schedule's
        self.policy = observe.Policy(f"psx-{uuid.uuid4().hex[:6]}", "pol")
        first = adapter.by_letter[LETTERS[DELETES_AT]]
        self.policy.create(d.admin(first), list(self.names.values()), [self.names[first]])
        for cluster in adapter.clusters:  # the namespace itself reaches every cluster through the sync
            admin = d.admin(cluster)
            wait_until(lambda a=admin: scenario.exists(a, self.policy), timeout=30, interval=0.1,
                       what=f"namespace {self.policy.name} synced to {cluster}")
        self.line.mark(f"namespace {self.policy.name} on every cluster, replicated to {first}; "
                       f"pending before it {self.baseline}")
        self.sampler = observe.Sampler(d, adapter.clusters, self.policy).__enter__()

    # ----- the sync's backlog
    def _pending(self) -> dict[str, tuple[int, int]]:
        """Per cluster: (events still to send to its peers, events its synchronizer has not consumed)."""
        out = {}
        for c in self.adapter.clusters:
            stats = scenario._stats(self.d, c)  # the scenarios' reading of the sync topic's stats
            out[c] = (scenario._unsent(stats), scenario._unconsumed(stats))
        return out

    def _steady(self) -> dict[str, int]:
        """What is pending on each cluster once it stops moving (bounded): what this schedule begins above."""
        seen = [self._pending()]

        def read():
            seen.append(self._pending())
            return seen[-1]
        wait_quiet(read, quiet=STEADY_S, timeout=STEADY_WITHIN_S, interval=0.5)
        return {c: sum(p) for c, p in seen[-1].items()}

    def _above(self) -> dict[str, tuple[int, int]]:
        """(to send, pending above the baseline) per cluster."""
        return {c: (unsent, unsent + unconsumed - self.baseline.get(c, 0))
                for c, (unsent, unconsumed) in self._pending().items()}

    # ----- the steps
    def perform(self, step: Step, entry: Entry) -> None:
        if step.kind == "operation":
            role = self.adapter.by_letter[LETTERS[step.arg("c")]]
            getattr(self, f"_{step.action}")(role, entry)
        else:
            action, _, letter = step.action.partition("-")
            getattr(self, f"_{action}")(self.adapter.by_letter[letter] if letter else "", entry)

    def _run(self, done: Done, entry: Entry) -> dict:
        """One of the scenarios' steps, run by their runner, recorded as they record it."""
        result = self.runner.execute(done, self.policy)
        self.seen.steps.append(done)
        self.seen.results.append(result)
        if result["ok"]:
            entry.said = "; ".join(filter(None, [entry.said, done.show()]))
        else:
            entry.result = "error"  # Pulsar refused it: the judge says the change was not made (refused_change)
            entry.said = f"{done.show()}: refused ({result.get('status')}): {result.get('error', '')}"[:400]
        return result

    def _record(self, done: Done, entry: Entry, ok: bool = True, **extra) -> None:
        """A step of the adapter's own (a release without the scenarios' wait, a thaw, a restart, a settle)."""
        result = {"step": done.show(), "ok": ok, "at_ns": entry.invoke_ns, **extra}
        self.seen.steps.append(done)
        self.seen.results.append(result)
        self.line.mark(done.show() + ("" if ok else f" ({extra.get('said', 'not reached')})"), at_ns=entry.invoke_ns)

    def _put(self, role: str, entry: Entry) -> None:
        self.writes += 1  # the spec's event slot + 1: each write of a schedule its own value
        self._run(Done("write", cluster=role, value=self.writes), entry)

    def _delete(self, role: str, entry: Entry) -> None:
        self.writes += 1
        self._run(Done("delete", cluster=role), entry)

    def _clock_tick(self, role: str, entry: Entry) -> None:
        self.ticks[role] += 1
        self._run(Done("freeze", clocks=((role, self.ticks[role]),), note="clock_tick"), entry)

    def _hold(self, role: str, entry: Entry) -> None:
        for other in self.adapter.clusters:
            if other != role:
                self._run(Done("hold", cluster=role, to=other), entry)

    def _release(self, role: str, entry: Entry) -> None:
        """The links healed; not the scenarios' release, which waits for the receiver's whole backlog to
        drain: a backlog of events retried without end (F-136-10) never does. ``settle`` waits instead."""
        for other in self.adapter.clusters:
            if other != role and (role, other) in self.runner.held:
                self.d.faults.heal(role, other, one_way=True)
                self.runner.held.discard((role, other))
                self._record(Done("release", cluster=role, to=other), entry)
        entry.said = f"{role}'s links released"

    def _freeze(self, _role: str, entry: Entry) -> None:
        # a base ahead of every clock as it is now (a clock thawed earlier ran past the last one), each
        # clock standing as many milliseconds past it as the spec's clock has ticked
        self.runner.base_ms = 0
        self._run(Done("freeze", clocks=tuple((c, self.ticks[c]) for c in self.adapter.clusters)), entry)
        self.seen.froze = True
        self.seen.base_ms = self.runner.base_ms

    def _skew(self, role: str, entry: Entry) -> None:
        self._run(Done("skew", cluster=role, seconds=SKEW_S), entry)

    def _thaw(self, _role: str, entry: Entry) -> None:
        self.runner.align()
        self._record(Done("align", note="every clock runs again, together, from past the latest"), entry)
        entry.said = "clocks run again"

    def _restart(self, role: str, entry: Entry) -> None:
        self.d.faults.restart(role)
        admin = self.d.admin(role)

        def subscribed() -> bool:
            try:
                return metadata_sync.syncer(admin) is not None
            except AdminError:
                return False
        wait_until(subscribed, timeout=SYNCER_S, interval=0.25,
                   what=f"the metadata synchronizer of {role} subscribed again after its restart")
        self._record(Done("restart", cluster=role), entry)
        entry.said = f"{role} restarted, its synchronizer subscribed again"

    def _settle(self, _role: str, entry: Entry) -> None:
        """Nothing left to send or consume above the baseline and no value moved for QUIET_S, within SETTLE_S.
        Events left above it with nothing to send, unchanged for STUCK_S, are the synchronizers' failed applies
        that their 60 s ack timeout retries without end (F-136-10): not settled, said at once."""
        stuck = {"state": None, "since": 0.0, "said": ""}

        def settled() -> bool:
            above = self._above()
            if all(pending <= 0 for _unsent, pending in above.values()):
                return True
            now = time.monotonic()
            if above != stuck["state"]:
                stuck.update(state=above, since=now)
            elif now - stuck["since"] >= STUCK_S and not any(unsent for unsent, _ in above.values()):
                stuck["said"] = (f"the synchronizers keep {({c: p for c, (_u, p) in above.items()})} events above the "
                                 f"schedule's start unconsumed for {STUCK_S:.0f} s with nothing to send "
                                 "(retried without end: docs/findings.md F-136-10)")
                return True
            return False
        quiet = wait_quiet(self.sampler.current, quiet=QUIET_S, timeout=SETTLE_S, interval=0.25, settled=settled)
        self.seen.quiesced = quiet and not stuck["said"]
        if self.seen.quiesced:
            entry.said = f"settled: {self.sampler.current()}"
        else:
            entry.result = "not-reached"
            entry.said = stuck["said"] or (f"not settled within {SETTLE_S:.0f} s: "
                                           + scenario._still_pending(self.d, self.adapter.clusters))
        self._record(Done("settle", note=entry.said[:300]), entry, ok=self.seen.quiesced, said=entry.said[:300])

    # ----- the end of a schedule
    def closing(self, tracker) -> list[Step]:
        return closing_steps(tracker.active)

    def judge(self, schedule: Schedule) -> tuple[Outcome, list]:
        """Each cluster's value and the events each consumed, in the Outcome the scenarios leave (saved
        beside the schedule's history), and judge.judge's rows over it."""
        self.seen.final = self.sampler.sample()
        self._stop_sampler()
        self.seen.series = self.sampler.series
        self.seen.events = {c: observe.events(self.d, c, self.policy.store_path) for c in self.adapter.clusters}
        out = outcome_of(self.name, self.dir, self.adapter.clusters, self.names, self.policy, self.seen,
                         self.line.markers)
        saved.save(out, self.dir)
        write_atomic(self.dir / "schedule.json", json.dumps({**schedule.to_json(), "history": history_json(schedule)},
                                                             indent=1))
        timeline.save(self.dir, PROTOCOL, {
            "name": self.name, "clusters": self.adapter.clusters, "policy": asdict(self.policy),
            "steps": [asdict(s) for s in self.seen.steps], "results": self.seen.results, "final": self.seen.final,
            "quiesced": self.seen.quiesced, "base_ms": self.seen.base_ms, "series": self.seen.series,
            "events": {c: [e.to_json() for e in es] for c, es in self.seen.events.items()},
            "baseline": self.baseline}, out.markers, {})
        return out, judge.judge(out)

    def _stop_sampler(self) -> None:
        if self.sampler is not None:
            self.sampler.__exit__(None, None, None)

    def close(self) -> None:
        """Whatever the schedule left: every link healed and every clock running (a schedule never leaves
        a fault behind), the sampler stopped."""
        self._stop_sampler()
        self.runner.unwind()


