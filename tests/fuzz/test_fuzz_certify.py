"""certify and compare: every option, value and environment variable that must be refused before a
folder, a cluster or a test process exists (issue 29: "work started on bad input")."""
from __future__ import annotations

import json

import pytest
from hypothesis import strategies as st

from pulsar_conformance.conformance.profiles import PROFILES
from pulsar_conformance.reports.runner.request import MAX_REPEAT

from .cases import DIR, FIFO, Case, executable, fuzz, json_flag, params, run_valid
from .sandbox import EXIT_BAD_INPUT
from .values import (
    HOSTILE_TEXT,
    WORDS,
    bad_client_release,
    bad_dir_out,
    bad_file_out,
    bad_input_file,
    bad_pulsar_release,
    not_a_number,
    tmp_sibling_is_a_dir,
)

PROFILE_NAMES = list(PROFILES)
TLS_MODES = ("off", "advertised", "on", "on-no-tls-url")
# Known failures, by class: "<what> - owned by H?" (strict xfails: remove the line once fixed).
KNOWN: dict[str, str] = {}


def _harmless():
    """Valid options that may come with the bad one (they must not change the refusal)."""
    return st.lists(st.sampled_from([["--seed", "7"], ["--vendor", "Fuzz Vendor"], ["--product", "fuzz"],
                                     ["--deployment", "local"], ["--out", "fresh/bundle"]]),
                    max_size=2, unique_by=lambda o: o[0])


@st.composite
def _certify(draw, bad, files=None, env=None, profile=None):
    """``certify --profile P`` with the ``bad`` argv words among harmless valid options (none of
    the bad words' options: argparse keeps the last of a repeated option)."""
    bad = draw(bad) if isinstance(bad, st.SearchStrategy) else bad
    harmless = [g for g in draw(_harmless()) if g[0] not in bad]
    profile_group = [] if "--profile" in bad else [["--profile", profile or draw(st.sampled_from(PROFILE_NAMES))]]
    groups = [*profile_group, bad, *harmless]
    groups = draw(st.permutations(groups))
    argv = ["certify"] + [w for g in groups for w in g] + draw(json_flag())
    return Case(argv=argv, files=dict(files or {}), env=dict(env or {}))


def _with_files(pairs, option):
    """(value, files) pairs as (argv words, files)."""
    return pairs.map(lambda pair: ([option, pair[0]], pair[1]))


@st.composite
def _out_case(draw):
    value, files = draw(bad_dir_out("bundle"))
    return draw(_certify(["--out", value], files=files))


@st.composite
def _deployment_path_case(draw):
    value, files = draw(bad_input_file())
    return draw(_certify(["--deployment", value], files=files))


def _select_is_bad(text: str) -> bool:
    from _pytest.mark.expression import Expression

    if not text.strip():
        return False  # an empty --select is no narrowing
    try:
        Expression.compile(text)
    except Exception:  # noqa: BLE001 - pytest's ParseError or SyntaxError
        return True
    return False


SELECT = st.lists(st.sampled_from(["(", ")", "and", "or", "not", "migration", "tls", "==", "[", "'", "\\"]),
                  min_size=1, max_size=6).map(" ".join).filter(_select_is_bad)

CLASSES = {
    "certify-profile": _certify(WORDS.filter(lambda p: p not in PROFILES).map(lambda p: ["--profile", p])),
    "certify-pulsar-version": _certify(bad_pulsar_release().map(lambda v: ["--pulsar-version", v])),
    "certify-repeat": _certify(st.one_of(st.integers(-10**6, 0), st.integers(MAX_REPEAT + 1, 10**9)).map(
        lambda n: ["--repeat", str(n)])),
    "certify-repeat-not-a-number": _certify(not_a_number().map(lambda v: ["--repeat", v])),
    "certify-seed": _certify(not_a_number().map(lambda v: ["--seed", v])),
    "certify-matrix": _certify(st.one_of(
        st.sampled_from(["pulsar", "client", "java-client", "migration-tls", "bogus", "", "PULSAR"]).flatmap(
            lambda axis: st.sampled_from([f"{axis}=", f"{axis}=4.2.4", f"{axis}=4.2.4,4.2.4", axis, f"{axis}=,"])),
        st.sampled_from([("pulsar=4.0.1,", bad_pulsar_release()), ("java-client=4.0.1,", bad_pulsar_release()),
                         ("client=3.13.0,", bad_client_release()),
                         ("migration-tls=off,", WORDS.filter(lambda w: w.strip() not in TLS_MODES))]).flatmap(
            lambda pair: pair[1].filter(lambda w: "," not in w and w.strip()).map(lambda w: pair[0] + w)),
    ).map(lambda m: ["--matrix", m]), profile="cluster-migration"),
    "certify-option-and-matrix": _certify(["--pulsar-version", "4.2.4", "--matrix", "pulsar=4.0.1,4.2.4"]),
    "certify-matrix-pulsar-external": _certify(["--matrix", "pulsar=4.0.1,4.2.4", "--deployment", "vendor.yaml"],
                                               files={"vendor.yaml": "clusters: {}\n"}),
    "certify-exclude": _certify(WORDS.map(lambda r: ["--exclude", "GEO-R01,NOPE-" + r])),
    "certify-select": _certify(SELECT.map(lambda s: ["--select", s])),
    "certify-out": _out_case(),
    "certify-deployment-path": _deployment_path_case(),
    "certify-deployment-containers-and-tls": _certify(["--migration-tls", "on", "--deployment", "vendor.yaml"],
                                                      files={"vendor.yaml": "clusters: {}\n"},
                                                      profile="cluster-migration"),
    "certify-migration-tls": _certify(WORDS.filter(lambda w: w.strip() not in TLS_MODES).map(
        lambda w: ["--migration-tls", w]), profile="cluster-migration"),
    "certify-migration-tls-wrong-profile": _certify(st.sampled_from(TLS_MODES).map(lambda w: ["--migration-tls", w]),
                                                    profile="smoke"),
    "certify-client-version": _certify(bad_client_release().map(lambda v: ["--client-version", v])),
    "certify-java-client-version": _certify(bad_pulsar_release().map(lambda v: ["--java-client-version", v]),
                                            profile="client-failover"),
    "certify-unknown-option": _certify(st.sampled_from([["--profiles", "smoke"], ["--repeat"], ["--matrix"],
                                                        ["--deployments", "local"], ["-x"], ["extra-argument"]])),
    # issue 48: input dropped without a word. argparse kept the last of two --matrix; --out '' fell back to the
    # default folder; both started the run
    "certify-matrix-twice": _certify(st.sampled_from([
        ["--matrix", "pulsar=4.0.1,4.2.4", "--matrix", "client=3.13.0,3.4.0"],
        ["--matrix", "pulsar=4.0.1,4.2.4", "--matrix", "pulsar=4.1.2,4.2.4"],
        ["--matrix", "client=3.13.0,3.4.0", "--matrix", "client=3.13.0,3.4.0"]]), profile="smoke"),
    "certify-out-empty": _certify(st.sampled_from([["--out", ""], ["--out", " "], ["--out="]])),
    "certify-hostile-text": _certify(HOSTILE_TEXT.flatmap(lambda t: st.sampled_from(
        [["--profile", t], ["--exclude", t + ",NOPE-R1"]] + ([["--pulsar-version", t], ["--matrix", t]] if t.strip()
                                                            else [])))),
}

ENV_JAVA = st.sampled_from([
    ("/nonexistent/bin/java", {}), ("{dir}/jdk", {"jdk": DIR}), ("{dir}/java.txt", {"java.txt": "not a program\n"}),
    ("{dir}/fake-java", {"fake-java": executable("#!/bin/sh\necho 'java version 99'\nexit 0\n")}),
    ("{dir}/pipe", {"pipe": FIFO}), ("java-that-is-not-on-path", {}),
])

CACHE_IS_A_FILE = {"files": {"cachefile": "x"}, "env": {"PULSAR_CONFORMANCE_CACHE": "{dir}/cachefile"}}
CACHE_UNDER_A_FILE = {"files": {"cachefile": "x"}, "env": {"PULSAR_CONFORMANCE_CACHE": "{dir}/cachefile/sub"}}

ENV_CLASSES = {
    "env-java": ENV_JAVA.flatmap(lambda pair: _certify([], files=pair[1], env={"PULSAR_CONFORMANCE_JAVA": pair[0]})),
    # knobs the tests' process reads, inherited by it when certify's own option does not set them
    "env-inherited-knobs": st.sampled_from([
        ("PULSAR_CONFORMANCE_PULSAR_VERSION", "abc", "smoke"), ("PULSAR_CONFORMANCE_PULSAR_VERSION", "9.9.9", "smoke"),
        ("PULSAR_CONFORMANCE_JAVA_CLIENT_VERSION", "abc", "client-failover"),
        ("PULSAR_CONFORMANCE_MIGRATION_TLS", "bogus", "cluster-migration"),
    ]).flatmap(lambda t: _certify([], env={t[0]: t[1]}, profile=t[2])),
    # issue 48: the cache (Maven classpaths, pulsar-client installs, Oxia builds, Hypothesis' files) a file
    "env-cache-is-a-file": st.tuples(
        st.sampled_from([["certify", "--profile", "smoke"],
                         ["spec", "check", "client-failover", "--engine", "hypothesis", "--examples", "3", "--steps", "3"],
                         ["spec", "mutants", "client-failover", "--examples", "3", "--steps", "3"],
                         ["bench", "spec", "--seconds", "1", "--specs", "client-failover"]]),
        st.sampled_from([CACHE_IS_A_FILE, CACHE_UNDER_A_FILE]), json_flag()).map(
        lambda t: Case(argv=t[0] + t[2], files=dict(t[1]["files"]), env=dict(t[1]["env"]),
                       said=("PULSAR_CONFORMANCE_CACHE",))),
    "env-cache-is-a-file-up": st.tuples(st.sampled_from([CACHE_IS_A_FILE, CACHE_UNDER_A_FILE]), json_flag()).map(
        lambda t: Case(argv=["up", *t[1]], files=dict(t[0]["files"]), env=dict(t[0]["env"]),
                       said=("PULSAR_CONFORMANCE_CACHE",))),
    "env-state-dir-is-a-file": st.sampled_from([["certify", "--profile", "smoke"], ["up"], ["status"], ["down"],
                                                ["fault", "kill", "blue"]]).flatmap(
        lambda argv: json_flag().map(lambda j: Case(argv=argv + j, files={"statefile": "x"},
                                                    env={"PULSAR_CONFORMANCE_STATE_DIR": "{dir}/statefile"}))),
}


@pytest.mark.parametrize("name", params(CLASSES, KNOWN))
def test_certify_refuses_bad_options_before_anything_starts(name):
    fuzz(CLASSES[name], "certify", examples=6)


@pytest.mark.parametrize("name", params(ENV_CLASSES, KNOWN))
def test_bad_environment_values_are_refused_up_front(name):
    fuzz(ENV_CLASSES[name], "environment", examples=5)


def test_control_a_valid_certify_gets_past_every_check():
    """The control: without the bad value, certify goes on to prepare the client (the sandbox stops it
    at that first process), so the refusals above are the values' doing, not the sandbox's."""
    outcome = run_valid(Case(argv=["certify", "--profile", "smoke", "--json"]))
    assert outcome.work and outcome.code is None, outcome.show()


# ------------------------------------------------------------------------------------------------ compare

SUMMARY_FORMAT = "pulsar-conformance-certification/1"


def summary(profile: str = "smoke", verdict: str = "pass", run_id: str = "run-1") -> dict:
    return {"format": SUMMARY_FORMAT, "verdict": verdict, "profile": profile, "run_id": run_id,
            "versions": {"pulsar": "4.2.4", "pulsar_client_python": "3.13.0"}, "narrowed": None,
            "interrupted": False,
            "requirements": [{"id": "GEO-R01", "verdict": "pass", "strength": "MUST", "text": "replicates",
                              "evidence": ["sent 10, received 10"]},
                             {"id": "GEO-R02", "verdict": "pass", "strength": "SHOULD", "text": None,
                              "evidence": []}]}


# (path in the summary, values of a wrong type or missing) -- None means "delete the field"
_MISSING = object()
MUTATIONS = [
    (("format",), [_MISSING, "pulsar-conformance-certification/0", 1, None]),
    (("verdict",), [_MISSING, "passed", "", 0, None, ["pass"], True]),
    (("profile",), [_MISSING, 3, None, ["smoke"], {"name": "smoke"}]),
    (("run_id",), [7, ["r"], {"id": 1}]),
    (("versions",), ["4.2.4", ["4.2.4"], 42]),
    (("narrowed",), ["yes", 1, ["a"]]),
    (("interrupted",), ["no", 0, None, []]),
    (("requirements",), [_MISSING, None, "GEO-R01", {"GEO-R01": "pass"}, 5]),
    (("requirements", 0), ["GEO-R01", None, 3, ["GEO-R01", "pass"]]),
    (("requirements", 0, "id"), [_MISSING, 1, None, ["GEO-R01"]]),
    (("requirements", 0, "verdict"), [_MISSING, 1, None, {"v": "pass"}]),
    (("requirements", 1, "strength"), [1, ["MUST"], {"s": 1}]),
    (("requirements", 1, "text"), [1, ["t"], {"t": 1}]),
    (("requirements", 0, "evidence"), ["sent 10", 5, {"a": 1}, [1, 2], [None]]),
]


def _mutate(doc: dict, path: tuple, value) -> dict:
    doc = json.loads(json.dumps(doc))
    holder = doc
    for key in path[:-1]:
        holder = holder[key]
    if value is _MISSING:
        del holder[path[-1]]
    else:
        holder[path[-1]] = value
    return doc


@st.composite
def _compare_fields(draw):
    path, values = draw(st.sampled_from(MUTATIONS))
    value = draw(st.sampled_from(values))
    bad = json.dumps(_mutate(summary(), path, value))
    good = json.dumps(summary(run_id="run-0"))
    where = draw(st.sampled_from(["first", "second", "third"]))
    docs = {"first": [bad, good, good], "second": [good, bad], "third": [good, good, bad]}[where]
    files = {f"b{i}/summary.json": text for i, text in enumerate(docs)}
    as_file = draw(st.booleans())
    paths = [f"b{i}/summary.json" if as_file else f"b{i}" for i in range(len(docs))]
    return Case(argv=["compare", *paths, *draw(json_flag())], files=files)


DEEP = "[" * 100_000 + "]" * 100_000
_BROKEN_SUMMARIES = st.one_of(
    st.sampled_from(["", "{", "null", "[]", "42", '"summary"', DEEP, '{"format": ' + DEEP + "}",
                     "\ufeff{}", '{"a": NaN}', '{"format": "x"}']),
    st.binary(min_size=1, max_size=64).map(lambda b: b"\xff\xfe" + b),
    st.text(max_size=60).filter(lambda t: not t.strip().startswith("{")),
)


@st.composite
def _compare_format(draw):
    broken = draw(_BROKEN_SUMMARIES)
    files = {"base/summary.json": json.dumps(summary()), "cand/summary.json": broken}
    order = draw(st.permutations(["base", "cand"]))
    return Case(argv=["compare", *order, *draw(json_flag())], files=files)


@st.composite
def _compare_profiles(draw):
    first, second = draw(st.lists(st.sampled_from(PROFILE_NAMES), min_size=2, max_size=2, unique=True))
    files = {"a/summary.json": json.dumps(summary(first)), "b/summary.json": json.dumps(summary(second))}
    return Case(argv=["compare", "a", "b", *draw(json_flag())], files=files)


@st.composite
def _compare_paths(draw):
    value, files = draw(bad_input_file())
    files = {**files, "good/summary.json": json.dumps(summary()), "empty-bundle": DIR}
    value = draw(st.sampled_from([value, "empty-bundle"]))
    order = draw(st.permutations(["good", value]))
    return Case(argv=["compare", *order, *draw(json_flag())], files=files)


@st.composite
def _compare_html(draw, paths):
    value, files = draw(paths)
    files = {**files, "a/summary.json": json.dumps(summary()), "b/summary.json": json.dumps(summary(run_id="r2"))}
    return Case(argv=["compare", "a", "b", "--html", value, *draw(json_flag())], files=files)


COMPARE_CLASSES = {
    "compare-fields": _compare_fields(),
    "compare-format": _compare_format(),
    "compare-profiles": _compare_profiles(),
    "compare-paths": _compare_paths(),
    "compare-one-bundle": json_flag().map(lambda j: Case(argv=["compare", "a", *j],
                                                         files={"a/summary.json": json.dumps(summary())})),
    "compare-html": _compare_html(bad_file_out("compare", ".html")),
    "compare-html-tmp-sibling-is-a-dir": _compare_html(tmp_sibling_is_a_dir("compare", ".html")),
}
COMPARE_EXAMPLES = {"compare-fields": 30, "compare-format": 12}


@pytest.mark.parametrize("name", params(COMPARE_CLASSES, KNOWN))
def test_compare_refuses_bundles_it_cannot_compare(name):
    fuzz(COMPARE_CLASSES[name], "compare", examples=COMPARE_EXAMPLES.get(name, 6))


def test_control_compare_of_two_valid_summaries_judges():
    files = {"a/summary.json": json.dumps(summary()), "b/summary.json": json.dumps(summary(run_id="r2"))}
    outcome = run_valid(Case(argv=["compare", "a", "b", "--json"], files=files))
    assert outcome.code == 0 and not outcome.work and "Traceback" not in outcome.stderr, outcome.show()
    assert outcome.code != EXIT_BAD_INPUT
