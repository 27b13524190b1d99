"""A counterexample of the policy-sync spec, replayed on real clusters.

The spec's actions map onto operations (spec cluster ``a, b, c`` = the real clusters in name
order, so the tie-break compares names the same way):
- ``clock_tick(c)``: c's broker clock is frozen one millisecond further (all clocks stand at the
  scenario's base time at the start, as the spec's start at 0);
- ``put(c)``: the admin write of value ``slot + 1`` at c; ``delete(c)``: the namespace deleted;
- ``deliver(e, c)`` for another cluster: the link from e's writer to c, held from the start, is
  released until c has consumed what it carried, then held again.

Two things a real deployment does not let a scenario choose, so the replay moves them and says
so: a cluster consumes its OWN event right after writing it (its synchronizer reads the local
topic at once), and a link delivers everything it holds, in order (a replicated topic is FIFO
per link). A trace that a real deployment cannot follow (a redelivery, an out-of-order delivery,
a batch whose later events the trace interleaves with other steps at the receiver) is refused
with the reason: no replay is then a result, not a pass.

What ran (the realized order) is itself a behaviour of the spec: the interpreter replays it and
its final values are the spec's prediction for the real clusters.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from pulsar_conformance.spec.core.explorer import explore
from pulsar_conformance.spec.core.interpreter import replay
from pulsar_conformance.spec.protocols.policy_sync import PolicySync

from ...harness import itf_traces
from .outcome import Step

_LABEL = re.compile(r"^(\w+)\((.*)\)$")


class NotReplayable(ValueError):
    pass


def parse(label: str) -> tuple[str, dict[str, str]]:
    m = _LABEL.match(label.strip())
    if not m:
        raise NotReplayable(f"cannot read action {label!r}")
    args = dict(part.strip().split("=", 1) for part in m.group(2).split(",") if part.strip())
    return m.group(1), args


def counterexample(variant: str = "as-implemented", invariant: str = "converges", **constants) -> list[str]:
    """The shortest trace the explorer finds that breaks ``invariant`` (breadth first)."""
    spec = PolicySync(variant=variant, **constants)
    chosen = [inv for inv in spec.checked_invariants() if inv.name == invariant]
    found = explore(spec, invariants=chosen, stop_at_first=True, max_states=500_000)
    if invariant not in found.violations:
        raise NotReplayable(f"{variant}: no trace breaks {invariant} within {found.distinct_states} states")
    return list(found.violations[invariant].labels)


@dataclass
class Plan:
    trace: list[str]  # as the spec printed it
    realized: list[str]  # the same actions in the order the real clusters can run them
    steps: list[Step]
    setup: list[Step]
    moved: list[str] = field(default_factory=list)  # what the realization changed, said plainly
    clusters: dict[str, str] = field(default_factory=dict)  # spec name -> real name


def plan(trace: list[str], real: list[str], name=None) -> Plan:
    """``name(cluster)``: the name Pulsar knows ``cluster`` by, which the tie-break compares (default the
    cluster itself); an external deployment's roles (alpha, bravo, charlie) need not sort as its clusters do."""
    spec = PolicySync()
    names = list(spec.clusters.names)
    if len(real) < len(names):
        raise NotReplayable(f"the spec has {len(names)} clusters, the deployment {len(real)}")
    to_real = dict(zip(names, sorted(real, key=name)[:len(names)], strict=True))
    actions = [parse(label) for label in trace]
    setup = [Step("hold", cluster=to_real[s], to=to_real[t]) for s in names for t in names if s != t]
    setup.append(Step("freeze", clocks=tuple((to_real[c], 0) for c in names)))
    clock = dict.fromkeys(names, 0)
    source: dict[str, str] = {}  # event slot -> its writer (spec names)
    link: dict[tuple[str, str], list[str]] = {}  # undelivered events per (writer, receiver)
    done: set[tuple[str, str]] = set()  # (event, receiver) already realized
    early: set[tuple[str, str]] = set()  # realized with an earlier event of the link, before the trace has it
    own_seen: set[tuple[str, str]] = set()  # own deliveries the trace has reached
    written_at: dict[str, int] = {}
    steps: list[Step] = []
    realized: list[str] = []
    moved: list[str] = []
    for i, (name, args) in enumerate(actions):
        if name == "clock_tick":
            c = args["c"]
            clock[c] += 1
            steps.append(Step("freeze", clocks=((to_real[c], clock[c]),), note=trace[i]))
            realized.append(trace[i])
        elif name in ("put", "delete"):
            c, slot = args["c"], f"e{len(source)}"
            source[slot] = c
            written_at[slot] = i
            value = len(source)
            steps.append(Step("write", cluster=to_real[c], value=value, note=trace[i]) if name == "put"
                         else Step("delete", cluster=to_real[c], note=trace[i]))
            realized += [trace[i], f"deliver(e={slot}, c={c})"]
            done.add((slot, c))
            for other in names:
                if other != c:
                    link.setdefault((c, other), []).append(slot)
        elif name == "deliver":
            e, c = args["e"], args["c"]
            writer = source.get(e)
            if writer is None:
                raise NotReplayable(f"step {i + 1} {trace[i]}: event {e} was never written")
            if (e, c) in early:  # it came with an earlier event of its link, as checked then
                early.discard((e, c))
                continue
            if (e, c) in done:
                if writer == c and (e, c) not in own_seen:
                    own_seen.add((e, c))
                    if i != written_at[e] + 1:
                        moved.append(f"step {i + 1} {trace[i]}: {c} consumed its own event right after writing it")
                    continue
                raise NotReplayable(f"step {i + 1} {trace[i]}: a redelivery, which a real deployment does not "
                                    "do on demand")
            queue = link.get((writer, c), [])
            if not queue or queue[0] != e:
                raise NotReplayable(f"step {i + 1} {trace[i]}: delivers {e} before {queue[0] if queue else '?'}, "
                                    f"but the link {writer} -> {c} is FIFO")
            for later in queue[1:]:
                _check_batch(actions, i, later, c, trace)
                moved.append(f"step {i + 1}: {later} reached {c} with {e} (one link, in order)")
                early.add((later, c))
            steps.append(Step("release", cluster=to_real[writer], to=to_real[c], note=trace[i]))
            steps.append(Step("hold", cluster=to_real[writer], to=to_real[c]))
            for slot in queue:
                realized.append(f"deliver(e={slot}, c={c})")
                done.add((slot, c))
            link[(writer, c)] = []
        else:
            raise NotReplayable(f"step {i + 1}: no real operation for {trace[i]}")
    return Plan(trace=list(trace), realized=realized, steps=steps, setup=setup, moved=moved, clusters=to_real)


def _check_batch(actions, i: int, later: str, c: str, trace: list[str]) -> None:
    """Delivering ``later`` to ``c`` at step ``i`` (with an earlier event of the same link) is
    the trace's own behaviour only if nothing happens at ``c`` before the trace delivers it."""
    for j in range(i + 1, len(actions)):
        name, args = actions[j]
        if name == "deliver" and args.get("e") == later and args.get("c") == c:
            return
        if args.get("c") == c:
            raise NotReplayable(f"step {i + 1}: the link delivers {later} to {c} at once, but the trace has "
                                f"{trace[j]} at {c} before it delivers {later} there")
    raise NotReplayable(f"the trace never delivers {later} to {c}, but the link would")


def predict(variant: str, labels: list[str]) -> tuple[bool, dict[str, int], str]:
    """Does ``variant`` allow ``labels``, and with which final value per spec cluster?"""
    ok, values, problem, _ = predicted(variant, labels)
    return ok, values, problem


def predicted(variant: str, labels: list[str]) -> tuple[bool, dict[str, int], str, itf_traces.LiveTrace]:
    """``predict``, with the realized order as a behaviour of ``variant`` (up to a step it refuses), to
    save as an ITF file of the bundle: every step is one the real clusters ran."""
    spec = PolicySync(variant=variant)
    result = replay(spec, labels)
    final = result.states[-1]
    values = dict(zip(spec.clusters.names, final.value, strict=True))
    return result.ok, values, result.problem, itf_traces.from_replay(spec, result, labels, part=variant)
