"""spec commands: expressions (hostile ones included), constants, bounds, output paths and ITF traces.

Every expression generated here holds at least one thing outside the language of docs/exploring.md
(an unknown name, an attribute, a call of a function the language lacks, a refused construct), or
costs more than the language allows, or fails on every spec's initial state; whatever surrounds it,
it must be refused before anything is evaluated or searched.
"""
from __future__ import annotations

import functools
import json

import pytest
from hypothesis import strategies as st

from pulsar_conformance.spec.registry import SPECS

from .cases import Case, big_file, fuzz, json_flag, params, run_valid
from .values import (
    WORDS,
    bad_file_out,
    bad_input_file,
    bad_seconds,
    ints_outside,
    not_a_number,
    tmp_sibling_is_a_dir,
)

SPEC_NAMES = list(SPECS)
KNOWN: dict[str, str] = {}

# ------------------------------------------------------------------------------------------- expressions

UNKNOWN_NAME = WORDS.map(lambda w: "zz_" + "".join(c for c in w if c.isalnum() or c == "_")[:12])
DUNDERS = ("__class__", "__base__", "__bases__", "__subclasses__", "__mro__", "__globals__", "__builtins__",
           "__init__", "__dict__", "__code__", "__getattribute__", "__reduce__", "__import__", "__loader__")
FORBIDDEN_CALLS = ("eval", "exec", "open", "getattr", "setattr", "__import__", "type", "compile", "globals", "locals",
                   "vars", "dir", "input", "print", "id", "iter", "next", "object", "super", "breakpoint", "help",
                   "exit", "quit", "memoryview", "bytearray", "str", "repr", "format", "chr", "ord", "hash", "isinstance")
ATTACKS = [
    "().__class__.__base__.__subclasses__()",
    "[c for c in ().__class__.__base__.__subclasses__() if c.__name__ == 'Popen'][0](['id'])",
    "().__class__.__bases__[0].__subclasses__()[0].__init__.__globals__['__builtins__']['__import__']('os')",
    "__import__('os').system('id')",
    "__builtins__",
    "(lambda: 0).__globals__",
    "up.__class__",
    "[x for x in up].__class__",
    "getattr(up, '__class__')",
    "open('/etc/passwd').read()",
    "eval('1')",
    "exec('import os')",
    "True;import os",
    "sum(range(10**12))",
    "9**9**9",
    "2**10**10",
    "10**100000",
    "(10**20)**(10**20)",
    "'a'*10**10",
    "[0]*10**10",
    "[[i for i in range(10**4)] for j in range(10**4)]",
    "[" * 60 + "1" + "]" * 60,
    "-" * 5000 + "1",
    "not " * 5000 + "True",
    "1+" * 100_000 + "1",
    "(" * 100_000 + "1" + ")" * 100_000,
    "lambda: 1",
    "(zz := 1)",
    "{1: 2}",
    "f'{1}'",
    "yield 1",
    "*[1]",
    "1 if True else",
    "",
    " ",
    "#",
    "1//0",
    "1 % 0",
    "max([])",
    "len(1)",
    "'a' + 1",
    "1 < 'a'",
]


def _atom_bad():
    """Outside the language wherever it stands in an expression (refused from the parsed tree)."""
    return st.one_of(
        UNKNOWN_NAME,
        st.tuples(st.sampled_from(["()", "[]", "''", "1", "up", "(1,)", "len"]),
                  st.lists(st.sampled_from(DUNDERS), min_size=1, max_size=4)).map(
            lambda t: t[0] + "".join("." + d for d in t[1])),
        st.tuples(st.sampled_from(FORBIDDEN_CALLS), st.sampled_from(["", "1", "'os'", "()"])).map(
            lambda t: f"{t[0]}({t[1]})"),
        st.sampled_from(["lambda: 1", "(zz_w := 2)", "{1: 2}", "f'{3}'", "{k: 1 for k in (1, 2)}", "1 / 2", "1 & 1",
                         "1 << 70", "1 @ 1", "`1`", "1 ^ 1"]),
    )  # costs are bounded when evaluated: a bomb a short-circuit skips is harmless (ATTACKS has them alone)


def _atom_good():
    return st.one_of(st.integers(-5, 5).map(str), st.sampled_from(["True", "False", "'s1'", "(1, 2)", "[1]"]))


def _combine(inner):
    return st.one_of(
        st.tuples(inner, st.sampled_from(["and", "or", "==", "!=", "<", "+", "-", "*", "in", "not in"]), _atom_good())
        .flatmap(lambda t: st.sampled_from([f"({t[0]} {t[1]} {t[2]})", f"({t[2]} {t[1]} {t[0]})"])),
        inner.map(lambda e: f"(not {e})"),
        inner.map(lambda e: f"len([{e}])"),
        inner.map(lambda e: f"any(i for i in [{e}])"),
        inner.map(lambda e: f"[{e}][0]"),
        inner.map(lambda e: f"({e} if True else 0)"),
        inner.map(lambda e: f"(0 if False else {e})"),
        inner.map(lambda e: f"all({e} for i in range(2))"),
    )


BAD_EXPRESSION = st.recursive(_atom_bad(), _combine, max_leaves=6)


@st.composite
def _expression_case(draw, expressions):
    spec = draw(st.sampled_from(SPEC_NAMES))
    expression = draw(expressions)
    command = draw(st.sampled_from(["explore", "simulate"]))
    option = "--reach" if command == "explore" else "--until"
    return Case(argv=["spec", command, spec, option, expression, *draw(json_flag())])


ATTACK_CASES = [Case(argv=["spec", "explore", "client-failover", "--reach", a, "--json"]) for a in ATTACKS[:3]]

# ------------------------------------------------------------------------------------------- options


@st.composite
def _const_case(draw, kind):
    name = draw(st.sampled_from(SPEC_NAMES))
    cls = SPECS[name]
    if kind == "syntax":
        item = draw(st.one_of(WORDS.filter(lambda w: "=" not in w),
                              st.sampled_from(list(cls.CONSTANTS)).flatmap(
                                  lambda c: st.sampled_from([f"{c}=", f"{c}=x", f"{c}=1.5", f"{c}=1e9", f"{c}==2",
                                                             f"{c}=True", f"{c}=0x2", f"{c}=" + "9" * 40]))))
    elif kind == "unknown":
        item = draw(UNKNOWN_NAME.map(lambda n: f"{n}=1"))
    else:
        const = draw(st.sampled_from(list(cls.CONSTANTS)))
        lo, hi = cls.CONSTANT_LIMITS[const]
        item = f"{const}={draw(ints_outside(lo, hi).filter(lambda v: len(v.lstrip('-')) <= 12))}"
    command = draw(st.sampled_from(["check", "explore", "simulate", "graph", "step", "mutants"]))
    extra = ["--out", "g.svg"] if command == "graph" else []
    return Case(argv=["spec", command, name, "--const", item, *extra, *draw(json_flag())])


BOUNDS = {  # command -> options with their valid range (what docs and help promise)
    "check": {"--depth": (0, 1000), "--examples": (1, 1_000_000), "--steps": (1, 100_000),
              "--max-states": (1, 100_000_000), "--max-seconds": None},
    "explore": {"--depth": (0, 1000), "--max-states": (1, 100_000_000), "--max-seconds": None},
    "mutants": {"--examples": (1, 1_000_000), "--steps": (1, 100_000), "--max-states": (1, 100_000_000)},
    "simulate": {"--steps": (1, 100_000), "--runs": (1, 100_000)},
    "graph": {"--max-states": (1, 100_000_000)},
}


@st.composite
def _bounds_case(draw):
    command = draw(st.sampled_from(list(BOUNDS)))
    option, bounds = draw(st.sampled_from(list(BOUNDS[command].items())))
    value = draw(bad_seconds()) if bounds is None else draw(ints_outside(*bounds))
    extra = ["--out", "g.svg"] if command == "graph" else []
    return Case(argv=["spec", command, draw(st.sampled_from(SPEC_NAMES)), f"{option}={value}", *extra,
                      *draw(json_flag())])


@st.composite
def _bounds_type_case(draw):
    command = draw(st.sampled_from(list(BOUNDS)))
    option = draw(st.sampled_from(list(BOUNDS[command])))
    extra = ["--out", "g.svg"] if command == "graph" else []
    return Case(argv=["spec", command, "client-failover", option, draw(not_a_number()), *extra, *draw(json_flag())])


@st.composite
def _name_case(draw):
    command = draw(st.sampled_from(["check", "mutants", "explore", "simulate", "graph", "step", "replay"]))
    name = draw(st.one_of(WORDS, st.sampled_from(["Client-Failover", "client_failover", " client-failover", "all"])))
    name = name if name not in SPECS else name + "x"
    extra = {"graph": ["--out", "g.svg"], "replay": ["trace.json"]}.get(command, [])
    return Case(argv=["spec", command, name, *extra, *draw(json_flag())], files={"trace.json": "{}"})


@st.composite
def _variant_case(draw):
    command = draw(st.sampled_from(["check", "explore", "simulate", "graph", "step", "replay"]))
    spec = draw(st.sampled_from(SPEC_NAMES))
    variant = draw(WORDS.filter(lambda w: w not in SPECS[spec].VARIANTS))
    extra = {"graph": ["--out", "g.svg"], "replay": ["trace.json"]}.get(command, [])
    return Case(argv=["spec", command, spec, "--variant", variant, *extra, *draw(json_flag())],
                files={"trace.json": json.dumps(_trace(spec))})


@st.composite
def _out_case(draw, paths_for):
    command = draw(st.sampled_from(["explore-itf", "simulate-itf", "reach-itf", "graph"]))
    spec = draw(st.sampled_from(SPEC_NAMES))
    value, files = draw(paths_for("out", ".svg" if command == "graph" else ".json"))
    argv = {"explore-itf": ["spec", "explore", spec, "--itf", value],
            "simulate-itf": ["spec", "simulate", spec, "--itf", value],
            "reach-itf": ["spec", "explore", spec, "--reach", "True", "--itf", value],
            "graph": ["spec", "graph", spec, "--out", value]}[command]
    return Case(argv=argv + draw(json_flag()), files=files)


@st.composite
def _graph_suffix_case(draw):
    suffix = draw(st.sampled_from(["", ".txt", ".SVG", ".json", ".svg.tmp", ".jpg", ".pdf"]))
    return Case(argv=["spec", "graph", draw(st.sampled_from(SPEC_NAMES)), "--out", f"graph{suffix}",
                      *draw(json_flag())])


@st.composite
def _graph_vars_case(draw):
    spec = draw(st.sampled_from(SPEC_NAMES))
    names = draw(st.lists(UNKNOWN_NAME, min_size=1, max_size=3))
    return Case(argv=["spec", "graph", spec, "--out", "g.svg", "--vars", ",".join(names), *draw(json_flag())])


def _mutant_case():
    return st.tuples(st.sampled_from(SPEC_NAMES), WORDS, json_flag()).map(
        lambda t: Case(argv=["spec", "mutants", t[0], "--only", t[1] + "-not-a-mutant", *t[2]]))


OPTION_CLASSES = {
    "spec-name": _name_case(),
    "spec-variant": _variant_case(),
    "spec-const-syntax": _const_case("syntax"),
    "spec-const-unknown": _const_case("unknown"),
    "spec-const-range": _const_case("range"),
    "spec-bounds": _bounds_case(),
    "spec-bounds-not-a-number": _bounds_type_case(),
    "spec-output-path": _out_case(bad_file_out),
    "spec-output-tmp-sibling-is-a-dir": _out_case(tmp_sibling_is_a_dir),
    "spec-graph-suffix": _graph_suffix_case(),
    "spec-graph-vars": _graph_vars_case(),
    "spec-mutants-only": _mutant_case(),
    "spec-ci": st.one_of(
        st.tuples(WORDS, json_flag()).map(lambda t: Case(argv=["spec", "ci", "--dry-run", "--only", t[0] + "-x", *t[1]])),
        st.tuples(ints_outside(1, 64), json_flag()).map(lambda t: Case(argv=["spec", "ci", "--jobs", t[0], *t[1]]))),
    "spec-catalog-area": st.tuples(WORDS, json_flag()).map(
        lambda t: Case(argv=["spec", "catalog", "--area", "zz-" + t[0], *t[1]])),
    "bench-spec": st.one_of(
        st.tuples(bad_seconds(), json_flag()).map(lambda t: Case(argv=["bench", "spec", "--seconds", t[0], *t[1]])),
        st.tuples(UNKNOWN_NAME, json_flag()).map(
            lambda t: Case(argv=["bench", "spec", "--seconds", "1", "--specs", f"client-failover,{t[0]}", *t[1]]))),
}
OPTION_EXAMPLES = {"spec-const-range": 8, "spec-bounds": 10, "spec-output-path": 8}
EXPLICIT = {
    "spec-const-range": [Case(argv=["spec", "explore", "client-failover", "--const", "SECONDARIES=1000000", "--json"]),
                         Case(argv=["spec", "check", "policy-sync", "--const", "CLUSTERS=-5", "--json"])],
    "spec-bounds": [Case(argv=["spec", "explore", "client-failover", "--max-states", "-1", "--json"]),
                    Case(argv=["spec", "explore", "client-failover", "--depth", "-1", "--json"]),
                    Case(argv=["spec", "check", "client-failover", "--max-seconds", "nan", "--json"]),
                    Case(argv=["spec", "check", "client-failover", "--max-seconds", "0", "--json"])],
}


@pytest.mark.parametrize("name", params(OPTION_CLASSES, KNOWN))
def test_spec_commands_refuse_bad_options_before_searching(name):
    fuzz(OPTION_CLASSES[name], "spec", examples=OPTION_EXAMPLES.get(name, 5), explicit=EXPLICIT.get(name, ()))


EXPRESSION_CLASSES = {
    "expression-attacks": st.sampled_from(ATTACKS),
    "expression-generated": BAD_EXPRESSION,
}


@pytest.mark.parametrize("name", params(EXPRESSION_CLASSES, KNOWN))
def test_expressions_outside_the_language_are_refused_before_evaluation(name):
    examples = len(ATTACKS) if name == "expression-attacks" else 40
    fuzz(_expression_case(EXPRESSION_CLASSES[name]), "expressions", examples=examples,
         explicit=ATTACK_CASES if name == "expression-attacks" else ())


def test_control_a_valid_expression_is_searched():
    outcome = run_valid(Case(argv=["spec", "explore", "client-failover", "--reach", "not up['primary']", "--json"]))
    assert outcome.code == 0 and not outcome.work and "Traceback" not in outcome.stderr, outcome.show()


# ------------------------------------------------------------------------------------------- ITF traces


@functools.cache
def _trace(spec_name: str) -> dict:
    """A valid ITF trace of ``spec_name``: 6 random steps from its initial state."""
    from pulsar_conformance.spec.core import itf
    from pulsar_conformance.spec.core.simulate import simulate

    spec = SPECS[spec_name]()
    run = simulate(spec, steps=6, seed=3)
    return itf.to_itf(spec, run.trace, kind="simulation", description="fuzz base")


def _doc_with(spec: str, change) -> str:
    doc = json.loads(json.dumps(_trace(spec)))
    change(doc)
    return json.dumps(doc)


META_CONSTANT_VALUES = ["2", 2.5, True, None, [2], {"v": 2}, 10**30, -5, 1_000_000, "", {"#bigint": "x"}]


@st.composite
def _itf_case(draw, kind):
    spec = draw(st.sampled_from(SPEC_NAMES))
    cls = SPECS[spec]
    files: dict[str, object] = {}
    if kind == "meta-constants":
        const = draw(st.sampled_from(list(cls.CONSTANTS)))
        constants = draw(st.one_of(st.sampled_from(META_CONSTANT_VALUES).map(lambda v: {const: v}),
                                   st.sampled_from([[], "SECONDARIES=2", 3, {"zz_nope": 1}])))
        files["trace.json"] = _doc_with(spec, lambda d: d["#meta"].__setitem__("constants", constants))
    elif kind == "meta-mutant":
        mutant = draw(st.one_of(WORDS, st.sampled_from([1, None, [], True])).filter(lambda m: m is not None))
        files["trace.json"] = _doc_with(spec, lambda d: d["#meta"].__setitem__("mutant", mutant))
    elif kind == "structure":
        change = draw(st.sampled_from([
            lambda d: d.pop("states"), lambda d: d.__setitem__("states", "s0"), lambda d: d.__setitem__("states", {}),
            lambda d: d.__setitem__("states", [1, 2]), lambda d: d.__setitem__("vars", "up"),
            lambda d: d["states"].__setitem__(0, None), lambda d: d["states"][0].__setitem__("#meta", 5),
            lambda d: d.__setitem__("#meta", [1]), lambda d: d["states"].append("x"),
        ]))
        files["trace.json"] = _doc_with(spec, change)
    elif kind == "not-json":
        files["trace.json"] = draw(st.one_of(
            st.binary(min_size=1, max_size=200).map(lambda b: b"\xff" + b),
            st.text(max_size=80).filter(lambda t: not t.strip().startswith(("{", "[", '"')) and t.strip() not in (
                "", "null", "true", "false") and not t.strip().lstrip("-").replace(".", "").isdigit()),
            st.sampled_from(["", "[]", "null", "42", '"trace"', '{"states": ' + "[" * 100_000]),
        ))
    elif kind == "nested":
        depth = draw(st.sampled_from([40, 1_000, 100_000]))
        files["trace.json"] = _doc_with(spec, lambda d: None).replace(
            '"#meta": {', '"#deep": ' + "[" * depth + "]" * depth + ', "#meta": {', 1)
    elif kind == "file":
        value, files = draw(bad_input_file())
        return Case(argv=["spec", "replay", spec, value, *draw(json_flag())], files=files)
    elif kind == "huge":
        files["trace.json"] = big_file(17 << 20, b'{"states": [')
    return Case(argv=["spec", "replay", spec, "trace.json", *draw(json_flag())], files=files)


ITF_CLASSES = {f"itf-{kind}": _itf_case(kind) for kind in
               ("meta-constants", "meta-mutant", "structure", "not-json", "nested", "file", "huge")}
ITF_EXAMPLES = {"itf-meta-constants": 12, "itf-structure": 9, "itf-not-json": 8, "itf-nested": 3, "itf-huge": 1}


@pytest.mark.parametrize("name", params(ITF_CLASSES, KNOWN))
def test_replay_refuses_traces_that_are_not_itf_of_the_spec(name):
    fuzz(ITF_CLASSES[name], "itf", examples=ITF_EXAMPLES.get(name, 5))


@pytest.mark.parametrize("spec", SPEC_NAMES)
def test_control_the_base_traces_replay(spec):
    outcome = run_valid(Case(argv=["spec", "replay", spec, "trace.json", "--json"],
                             files={"trace.json": json.dumps(_trace(spec))}))
    assert outcome.code == 0 and not outcome.work, outcome.show()



# ------------------------------------------------------------------------------------------- issue 48


@functools.cache
def _non_boolean_vars(spec_name: str) -> tuple[str, ...]:
    """The spec's variables whose value is not a boolean (a number, an enum value, a map)."""
    from pulsar_conformance.spec.core.model import BoolT

    return tuple(v for v, t in SPECS[spec_name]().var_types.items() if not isinstance(t, BoolT))


NOT_BOOLEAN = ["1", "0", "-3", "'s1'", "''", "[True]", "[]", "(1, 2)", "len([1])", "1 if True else 0", "3 - 3",
               "[0][0]", "True + 1"]


@st.composite
def _not_boolean_case(draw):
    """An expression inside the language whose value is not True or False: on the initial state (a literal, a
    variable that is a number, an enum value or a map), or only on a later state (``C and 1``: the number once
    C holds). Each used to be taken by its truth (exit 0 reached, 1 unreachable): a verdict on no condition."""
    spec = draw(st.sampled_from(SPEC_NAMES))
    variables = _non_boolean_vars(spec)
    expression = draw(st.one_of(
        st.sampled_from(NOT_BOOLEAN),
        st.sampled_from(variables) if variables else st.just("1"),
        st.sampled_from(variables).map(lambda v: f"{v} if True else False") if variables else st.just("2"),
        st.sampled_from(["True and 1", "False or 'x'", "not False and 2"]),  # `and`/`or` give an operand
    ))
    command = draw(st.sampled_from(["explore", "simulate"]))
    option = "--reach" if command == "explore" else "--until"
    return Case(argv=["spec", command, spec, option, expression, *draw(json_flag())], said=("not true or false",))


# later states: false on the initial state (so the search goes on), a number once the condition left of `and` holds
LATER_NOT_BOOLEAN = [Case(argv=["spec", "explore", "client-failover", "--reach", "current != 'primary' and 1", "--json"],
                          said=("not true or false",)),
                     Case(argv=["spec", "simulate", "client-failover", "--steps", "200", "--until",
                                "not up['primary'] and 7"], said=("not true or false",))]


def _other_spec(spec: str) -> str:
    return next(s for s in SPEC_NAMES if s != spec)


@st.composite
def _foreign_trace_case(draw):
    """A trace of another spec, named in its #meta, or with its #meta stripped (then its variables differ)."""
    spec = draw(st.sampled_from(SPEC_NAMES))
    other = draw(st.sampled_from([s for s in SPEC_NAMES if s != spec]))
    strip = draw(st.booleans())
    doc = json.loads(json.dumps(_trace(other)))
    if strip:
        doc["#meta"] = {"format": "ITF"}
    return Case(argv=["spec", "replay", spec, "trace.json", *draw(json_flag())], files={"trace.json": json.dumps(doc)},
                said=(other,) if not strip else ("vars",))


@st.composite
def _state_shape_case(draw):
    """A trace of the spec whose states do not hold exactly its variables, or hold a value outside a variable's
    type: no behaviour of the spec whatever its steps, so bad input, not a REJECTED verdict."""
    spec = draw(st.sampled_from(SPEC_NAMES))
    doc = json.loads(json.dumps(_trace(spec)))
    index = draw(st.integers(0, len(doc["states"]) - 1))
    var = draw(st.sampled_from(list(doc["vars"])))
    kind = draw(st.sampled_from(["extra", "missing", "type", "bigint", "enum", "empty"]))
    state = doc["states"][index]
    if kind == "extra":
        state["zz_not_a_variable"] = {"#bigint": "1"}
    elif kind == "missing":
        del state[var]
    elif kind == "type":
        state[var] = draw(st.sampled_from(["garbage", [1, 2, 3], {"k": 1}, None, 2.5]))
    elif kind == "bigint":
        state[var] = draw(st.sampled_from([{"#bigint": "x"}, {"#bigint": "99999999999999999999"}, {"#bigint": "-7"}]))
    elif kind == "enum":
        state[var] = "no-such-value"
    else:
        doc["states"] = []
    said = {"extra": ("zz_not_a_variable",), "missing": (f"state {index}", var), "empty": ("no state",)}.get(
        kind, (f"state {index}",))
    if kind in ("type", "bigint", "enum") and _decodes(spec, var, state[var]):
        state[var] = "no-such-value-" + var  # the drawn value happened to be one of the variable's
    return Case(argv=["spec", "replay", spec, "trace.json", *draw(json_flag())], files={"trace.json": json.dumps(doc)},
                said=said)


def _decodes(spec: str, var: str, value) -> bool:
    from pulsar_conformance.spec.core.itf import decode_value

    try:
        decode_value(SPECS[spec]().var_types[var], value)
    except Exception:  # noqa: BLE001 - any refusal is what the case wants
        return False
    return True


ISSUE_48_CLASSES = {
    "expression-not-boolean": _not_boolean_case(),
    "itf-another-spec": _foreign_trace_case(),
    "itf-state-shape": _state_shape_case(),
}
ISSUE_48_EXPLICIT = {
    "expression-not-boolean": LATER_NOT_BOOLEAN + [
        Case(argv=["spec", "explore", "client-failover", "--reach", e, "--json"], said=("not true or false",))
        for e in ("1", "0", "'s1'", "up", "current", "fails")],
    "itf-another-spec": [Case(argv=["spec", "replay", "client-failover", "trace.json"],
                              files={"trace.json": json.dumps(_trace(_other_spec("client-failover")))},
                              said=(_other_spec("client-failover"),))],
}


@pytest.mark.parametrize("name", params(ISSUE_48_CLASSES, KNOWN))
def test_non_boolean_conditions_and_traces_of_another_spec_are_bad_input(name):
    surface = "expressions" if name.startswith("expression") else "itf"
    fuzz(ISSUE_48_CLASSES[name], surface, examples=8, explicit=ISSUE_48_EXPLICIT.get(name, ()))


def test_control_a_boolean_condition_that_is_a_number_later_is_searched_when_written_as_one():
    """The later-state case made a condition: the same search, now judged."""
    outcome = run_valid(Case(argv=["spec", "explore", "client-failover", "--reach",
                                   "current != 'primary' and fails >= 0", "--json"]))
    assert outcome.code == 0 and not outcome.work, outcome.show()
