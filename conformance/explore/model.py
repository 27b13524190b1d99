"""The spec's side of a live schedule: which tester actions the spec enables after the tester's own
steps, the state each step leads to, and what a budget covered.

The tester tracks the spec's state from its own steps. Pulsar's actions are not chosen; the ones a
tester may wait for (``Vocabulary.eventually``: A's replicator catching up) are taken to have happened
before the next tester step unless an active fault blocks them, which is what an adapter's waiting
step (``sync_progress``) then waits for on the real clusters, bounded. So the spec enables a tester
action when it is enabled in that saturated state; the adapter may narrow it further (no wait for
replication while the link is cut) but never widen it.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from pulsar_conformance.spec.core.interpreter import apply, initial_state
from pulsar_conformance.spec.core.model import Spec

from .schedule import Step


@dataclass(frozen=True)
class Fault:
    """A tester action the spec does not model (a cut, an unload, a restart): its name, the deployment
    capability it needs (``Deployment.capabilities``; None: an admin call any deployment answers), when
    it may be taken (the active faults -> bool) and what it does to them (active -> active)."""

    name: str
    needs: str | None
    enabled: Callable[[frozenset], bool]
    effect: Callable[[frozenset], frozenset] = lambda active: active
    blocks: tuple[str, ...] = ()  # the Pulsar actions it holds back while active (a cut: replicate)


@dataclass(frozen=True)
class Vocabulary:
    """A protocol's tester actions: the spec actions it performs (``operations``), the faults it adds,
    the Pulsar actions it may wait for, and the variables a tester sees (the abstract state)."""

    operations: tuple[str, ...]
    faults: tuple[Fault, ...] = ()
    eventually: tuple[str, ...] = ()
    visible: tuple[str, ...] = ()  # the spec variables of the abstract state (coverage)
    # the adapter's own narrowing: (step, active faults) -> False where the live step cannot run now
    allows: Callable[[Step, frozenset], bool] = lambda _step, _active: True

    def fault(self, name: str) -> Fault:
        return next(f for f in self.faults if f.name == name)

    def usable(self, capabilities: frozenset) -> Vocabulary:
        """Only the faults the deployment can perform (on a user's deployment, those its file declares)."""
        kept = tuple(f for f in self.faults if f.needs is None or f.needs in capabilities)
        return Vocabulary(self.operations, kept, self.eventually, self.visible, self.allows)

    def missing(self, capabilities: frozenset) -> list[str]:
        return [f"{f.name} (needs {f.needs})" for f in self.faults if f.needs is not None and f.needs not in capabilities]


class Tracker:
    """The spec state of one schedule as its steps are taken."""

    def __init__(self, spec: Spec, vocabulary: Vocabulary):
        self.spec, self.vocabulary = spec, vocabulary
        self.state = initial_state(spec)
        self.active: frozenset = frozenset()
        self.states = [self.state]
        self.labels: list[str] = []
        self._grounds = [g for g in spec.ground_actions if g.decl.name in vocabulary.operations]
        self._eventual = [g for g in spec.ground_actions if g.decl.name in vocabulary.eventually]

    def _blocked(self) -> set[str]:
        return {b for f in self.vocabulary.faults if f.name in self.active for b in f.blocks}

    def saturated(self):
        """The state after every Pulsar action a tester may wait for, as far as no active fault blocks it."""
        state, blocked = self.state, self._blocked()
        for _ in range(64):  # bounded: each such action moves a counter toward its end
            moved = next((nxt for g in self._eventual if g.decl.name not in blocked
                          and (nxt := apply(self.spec, state, g)) is not None and nxt != state), None)
            if moved is None:
                return state
            state = moved
        return state

    def choices(self) -> list[Step]:
        """The tester steps enabled now: spec operations in the spec's order, then the faults."""
        base = self.saturated()
        found = []
        for g in self._grounds:
            if apply(self.spec, base, g) is None:
                continue
            names = [p for p, _ in g.decl.params]
            step = Step(g.decl.name, "operation", tuple(zip(names, g.args, strict=True)))
            if self.vocabulary.allows(step, self.active):
                found.append(step)
        found += [Step(f.name, "fault") for f in self.vocabulary.faults if f.enabled(self.active)]
        return found

    def take(self, step: Step) -> None:
        if step.kind == "fault":
            self.active = self.vocabulary.fault(step.action).effect(self.active)
        else:
            ground = next(g for g in self._grounds if g.decl.name == step.action
                          and tuple(zip([p for p, _ in g.decl.params], g.args, strict=True)) == step.args)
            nxt = apply(self.spec, self.saturated(), ground)
            if nxt is None:
                raise ValueError(f"{step.label()} is not enabled by the spec here")
            self.state = nxt
        self.states.append(self.state)
        self.labels.append(step.label())

    def abstract(self, state=None) -> tuple:
        state = self.state if state is None else state
        return tuple(getattr(state, v) for v in self.vocabulary.visible)


@dataclass
class Coverage:
    """What the live schedules covered: tester actions, ordered pairs of consecutive actions, and the
    distinct abstract spec states reached, against the abstract states the spec's explorer reaches."""

    actions: Counter = field(default_factory=Counter)
    pairs: Counter = field(default_factory=Counter)
    states: set = field(default_factory=set)
    spec_states: int | None = None
    spec_complete: bool = False

    def add(self, steps: list[Step], tracker_states: list[tuple]) -> None:
        names = [s.action for s in steps]
        self.actions.update(names)
        self.pairs.update(f"{a} -> {b}" for a, b in zip(names, names[1:], strict=False))
        self.states.update(tracker_states)

    def to_json(self, vocabulary_actions: list[str]) -> dict:
        return {"actions": {a: self.actions.get(a, 0) for a in vocabulary_actions},
                "actions_never_run": [a for a in vocabulary_actions if not self.actions.get(a)],
                "pairs": dict(sorted(self.pairs.items())),
                "pairs_possible": len(vocabulary_actions) ** 2,
                "abstract_states_reached": len(self.states),
                "abstract_states_of_spec": self.spec_states, "spec_explored_completely": self.spec_complete}


def spec_abstract_states(spec: Spec, vocabulary: Vocabulary, max_states: int = 200_000) -> tuple[int, bool]:
    """How many distinct abstract states (the visible variables) the spec's breadth-first explorer
    reaches, and whether it explored the whole graph: what the live coverage is measured against."""
    from pulsar_conformance.spec.core.explorer import explore

    seen: set = set()
    result = explore(spec, invariants=(), max_states=max_states,
                     on_state=lambda s: seen.add(tuple(getattr(s, v) for v in vocabulary.visible)))
    return len(seen), result.complete


class AdapterBase:
    """What every live adapter (conformance/protocols/<p>/explore.py) starts with: the deployment it performs
    steps on, where schedules are recorded, the spec it tracks, and the vocabulary narrowed to what the
    deployment can do (``usable``: a protocol with more rules overrides it).

    An adapter declares what it explores in its class line, ``class Adapter(AdapterBase, protocol=PROTOCOL,
    vocabulary=VOCABULARY, spec=spec)``: the profile, its tester steps, and the function that makes the spec it
    tracks (a fresh one per adapter: a spec holds its constants)."""

    protocol: str
    vocabulary: Vocabulary

    def __init_subclass__(cls, *, protocol: str | None = None, vocabulary: Vocabulary | None = None, spec=None,
                          **kwargs):
        # a subclass of an adapter (a test's planted defect) keeps what its parent declared
        super().__init_subclass__(**kwargs)
        if protocol is not None:
            cls.protocol = protocol
        if vocabulary is not None:
            cls.vocabulary = vocabulary
        if spec is not None:
            cls._make_spec = staticmethod(spec)

    def __init__(self, deployment, run_dir, capabilities: frozenset):
        self.deployment, self.run_dir = deployment, run_dir
        self.spec = self._make_spec()
        self.vocabulary = self.usable(capabilities)

    def usable(self, capabilities: frozenset) -> Vocabulary:
        return type(self).vocabulary.usable(capabilities)
