"""Spec exploration for contributors (issue 20): reach queries, random runs, ITF traces in and
out, the state graph, and the step-by-step session driven through a pseudo-terminal."""
from __future__ import annotations

import copy
import json
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest

from pulsar_conformance.debian import require
from pulsar_conformance.spec.core import graph, itf
from pulsar_conformance.spec.core.explorer import explore, reach
from pulsar_conformance.spec.core.simulate import simulate
from pulsar_conformance.spec.core.view import predicate
from pulsar_conformance.spec.protocols.client_failover import ClientFailover
from pulsar_conformance.spec.protocols.cluster_migration import ClusterMigration
from pulsar_conformance.spec.protocols.metadata_migration import MetadataMigration
from pulsar_conformance.spec.protocols.policy_sync import PolicySync
from pulsar_conformance.spec.protocols.tenant_migration import TenantMigration

from .conftest import BAD_INPUT

CLI = [sys.executable, "-m", "pulsar_conformance"]

# (spec, a target known to be reachable, one that is not) per spec, on instances the explorer finishes
QUESTIONS = [
    (ClientFailover(), "current != 'primary' and not up[current]",  # on a secondary that is down
     "fails > 2 and current == 'primary' and g_p_down == 0"),  # failed probes of a primary never down
    (PolicySync(variant="as-implemented", CLUSTERS=2, WRITES=2),  # F-136-2: diverged with every event delivered
     "value['a'] != value['b'] and events == 2 and all(all(d.values()) for d in delivered.values())",
     "value['a'] == 1 and events == 0"),  # a value nobody wrote
    (ClusterMigration(), "sside == 'green' and green_cursor > 0",  # a consumer reading green
     "green_len > 0 and not cluster_migrated and not terminated and blue_len == 0 and remote_written == 0"),
    (TenantMigration(), "phase == 'switched' and dup > late",  # a duplicate no sync could have prevented
     "phase == 'retired' and rep < pub"),  # a message left behind on the retired cluster
    (MetadataMigration(), "seen['p0'] == 'preparation' and inflight['p1'] > 0",  # a write in flight at the start
     "src_write_in_copy"),  # as proposed, no source write completes while the flag says COPYING
]


@pytest.mark.parametrize(("spec", "reachable", "unreachable"), QUESTIONS, ids=[q[0].name for q in QUESTIONS])
def test_reach_finds_the_shortest_trace_and_says_unreachable(spec, reachable, unreachable):
    holds = predicate(spec, reachable)
    trace, result = reach(spec, holds)
    assert trace is not None, result.to_json()
    assert holds(trace.states[-1]) and not any(holds(s) for s in trace.states[:-1])
    assert len(trace.labels) == len(trace.states) - 1 >= 1
    never, result = reach(spec, predicate(spec, unreachable))
    assert never is None and result.complete, result.to_json()


def test_an_expression_that_names_no_variable_is_refused_with_the_variables():
    with pytest.raises(ValueError, match="not variables of client-failover.*current"):
        predicate(ClientFailover(), "curent == 'primary'")
    with pytest.raises(ValueError, match="fails on the initial state"):
        predicate(ClientFailover(), "up['nowhere']")


# expressions the z3 BMC fallback must read exactly as the explorer does (differential check)
FORMULAS = {
    "client-failover": ["current != 'primary' and not up[current]", "fails > 2 and current == 'primary'",
                        "sum(up.values()) == 1", "any(not up[c] for c in up if c != current)",
                        "all(up[c] == (c == current) for c in up)", "(fails if up[current] else -fails) < 0",
                        "max(fails, g_p_down) - min(fails, g_p_down) >= 2", "abs(fails - 2) == 1 or g_last == 'failover'",
                        "fails >= FAILOVER_THRESHOLD and current == 'primary'"],  # a constant by its name
    "policy-sync": [QUESTIONS[1][1], "sum(sum(d.values()) for d in delivered.values()) == len(value)",
                    "any(value[c] != value[d] for c in value for d in value)", "value['a'] == value['b'] == 0"],
    "tenant-migration": [QUESTIONS[3][1], "sum(ack_a) == pub", "md_b < rep and not pending",
                         "phase == 'synced' and late > 0", "snaps[1] or dup > 0"],
    "cluster-migration": [QUESTIONS[2][1], "green_len + blue_len >= 2 and not terminated", "sside == 'blue' and (blue_len > 1 or cluster_migrated)"],
    "metadata-migration": [QUESTIONS[4][1], "sum(registered.values()) == PARTICIPANTS",
                           "all(seen[p] == phase for p in seen) or coord == 'crashed'",
                           "any(inflight[p] > 0 and alive[p] for p in alive)", "writes - src_val['k0'] >= 1"],
}


def test_every_spec_has_questions_and_formulas():
    """The specs come from the protocol descriptors; one added without questions here would go
    without its reach and z3-reading checks, so this fails until it has them."""
    from pulsar_conformance.spec.registry import SPECS

    assert {q[0].name for q in QUESTIONS} == set(SPECS), "add (spec, reachable, unreachable) to QUESTIONS"
    assert set(FORMULAS) == set(SPECS), "add expressions z3 reads to FORMULAS"


@pytest.mark.parametrize(("spec", "reachable", "unreachable"), QUESTIONS, ids=[q[0].name for q in QUESTIONS])
def test_z3_bmc_reaches_the_same_targets_as_the_explorer(spec, reachable, unreachable):
    """The fallback for instances the explorer cannot finish: the same shortest length, a trace
    the concrete interpreter replays and whose last state (only) satisfies the expression."""
    from pulsar_conformance.spec.core.bmc import reach as bmc_reach
    from pulsar_conformance.spec.core.interpreter import replay

    holds = predicate(spec, reachable)
    shortest, _ = reach(spec, holds)
    trace, result = bmc_reach(spec, reachable, depth=shortest.length + 2)
    assert trace is not None and trace.engine == "z3-bmc" and trace.length == shortest.length, result.to_json()
    assert holds(trace.states[-1]) and not any(holds(s) for s in trace.states[:-1])
    assert replay(spec, trace.labels).ok
    never, result = bmc_reach(spec, unreachable, depth=5)
    assert never is None and result.depth_reached == 5, result.to_json()


@pytest.mark.parametrize("spec", [q[0] for q in QUESTIONS], ids=[q[0].name for q in QUESTIONS])
def test_the_z3_reading_of_an_expression_agrees_with_python_on_every_explored_state(spec):
    import z3

    from pulsar_conformance.spec.core.formula import formula
    from pulsar_conformance.spec.core.symbolic import Encoding

    enc = Encoding(spec)
    states = _some_states(spec, 400)
    for expression in FORMULAS[spec.name]:
        holds = predicate(spec, expression)
        seen = set()
        for state in states:
            got = z3.simplify(formula(spec, expression, enc.constant_state(state), enc.kit.numeral))
            assert z3.is_true(got) == holds(state), (expression, spec.show_state(state))
            seen.add(holds(state))
        assert seen == {True, False}, f"{expression!r} is constant over the sample: it would not tell a wrong reading"


def test_an_expression_z3_cannot_read_is_refused_by_name():
    from pulsar_conformance.spec.core.formula import NotSymbolic, formula
    from pulsar_conformance.spec.core.symbolic import Encoding

    spec = ClientFailover()
    enc = Encoding(spec)
    for expression, named in [("sorted(up)[0] == 'primary'", "sorted"), ("fails // 2 == 1", "FloorDiv"),
                              ("up == up", "whole array"), ("current in up", "In")]:
        with pytest.raises(NotSymbolic, match=named):
            formula(spec, expression, enc.state("x"), enc.kit.numeral)


def _some_states(spec, limit):
    from pulsar_conformance.spec.core.graph import build

    states = build(spec, max_states=10**6).states
    return states[:: max(1, len(states) // limit)]


def test_reach_cli_exit_codes(tmp_path):
    found = subprocess.run([*CLI, "spec", "explore", "client-failover", "--reach", QUESTIONS[0][1],
                            "--itf", str(tmp_path / "t.json"), "--json"], capture_output=True, text=True)
    assert found.returncode == 0 and json.loads(found.stdout)["status"] == "reached", found.stderr
    assert (tmp_path / "t.json").exists()
    never = subprocess.run([*CLI, "spec", "explore", "client-failover", "--reach", QUESTIONS[0][2]],
                           capture_output=True, text=True)
    assert never.returncode == 1 and "unreachable" in never.stdout and "12504 states" in never.stdout
    cut = subprocess.run([*CLI, "spec", "explore", "client-failover", "--reach", QUESTIONS[0][2], "--max-states", "100",
                          "--depth", "8"], capture_output=True, text=True)  # the explorer stops short: z3 BMC bounds it
    assert cut.returncode == 1 and "unreachable within 8 steps" in cut.stdout and "stopped by max_states" in cut.stdout
    deep = subprocess.run([*CLI, "spec", "explore", "cluster-migration", "--reach", QUESTIONS[2][1], "--max-states", "5",
                           "--json"], capture_output=True, text=True)
    doc = json.loads(deep.stdout)
    assert deep.returncode == 0 and doc["status"] == "reached" and doc["trace"]["engine"] == "z3-bmc", deep.stderr
    opaque = subprocess.run([*CLI, "spec", "explore", "client-failover", "--reach", "len(sorted(up)) == 4",
                             "--max-states", "100"], capture_output=True, text=True)
    assert opaque.returncode == 2 and "UNKNOWN" in opaque.stdout and "cannot take this expression" in opaque.stdout
    bad = subprocess.run([*CLI, "spec", "explore", "client-failover", "--reach", "current =="], capture_output=True, text=True)
    assert bad.returncode == BAD_INPUT and "not an expression" in bad.stderr


# ------------------------------------------------------------------------ ITF


@pytest.fixture(scope="module")
def counterexample():
    spec = PolicySync(variant="as-implemented")
    result = explore(spec, max_states=200_000, stop_at_first=True)
    violation = result.violations["converges"] if "converges" in result.violations else next(iter(result.violations.values()))
    return spec, itf.to_itf(spec, violation, kind="counterexample")


def test_a_counterexample_is_valid_itf_and_replays(counterexample):
    spec, doc = counterexample
    assert itf.schema_problems(doc) == []
    assert doc["states"][1]["#meta"]["action"] != "init" and doc["vars"] == list(spec.var_types)
    report = itf.replay(spec, json.loads(json.dumps(doc)))  # through JSON text, as a file would
    assert report.ok and report.steps == len(doc["states"]) - 1, report.problem


def test_a_corrupted_step_is_rejected(counterexample):
    spec, doc = counterexample
    bad = copy.deepcopy(doc)
    bad["states"][2]["value"]["a"] = {"#bigint": str(spec.WRITES)}  # a value no action writes there
    if bad["states"][2] == doc["states"][2]:
        bad["states"][2]["value"]["a"] = {"#bigint": "0"}
    report = itf.replay(spec, bad)
    assert not report.ok and report.steps <= 1 and "no action" in report.problem, report.problem
    relabelled = copy.deepcopy(doc)
    relabelled["states"][1]["#meta"]["action"] = "put(c=b)" if "c=a" in doc["states"][1]["#meta"]["action"] else "put(c=a)"
    report = itf.replay(spec, relabelled)
    assert not report.ok and "the trace says" in report.problem, report.problem


def test_what_is_not_itf_is_refused_by_the_schema(counterexample):
    spec, doc = counterexample
    for broken in ({"states": []}, {**doc, "states": [{"clock": {"#bigint": "x"}}]}, {**doc, "extra": 1}):
        assert itf.schema_problems(broken), broken
        assert not itf.replay(spec, broken).ok


def test_replay_cli(counterexample, tmp_path):
    spec, doc = counterexample
    good, bad = tmp_path / "good.json", tmp_path / "bad.json"
    itf.write(good, doc)
    corrupted = copy.deepcopy(doc)
    corrupted["states"][-1]["events"] = {"#bigint": "0"}
    itf.write(bad, corrupted)
    ok = subprocess.run([*CLI, "spec", "replay", "policy-sync", str(good)], capture_output=True, text=True)
    assert ok.returncode == 0 and ok.stdout.startswith("OK"), ok.stdout + ok.stderr
    rejected = subprocess.run([*CLI, "spec", "replay", "policy-sync", str(bad)], capture_output=True, text=True)
    assert rejected.returncode == 1 and "REJECTED" in rejected.stdout
    (tmp_path / "junk.json").write_text("{not json")
    junk = subprocess.run([*CLI, "spec", "replay", "policy-sync", str(tmp_path / "junk.json")], capture_output=True, text=True)
    assert junk.returncode == BAD_INPUT and "not a readable JSON" in junk.stderr


# ------------------------------------------------------------------- simulate


def test_simulation_is_seeded_stops_where_asked_and_replays():
    spec = ClientFailover()
    one, again = simulate(spec, steps=15, seed=7), simulate(spec, steps=15, seed=7)
    assert one.trace.labels == again.trace.labels and one.trace.length == 15
    assert simulate(spec, steps=15, seed=8).trace.labels != one.trace.labels
    assert itf.replay(spec, itf.to_itf(spec, one.trace, kind="simulation")).ok
    target = predicate(spec, "current != 'primary'")
    runs = [simulate(spec, steps=60, seed=s, until=target) for s in range(10)]
    reached = [r for r in runs if r.stopped_by == "until"]
    assert reached and all(target(r.trace.states[-1]) and not target(r.trace.states[-2]) for r in reached)


# ---------------------------------------------------------------------- graph

SMALL = {"SECONDARIES": 1}


def test_graph_coverage_lists_every_action_and_refuses_a_big_instance():
    spec = ClientFailover(**SMALL)
    g = graph.build(spec, variables=("current", "fails", "oks"))
    assert set(g.coverage) == {a.name for a in spec.actions}
    assert g.coverage["tick"] > 0 and g.coverage["admin_points_to"] == 0  # controlled-only: never in cpp
    table = graph.coverage_table(spec, g)
    assert all(a.name in table for a in spec.actions) and "NEVER ENABLED" in table
    with pytest.raises(graph.TooLarge, match="lower the constants"):
        graph.build(ClientFailover())
    diverging = PolicySync(variant="as-implemented", CLUSTERS=2, WRITES=2)
    broken = graph.build(diverging, variables=("value", "events"))
    assert broken.broken and len(broken.states) <= 27  # the as-implemented rule's divergence, marked
    assert "BREAKS converges" in graph.to_dot(diverging, broken)


def test_graph_renders_an_svg_a_person_can_read(tmp_path):
    # No install here (issue 34): tox's spec env runs `setup --check graph` first, so a machine
    # without Graphviz fails before pytest with the fix, and this test is never a silent skip.
    require("graph")
    svg, png = tmp_path / "cf.svg", tmp_path / "cf.png"
    for out in (svg, png):
        done = subprocess.run([*CLI, "spec", "graph", "client-failover", "--const", "SECONDARIES=1",
                               "--vars", "current,fails,oks", "--out", str(out), "--json"], capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
    doc = json.loads(done.stdout)
    root = ET.parse(svg).getroot()
    ns = {"svg": "http://www.w3.org/2000/svg"}
    nodes = root.findall(".//svg:g[@class='node']", ns)
    edges = root.findall(".//svg:g[@class='edge']", ns)
    assert len(nodes) == doc["nodes"] and len(edges) == doc["edges"] > 0
    texts = " ".join(t.text or "" for t in root.iter("{http://www.w3.org/2000/svg}text"))
    assert "current=s1" in texts and "tick" in texts
    # the picture itself: a PNG of sensible size (not a blank or a one-line strip)
    header = png.read_bytes()[:24]
    width, height = int.from_bytes(header[16:20], "big"), int.from_bytes(header[20:24], "big")
    assert header[:8] == b"\x89PNG\r\n\x1a\n" and 400 < width < 6000 and 200 < height < 4000, (width, height)


# ----------------------------------------------------------------------- step


def test_step_session_through_a_pseudo_terminal():
    import pexpect

    child = pexpect.spawn(CLI[0], [*CLI[1:], "spec", "step", "client-failover", "--const", "SECONDARIES=1"],
                          timeout=30, encoding="utf-8")
    try:
        child.expect("enabled:")
        child.expect(r"1\. go_down\(c=primary\)")
        child.expect("step> ")
        child.sendline("1")
        child.expect("step 1: go_down\\(c=primary\\)")
        child.expect("up: \\[primary:T s1:T\\] -> \\[primary:F s1:T\\]")
        child.expect("step> ")
        child.sendline("99")
        child.expect("no action 99")
        child.expect("step> ")
        child.sendline("u")
        child.expect("undone: go_down\\(c=primary\\)")
        child.expect("step> ")
        child.sendline("q")
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
    assert child.exitstatus == 0
