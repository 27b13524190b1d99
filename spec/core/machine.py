"""A Hypothesis ``RuleBasedStateMachine`` derived from a spec.

One rule per action, guarded by a ``precondition`` that some instance of it is enabled, and
drawing its parameters from the enabled instances only (no ``assume``, so no example is
thrown away). Each checked invariant becomes an ``@invariant``. Hypothesis then runs long
random traces, shrinks a failure to a minimal one, and replays it from its seed.
"""
from __future__ import annotations

import time
from dataclasses import dataclass

from hypothesis import HealthCheck, Phase, Verbosity, settings
from hypothesis import seed as hypothesis_seed
from hypothesis import strategies as st
from hypothesis.errors import Flaky
from hypothesis.stateful import (
    RuleBasedStateMachine,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)

from .backend import CONCRETE
from .interpreter import apply, initial_state
from .model import Spec, Violation


class InvariantBroken(AssertionError):
    def __init__(self, violation: Violation):
        super().__init__(f"invariant {violation.invariant} broken after {violation.length} steps")
        self.violation = violation


def machine_class(spec: Spec, invariants=None, on_step=None) -> type[RuleBasedStateMachine]:
    invariants = spec.checked_invariants() if invariants is None else invariants
    by_action: dict[str, list] = {}
    for ground in spec.ground_actions:
        by_action.setdefault(ground.decl.name, []).append(ground)

    def setup(self):
        RuleBasedStateMachine.__init__(self)
        self.state = initial_state(spec)
        self.states = [self.state]
        self.labels: list[str] = []

    namespace: dict = {"__init__": setup}
    for name, grounds in by_action.items():
        namespace[f"do_{name}"] = _rule(spec, grounds, on_step)
    if spec.ENDS:
        namespace["at_the_end"] = _terminal(spec)
    for inv in invariants:
        namespace[f"inv_{inv.name}"] = _invariant(inv)
    cls = type(f"{spec.name.title().replace('-', '')}Machine", (RuleBasedStateMachine,), namespace)
    return cls


def _enabled(spec, state, grounds):
    found = []
    for g in grounds:
        nxt = apply(spec, state, g)
        if nxt is not None:
            found.append((g, nxt))
    return found


def _rule(spec, grounds, on_step):
    @precondition(lambda self: bool(_enabled(spec, self.state, grounds)))
    @rule(data=st.data())
    def take(self, data):
        choices = _enabled(spec, self.state, grounds)
        ground, nxt = data.draw(st.sampled_from(choices), label="instance") if len(choices) > 1 else choices[0]
        self.labels.append(ground.label(spec))
        self.state = nxt
        self.states.append(nxt)
        if on_step is not None:
            on_step()

    return take


def _terminal(spec):
    """For a spec whose behaviours may end (``Spec.ENDS``: a retired cluster, a finished
    migration): where no action is enabled the machine stutters in place, as the explorer and BMC
    stop there. Other specs keep Hypothesis' refusal of a state with no way on: a deadlock."""
    @precondition(lambda self: not _enabled(spec, self.state, spec.ground_actions))
    @rule()
    def rest(self):
        pass

    return rest


def _invariant(inv):
    @invariant()
    def check(self):
        if not inv.method(self.state, CONCRETE):
            raise InvariantBroken(Violation(inv.name, list(self.states), list(self.labels), "hypothesis"))

    return check


@dataclass
class HypothesisResult:
    examples: int
    steps: int
    seconds: float
    seed: int
    violation: Violation | None

    @property
    def examples_per_second(self) -> float:
        return self.examples / self.seconds if self.seconds > 0 else float("inf")

    def to_json(self) -> dict:
        return {
            "examples": self.examples,
            "steps": self.steps,
            "seconds": round(self.seconds, 3),
            "examples_per_second": round(self.examples_per_second, 1),
            "seed": self.seed,
            "violations": [self.violation.invariant] if self.violation else [],
        }


def run_machine(spec: Spec, *, examples: int = 200, steps: int = 50, seed: int = 0, invariants=None,
                shrink: bool = True) -> HypothesisResult:
    """Run the derived machine; a failure is shrunk (unless ``shrink`` is off) and returned as a Violation.

    The example database is off so that a run depends only on its seed: the suite's
    verdicts must replay, and a stored failure from an earlier run must not leak in.
    Shrinking can cost 500 times the search (policy-sync's stamp-local-clock mutant: 0.3 s to
    find, 167 s to shrink), so callers that only need to know *whether* an invariant breaks
    (mutant kills, CI budgets) turn it off; the failing run is then reported as found.
    """
    counter = {"examples": 0, "steps": 0}

    def on_step():
        counter["steps"] += 1

    cls = machine_class(spec, invariants, on_step)
    original_init = cls.__init__

    def counting_init(self):
        counter["examples"] += 1
        original_init(self)

    cls.__init__ = counting_init
    hypothesis_seed(seed)(cls)
    config = settings(
        max_examples=examples,
        stateful_step_count=steps,
        deadline=None,
        database=None,
        derandomize=False,
        suppress_health_check=list(HealthCheck),
        print_blob=False,
        # quiet: Hypothesis would print the falsifying example on stdout, which --json owns
        verbosity=Verbosity.quiet,
        phases=tuple(Phase) if shrink else tuple(p for p in Phase if p not in (Phase.shrink, Phase.explain)),
    )
    started = time.perf_counter()
    violation = None
    try:
        run_state_machine_as_test(cls, settings=config)
    except InvariantBroken as broken:
        violation = broken.violation
    except Flaky as flaky:  # pragma: no cover - the spec is deterministic, so this is a core bug
        raise RuntimeError(f"Hypothesis reports a flaky failure on {spec.name}: the spec is not deterministic") from flaky
    return HypothesisResult(counter["examples"], counter["steps"], time.perf_counter() - started, seed, violation)


def run_machine_per_invariant(spec: Spec, invariants, *, examples: int, steps: int, seed: int,
                              stop_at_first: bool = False, shrink: bool = True) -> tuple[list[Violation], dict | None]:
    """Give every invariant its own search: Hypothesis stops at its first failure, so run
    again without each invariant it broke. Returns the violations and the summed summary."""
    remaining = list(invariants)
    found: list[Violation] = []
    totals = None
    while remaining:
        result = run_machine(spec, examples=examples, steps=steps, seed=seed, invariants=remaining, shrink=shrink)
        totals = _add_summaries(totals, result.to_json())
        if result.violation is None:
            break
        found.append(result.violation)
        remaining = [i for i in remaining if i.name != result.violation.invariant]
        if stop_at_first:
            break
    return found, totals


def _add_summaries(totals, summary):
    if totals is None:
        return dict(summary)
    for key in ("examples", "steps", "seconds"):
        totals[key] = round(totals[key] + summary[key], 3)
    totals["violations"] = totals["violations"] + summary["violations"]
    totals["examples_per_second"] = round(totals["examples"] / totals["seconds"], 1) if totals["seconds"] else 0
    return totals
