"""The expression language of ``--reach``/``--until`` (issue 29): checked on the parsed tree
before anything is evaluated, evaluated by the suite's own interpreter (never ``eval``), its cost
bounded; the z3 reading takes the same checked tree. docs/exploring.md describes it."""
from __future__ import annotations

import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pulsar_conformance.spec.core.expression import MAX_ITERATIONS, ExpressionError, parse
from pulsar_conformance.spec.core.view import predicate
from pulsar_conformance.spec.protocols.client_failover import ClientFailover
from pulsar_conformance.spec.registry import SPECS

from .conftest import BAD_INPUT

CLI = [sys.executable, "-m", "pulsar_conformance"]
SPEC = ClientFailover()
DOCS = Path(__file__).resolve().parents[2] / "docs" / "exploring.md"


def test_attribute_walking_runs_nothing(tmp_path):
    """The escape of issue 29: from a tuple through its class to every class of the process, and
    on to a subprocess. Refused on the tree, so the file is never created."""
    canary = tmp_path / "pwned"
    payload = ("[c for c in ().__class__.__base__.__subclasses__() if c.__name__ == 'Popen'][0]"
               f"(['touch', '{canary}']) and False")
    for option in ("--reach", "--until"):
        command = "explore" if option == "--reach" else "simulate"
        done = subprocess.run([*CLI, "spec", command, "client-failover", option, payload, "--max-states", "50"]
                              if command == "explore" else [*CLI, "spec", command, "client-failover", option, payload],
                              capture_output=True, text=True, timeout=120)
        assert not canary.exists(), f"{option} ran the payload"
        assert done.returncode == BAD_INPUT and "not part of the expression language" in done.stderr, done.stderr
        assert "fix:" in done.stderr
        assert "Traceback" not in done.stderr


REFUSED = [  # (expression, what the message names)
    ("().__class__", "attribute access"),
    ("up.get('s1')", "attribute access"),
    ("__import__('os')", "the call __import__"),
    ("open('/etc/passwd')", "the call open"),
    ("getattr(up, 'values')", "the call getattr"),
    ("(lambda: 1)()", "lambda"),
    ("(x := fails) > 1", "assignment expression"),
    ("{c: 1 for c in up}", "dict comprehension"),
    ("{'a': 1}", "dict literal"),
    ("f'{current}' == 's1'", "f-string"),
    ("current is 'primary'", "'is'"),
    ("fails / 2 > 1", "'/'"),
    ("fails & 1", "'&'"),
    ("~fails", "'~'"),
    ("max(*up.values())", "unpacking"),
    ("sorted(up, key=len)", "keyword argument"),
    ("up.values(1)", "with arguments"),
    ("1.5 < fails", "float literal"),
    ("len", "len without a call"),
    ("any(up[c] for c, d in up)", "'for' target other than one name"),
    ("fails < 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 99999999999999999999999", "more than 64 bits"),
    ("curent == 'primary'", "not variables of client-failover"),
    ("current ==", "not an expression"),
    ("x" * 2000, "at most 1000"),
    ("-" * 200 + "fails", "nests deeper"),
]


@pytest.mark.parametrize(("expression", "named"), REFUSED, ids=[r[1] for r in REFUSED])
def test_what_is_outside_the_language_is_refused_by_name_with_a_fix(expression, named):
    with pytest.raises(ExpressionError, match=re.escape(named)) as refused:
        parse(SPEC, expression)
    assert refused.value.fix and len(str(refused.value)) < 1000


COSTLY = ["9**9**9", "sum(1 for i in range(10**9))", "len(list(range(10**18)))", "max(range(2**62))",
          "sum(1 for a in range(99) for b in range(99) for c in range(99)) > 0",
          "2 ** 64 > 0", "(fails + 1) * 10 ** 18 * 10 ** 18 > 0", "sorted(set(range(10 ** 6)))"]


@pytest.mark.parametrize("expression", COSTLY)
def test_a_costly_expression_is_refused_on_the_initial_state_at_once(expression):
    started = time.perf_counter()
    with pytest.raises(ExpressionError, match="initial state.*(exponent|items|bits)"):
        predicate(SPEC, expression)
    assert time.perf_counter() - started < 2


def test_the_iteration_bound_leaves_room_for_real_questions():
    big = ClientFailover(SECONDARIES=4)  # the largest instance the limits allow
    nested = "sum(1 for a in up for b in up for c in up for d in up) == len(up) ** 4"
    assert len(big.var_types["up"].index.names) ** 4 < MAX_ITERATIONS
    from pulsar_conformance.spec.core.interpreter import initial_state

    assert predicate(big, nested)(initial_state(big))


def test_the_language_reads_python_s_way_on_what_it_takes():
    from pulsar_conformance.spec.core.interpreter import initial_state
    from pulsar_conformance.spec.core.view import readable

    state = initial_state(SPEC)
    view = readable(SPEC, state)
    cases = ["current == 'primary' and up['s1']", "sum(up.values()) == 3", "sorted(up)[0] == 'primary'",
             "current in ('primary', 's1') and 's2' in up", "current not in up.keys()", "fails // 2 == 0 and fails % 2 == 0",
             "(fails if up[current] else -fails) == 0", "len([c for c in up if up[c]]) == len({c for c in up})",
             "min(fails, 3) == 0 < max(3, 4)", "abs(-2) ** 3 == 8", "list(range(3))[1:] == [1, 2]",
             "SECONDARIES == 2 and FAILOVER_THRESHOLD > fails", "not any(c == 'primary' for c in ['s1', 's2'])",
             "tuple(up.values()) == (True, True, True)", "all(up[c] for c in up if c != current)"]
    for expression in cases:
        python = eval(expression, {"__builtins__": {n: __builtins__[n] if isinstance(__builtins__, dict)  # noqa: S307
                                                     else getattr(__builtins__, n) for n in
                                                     ("len", "any", "all", "sum", "min", "max", "sorted", "set",
                                                      "tuple", "list", "abs", "range")},
                                   **SPEC.constants, **view})
        assert predicate(SPEC, expression)(state) == bool(python), expression


def test_a_failure_on_a_later_state_is_bad_input_not_a_traceback():
    # fails reaches 2 after two failed probes: 12 // (2 - fails) divides by zero there, not at first
    done = subprocess.run([*CLI, "spec", "simulate", "client-failover", "--until", "12 // (2 - fails) > 100",
                           "--steps", "50", "--runs", "5"], capture_output=True, text=True, timeout=120)
    assert done.returncode == BAD_INPUT and "division by zero" in done.stderr and "fails=2" in done.stderr, done.stderr
    assert "fix:" in done.stderr and "Traceback" not in done.stderr
    done = subprocess.run([*CLI, "spec", "explore", "client-failover", "--reach", "12 // (2 - fails) > 100"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == BAD_INPUT and "division by zero" in done.stderr and "Traceback" not in done.stderr


def test_the_z3_reading_takes_only_the_checked_language():
    from pulsar_conformance.spec.core.formula import NotSymbolic, formula
    from pulsar_conformance.spec.core.symbolic import Encoding

    enc = Encoding(SPEC)
    with pytest.raises(ExpressionError, match="attribute access"):
        formula(SPEC, "up.__class__ == 1", enc.state("x"), enc.kit.numeral)
    with pytest.raises(NotSymbolic, match="enum value compared"):
        formula(SPEC, "current == 0", enc.state("x"), enc.kit.numeral)  # Python: a name is never 0
    with pytest.raises(NotSymbolic, match="more than"):
        formula(SPEC, "sum(1 for a in up for b in up for c in up for d in up for e in up for f in up "
                      "for g in up for h in up for i in up) > 0", Encoding(SPEC).state("y"), enc.kit.numeral)


def test_the_z3_reading_does_not_wrap_around_where_python_does_not():
    """The encoding's numbers are 16-bit vectors in tenant-migration: the expression's arithmetic is
    read over unbounded integers, as Python computes it (it used to wrap: 70000 read as 4464)."""
    import z3

    from pulsar_conformance.spec.core.formula import formula
    from pulsar_conformance.spec.core.interpreter import initial_state
    from pulsar_conformance.spec.core.symbolic import Encoding
    from pulsar_conformance.spec.protocols.tenant_migration import TenantMigration

    spec = TenantMigration()
    enc = Encoding(spec)
    state = initial_state(spec)
    for expression in ("pub < 70000", "pub * 30000 + 30000 > 60000 or pub == 0", "-40000 < pub - 1",
                       "sum(ack_a) * 20000 >= 0", "pub + 65536 != 65536 or pub == 0"):
        got = z3.simplify(formula(spec, expression, enc.constant_state(state), enc.kit.numeral))
        assert z3.is_true(got) == predicate(spec, expression)(state), expression


def _documented():
    """Every --reach/--until expression docs/exploring.md shows, with its spec and variant."""
    found = []
    for block in re.findall(r"spec (?:explore|simulate) ([\w-]+)((?:\\\n|[^\n])*)", DOCS.read_text()):
        name, rest = block
        if name not in SPECS:  # the synopsis: spec explore SPEC --reach "EXPR"
            continue
        variant = re.search(r"--variant ([\w-]+)", rest)
        constants = dict((k, int(v)) for k, v in re.findall(r"--const (\w+)=(\d+)", rest))
        for expression in re.findall(r"--(?:reach|until) \"([^\"]+)\"", rest):
            if expression != "...":
                found.append((name, variant.group(1) if variant else None, constants, expression))
    return found


def test_every_expression_the_docs_show_is_in_the_language():
    documented = _documented()
    assert len(documented) >= 5 and {n for n, *_ in documented} >= {"client-failover", "policy-sync", "cluster-migration"}
    for name, variant, constants, expression in documented:
        predicate(SPECS[name](variant=variant, **constants), expression)


def test_the_docs_list_the_language_the_code_takes():
    from pulsar_conformance.spec.core.expression import FUNCTIONS, MAX_EXPONENT, MAX_INT_BITS, MAX_ITERATIONS

    text = DOCS.read_text()
    section = text[text.index("## The expression language"):]
    assert all(f"`{f}`" in section for f in FUNCTIONS)
    for figure in (MAX_INT_BITS, MAX_EXPONENT, f"{MAX_ITERATIONS:,}"):
        assert str(figure) in section


# ---------------------------------------------------------------- the interpreter against Python's own

_INTS = ["fails", "oks", "g_p_down", "SECONDARIES", "len(up)", "sum(up.values())", "abs(fails - 3)", "max(fails, oks)"]
_BOOLS = ["up['primary']", "up[current]", "(current == 'primary')", "('s1' in up)", "any(up[c] for c in up if c != current)"]


def _expressions():
    from hypothesis import strategies as st

    ints = st.recursive(
        st.one_of(st.integers(-3, 3).map(str), st.sampled_from(_INTS)),
        lambda inner: st.tuples(inner, st.sampled_from(["+", "-", "*", "//", "%"]), inner).map(lambda t: f"({t[0]} {t[1]} {t[2]})")
        | st.tuples(inner, inner, st.sampled_from(_BOOLS)).map(lambda t: f"({t[0]} if {t[2]} else {t[1]})"),
        max_leaves=4)
    comparison = st.tuples(ints, st.sampled_from(["==", "!=", "<", "<=", ">", ">="]), ints).map(" ".join)
    return st.recursive(
        st.one_of(comparison, st.sampled_from(_BOOLS)),
        lambda inner: st.tuples(inner, st.sampled_from(["and", "or"]), inner).map(lambda t: f"({t[0]} {t[1]} {t[2]})")
        | inner.map(lambda e: f"(not {e})"),
        max_leaves=4)


def test_the_interpreter_agrees_with_python_on_generated_expressions():
    """Within the language the suite's interpreter must read an expression as Python would: the
    same truth value, or both refuse (a division by zero)."""
    import builtins

    from hypothesis import HealthCheck, given, settings

    from pulsar_conformance.spec.core.view import readable

    states = _sample(SPEC, 12)
    allowed = {n: getattr(builtins, n) for n in ("len", "any", "all", "sum", "min", "max", "abs")}

    @settings(max_examples=150, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(expression=_expressions())
    def agree(expression):
        from pulsar_conformance.spec.core.expression import compile_expression

        evaluate = compile_expression(SPEC, expression)
        for state in states:
            view = readable(SPEC, state)
            try:
                expected = bool(eval(expression, {"__builtins__": allowed, **SPEC.constants, **view}))  # noqa: S307 - generated here
            except ZeroDivisionError:
                with pytest.raises(ExpressionError, match="division by zero"):
                    evaluate(view)
                continue
            assert bool(evaluate(view)) == expected, (expression, SPEC.show_state(state))

    agree()


def _sample(spec, limit):
    from pulsar_conformance.spec.core.graph import build

    states = build(spec, max_states=10**6).states
    return states[:: max(1, len(states) // limit)]
