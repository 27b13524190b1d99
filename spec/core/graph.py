"""The reachable state graph of a small instance, as TLC dumps it: DOT (and SVG through
Graphviz), actions on the edges, states that break an invariant marked, and how often each
action fires (an action that never does is a spec smell: a guard nothing can satisfy)."""
from __future__ import annotations

import shutil
import subprocess
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from pulsar_conformance import debian

from .interpreter import initial_state, successors, violated
from .model import Spec

MAX_STATES = 400  # above this a picture is a hairball; the refusal names the constants to lower


class TooLarge(ValueError):
    pass


@dataclass
class StateGraph:
    states: list  # index -> State (a representative, when the graph is projected), 0 initial
    edges: list[tuple[int, int, str]]  # (from, to, action label)
    broken: dict[int, list[str]]  # state index -> invariants it (or a state projected onto it) breaks
    coverage: dict[str, int]  # action name -> transitions in the full graph
    shown: tuple[str, ...]  # the variables the nodes show
    full_states: int = 0


def build(spec: Spec, *, max_states: int = MAX_STATES, variables: tuple[str, ...] = (),
          explore_limit: int = 200_000) -> StateGraph:
    """The reachable graph; with ``variables``, its quotient by them (states that agree on them
    are one node, transitions that change none of them are left out): the way to draw a spec
    whose ghost counters multiply the states."""
    unknown = [v for v in variables if v not in spec.var_types]
    if unknown:
        raise ValueError(f"{spec.name} has no variable(s) {unknown}; it has {', '.join(spec.var_types)}")
    shown = tuple(variables) or tuple(spec.var_types)
    key = (lambda s: tuple(getattr(s, v) for v in shown)) if variables else (lambda s: s)
    init = initial_state(spec)
    seen = {init}
    frontier = [init]
    node = {key(init): 0}
    states, edges = [init], set()
    checked = spec.checked_invariants()
    coverage = Counter({a.name: 0 for a in spec.actions})
    broken: dict[int, set] = {}

    def add(state) -> int:
        k = key(state)
        if k not in node:
            if len(states) >= max_states:
                raise TooLarge(
                    f"{spec.name} ({spec.variant}) has more than {max_states} {'distinct (' + ', '.join(shown) + ')' if variables else 'reachable states'} "
                    f"with {_constants(spec)}; lower the constants, draw fewer variables (--vars), or pass --max-states")
            node[k] = len(states)
            states.append(state)
        return node[k]

    def mark(state) -> None:
        names = violated(spec, state, checked)
        if names:
            broken.setdefault(node[key(state)], set()).update(names)

    mark(init)
    while frontier:
        nxt_frontier = []
        for state in frontier:
            for ground, nxt in successors(spec, state):
                coverage[ground.decl.name] += 1
                a, b = node[key(state)], add(nxt)
                if a != b or not variables:
                    edges.add((a, b, ground.label(spec)))
                if nxt not in seen:
                    if len(seen) >= explore_limit:
                        raise TooLarge(f"{spec.name} ({spec.variant}) has more than {explore_limit} reachable states "
                                       f"with {_constants(spec)}; lower the constants")
                    seen.add(nxt)
                    nxt_frontier.append(nxt)
                    mark(nxt)
        frontier = nxt_frontier
    return StateGraph(states, sorted(edges), {i: sorted(n) for i, n in broken.items()}, dict(coverage), shown, len(seen))


def _constants(spec: Spec) -> str:
    return ", ".join(f"{k}={v}" for k, v in spec.constants.items())


def to_dot(spec: Spec, graph: StateGraph) -> str:
    """Nodes show the variables that differ from the initial state (the rest would repeat);
    a node that breaks an invariant is red and names it."""
    init = {k: v for k, v in spec.show_state(graph.states[0]).items() if k in graph.shown}
    lines = [f'digraph "{spec.name}" {{', "  rankdir=LR;", '  node [shape=box, fontname="monospace", fontsize=9];',
             '  edge [fontname="sans", fontsize=8];',
             f'  labelloc=t; label="{spec.name} ({spec.variant}), {_constants(spec)}: {len(graph.states)} nodes, '
             f'{len(graph.edges)} edges'
             + (f" (projected on {', '.join(graph.shown)} from {graph.full_states} states; red: some state of the "
                f"node breaks an invariant)" if graph.shown != tuple(spec.var_types) else "; red: breaks an invariant")
             + '";']
    for i, state in enumerate(graph.states):
        shown = {k: v for k, v in spec.show_state(state).items() if k in graph.shown}
        text = ("init\\n" + "\\n".join(f"{k}={v}" for k, v in init.items()) if i == 0 else
                "\\n".join(f"{k}={v}" for k, v in shown.items() if v != init[k]) or "(as init)")
        style = ""
        if i in graph.broken:
            text += "\\nBREAKS " + ", ".join(graph.broken[i])
            style = ', color=red, fontcolor=red, penwidth=2'
        elif i == 0:
            style = ", penwidth=2"
        lines.append(f'  s{i} [label="{_escape(text)}"{style}];')
    for a, b, label in graph.edges:
        lines.append(f'  s{a} -> s{b} [label="{_escape(label)}"];')
    lines.append("}")
    return "\n".join(lines) + "\n"


def _escape(text: str) -> str:
    return text.replace('"', '\\"')


def coverage_table(spec: Spec, graph: StateGraph) -> str:
    width = max(len(a.name) for a in spec.actions)
    lines = [f"{'action'.ljust(width)}  transitions"]
    for action in spec.actions:
        count = graph.coverage[action.name]
        lines.append(f"{action.name.ljust(width)}  {count}" + ("  NEVER ENABLED in this variant and instance (a guard nothing satisfies?)" if not count else ""))
    return "\n".join(lines)


def render(dot: str, out: Path) -> None:
    """Write ``out`` as .dot, or .svg/.png through Graphviz; a missing Graphviz stops with its fix
    (``pulsar-conformance setup --yes graph``), never installed unasked."""
    if out.suffix == ".dot":
        out.write_text(dot)
        return
    if out.suffix not in (".svg", ".png"):
        raise ValueError(f"{out}: write .dot, .svg or .png")
    if shutil.which("dot") is None:
        try:
            debian.require("graph")
        except debian.MissingPackages as missing:
            missing.fix = f"{missing.fix}; or write FILE.dot and render it elsewhere"
            raise
    tmp = out.with_name(out.name + ".tmp")
    done = subprocess.run(["dot", f"-T{out.suffix[1:]}", "-o", str(tmp)], input=dot, text=True,
                          capture_output=True, timeout=300, check=False)
    if done.returncode != 0:
        tmp.unlink(missing_ok=True)
        raise RuntimeError(f"graphviz failed: {done.stderr[-500:]}")
    tmp.replace(out)
