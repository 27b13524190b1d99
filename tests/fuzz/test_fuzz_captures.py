"""check-capture on captures that break the format (nulls, negative timestamps, unknown kinds, wrong
columns, broken files and manifests), and the bench commands' options: refused before any engine
judges or any work starts (a Spark JVM, a broker, a synthetic capture written)."""
from __future__ import annotations

import json

import pytest
from hypothesis import strategies as st

from .cases import DIR, FIFO, URL_PASSWORD, Case, fuzz, json_flag, params, run_valid
from .values import (
    WORDS,
    bad_dir_out,
    bad_input_file,
    bad_pulsar_release,
    ints_outside,
    not_a_number,
)

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

from pulsar_conformance.fixtures.capture.schema import FORMAT, KINDS, NON_NEGATIVE, NOT_NULL, SCHEMA  # noqa: E402 - after the skip: the spark extra
from tests.support.captures import SUB, TOPIC, clean_rows  # noqa: E402 - after the skip, as above

KNOWN: dict[str, str] = {
}
LOOSE = pa.schema([pa.field(f.name, f.type, nullable=True) for f in SCHEMA])
ENGINES = st.sampled_from(["python", "duckdb", "spark", "python", "duckdb"])


def _rows(n: int = 30) -> list[dict]:
    return clean_rows(n)


def _parquet(rows: list[dict], schema=LOOSE, **options) -> bytes:
    sink = pa.BufferOutputStream()
    pq.write_table(pa.Table.from_pylist(rows, schema=schema), sink, **options)
    return sink.getvalue().to_pybytes()


def manifest(**changes) -> str:
    doc = {"format": FORMAT, "run_id": "r", "must_see": [{"topic": TOPIC, "subscription": SUB}], "allowed": [],
           "scenario": {}}
    doc.update(changes)
    return json.dumps(doc)


@st.composite
def _write_options(draw) -> dict:
    return {"write_statistics": draw(st.booleans()), "row_group_size": draw(st.sampled_from([7, 30, 1000]))}


@st.composite
def _capture_case(draw, kind):
    rows = _rows()
    every = draw(st.integers(1, 40))
    pick = draw(st.integers(0, len(rows) - 1))
    schema = LOOSE
    if kind == "nulls":
        column = draw(st.sampled_from(NOT_NULL))
        rows = [{**r, column: None} if i % every == 0 or i == pick else r for i, r in enumerate(rows)]
    elif kind == "negative":
        column = draw(st.sampled_from(NON_NEGATIVE))
        value = draw(st.integers(-(2**31), -1))
        rows = [{**r, column: value} if (i == pick or i % every == 0) and r["kind"] == "receive" or column == "ts_ns"
                and i == pick else r for i, r in enumerate(rows)]
        if not any(r[column] is not None and r[column] < 0 for r in rows):
            rows[1] = {**rows[1], column: value}  # a receive row
    elif kind == "kinds":
        kind_value = draw(st.one_of(WORDS, st.sampled_from(["", "Receive", "send", "nack", "SEND_OK", "ack "])).filter(
            lambda k: k not in KINDS))
        rows = [{**r, "kind": kind_value} if i == pick or i % every == 0 else r for i, r in enumerate(rows)]
    elif kind == "schema":
        change = draw(st.sampled_from(["drop", "string-ts", "double-seq", "int64-redelivery", "int-uid"]))
        if change == "drop":
            gone = draw(st.sampled_from([f.name for f in SCHEMA if f.name in NOT_NULL]))
            schema = pa.schema([f for f in LOOSE if f.name != gone])
            rows = [{k: v for k, v in r.items() if k != gone} for r in rows]
        else:
            name, dtype, convert = {"string-ts": ("ts_ns", pa.string(), str), "double-seq": ("seq", pa.float64(), float),
                                    "int64-redelivery": ("redelivery_count", pa.int64(), lambda v: v),
                                    "int-uid": ("uid", pa.int64(), lambda v: int(v.split("/")[1]))}[change]
            schema = pa.schema([pa.field(name, dtype) if f.name == name else f for f in LOOSE])
            rows = [{**r, name: None if r[name] is None else convert(r[name])} for r in rows]
    data = _parquet(rows, schema, **draw(_write_options()))
    files = {"run/manifest.json": manifest(), "run/events/part-x-00000.parquet": data}
    if draw(st.booleans()):  # a clean file beside it: the bad one must still be found
        files["run/events/part-x-00001.parquet"] = _parquet(_rows(5))
    return Case(argv=["check-capture", "run", "--engine", draw(ENGINES), *draw(json_flag())], files=files)


DEEP = "[" * 100_000 + "]" * 100_000


def _master_case(masters):
    return st.tuples(st.sampled_from(masters), json_flag()).map(
        lambda t: Case(argv=["check-capture", "run", "--master", t[0], *t[1]],
                       files={"run/manifest.json": manifest(), "run/events/x.parquet": _parquet(_rows(2))}))


@st.composite
def _layout_case(draw):
    """The run directory, its manifest and its files, broken."""
    good = _parquet(_rows(5))
    kind = draw(st.sampled_from(["manifest", "parquet-bytes", "truncated", "no-events", "events-file", "run-dir"]))
    files: dict = {"run/manifest.json": manifest(), "run/events/part-x-00000.parquet": good}
    run = "run"
    if kind == "manifest":
        files["run/manifest.json"] = draw(st.sampled_from([
            "", "{", "[]", "null", DEEP, manifest(format="pulsar-conformance-capture/9"), manifest(run_id=""),
            manifest(run_id=5), manifest(must_see="x"), manifest(must_see=[{"topic": 1}]), manifest(allowed="dup"),
            manifest(allowed=["not-a-class"]), manifest(allowed=[{"a": 1}]),
            '{"format": ' + DEEP + "}", "\xff\xfe"]))
        if draw(st.booleans()):
            files["run/manifest.json"] = DIR if draw(st.booleans()) else FIFO
    elif kind == "parquet-bytes":
        files["run/events/part-x-00001.parquet"] = draw(st.one_of(
            st.binary(max_size=200), st.binary(max_size=100).map(lambda b: b"PAR1" + b + b"PAR1")))
    elif kind == "truncated":
        cut = draw(st.integers(1, len(good) - 1))
        files["run/events/part-x-00001.parquet"] = good[:cut]
    elif kind == "no-events":
        files.pop("run/events/part-x-00000.parquet")
        files["run/events"] = DIR
    elif kind == "events-file":
        files.pop("run/events/part-x-00000.parquet")
        files["run/events"] = "not a folder\n"
    else:
        run, extra = draw(bad_input_file().filter(lambda pair: pair[0] not in ("folder", "")))
        files = {**files, **extra}
    return Case(argv=["check-capture", run, "--engine", draw(ENGINES), *draw(json_flag())], files=files)


CAPTURE_CLASSES = {
    "capture-nulls": _capture_case("nulls"),
    "capture-negative": _capture_case("negative"),
    "capture-kinds": _capture_case("kinds"),
    "capture-schema": _capture_case("schema"),
    "capture-layout": _layout_case(),
    "capture-master-unreachable": _master_case(["spark://127.0.0.1:1", "spark://127.0.0.1:1,127.0.0.1:2",
                                                "spark://[::1]:1", "spark://", "spark://host-without-port"]),
    "capture-master-credentials": _master_case([f"spark://u:{URL_PASSWORD}@127.0.0.1:1",
                                                f"spark://127.0.0.1:1,u:{URL_PASSWORD}@127.0.0.1:2"]),
    # the help names local[*] and spark://HOST:PORT; these are neither, nor anything Spark takes
    "capture-master-malformed": _master_case(["local[abc]", "local[0]", "local[-1]", "", "spark:/x", "bogus"]),
}
CAPTURE_EXAMPLES = {"capture-nulls": 10, "capture-kinds": 8, "capture-layout": 14}


@pytest.mark.parametrize("name", params(CAPTURE_CLASSES, KNOWN))
def test_captures_that_break_the_format_are_refused_before_judging(name):
    fuzz(CAPTURE_CLASSES[name], "captures", examples=CAPTURE_EXAMPLES.get(name, 6))


def test_control_the_clean_capture_is_judged():
    outcome = run_valid(Case(argv=["check-capture", "run", "--engine", "python", "--json"],
                             files={"run/manifest.json": manifest(),
                                    "run/events/part-x-00000.parquet": _parquet(_rows())}))
    assert outcome.code == 0 and not outcome.work, outcome.show()


# ------------------------------------------------------------------------------------------------ bench


BENCH_TIMEOUT = 8.0  # a refusal takes well under a second; past this the bench is working


def _quick(case: Case) -> Case:
    """A class whose failure is a hang: its (strict xfail) cost stays a few seconds."""
    case.timeout = 3.0
    return case


def _bench(command, words):
    return st.tuples(words, json_flag()).map(
        lambda t: Case(argv=["bench", command, *t[0], *t[1]], timeout=BENCH_TIMEOUT))


@st.composite
def _synth_out(draw):
    value, files = draw(bad_dir_out("synth"))
    return Case(argv=["bench", "synth", "--events", "200", "--out", value, *draw(json_flag())], files=files)


BENCH_CLASSES = {
    "bench-synth-events": _bench("synth", st.one_of(st.integers(-10**9, 0).map(str), not_a_number()).map(
        lambda v: ["--events", v, "--out", "o"])),
    # more rows than a disk holds: runs until killed, writing files
    "bench-synth-events-huge": _bench("synth", st.integers(10**13, 10**30).map(
        lambda v: ["--events", str(v), "--out", "o"])).map(_quick),
    "bench-synth-per-class": _bench("synth", st.integers(-10**6, -1).map(
        lambda v: ["--events", "200", "--per-class", str(v), "--out", "o"])),
    "bench-synth-out": _synth_out(),
    "bench-spark": _bench("spark", st.one_of(
        st.sampled_from(["abc", "0", "-5", "1,,2", "1e6", "20000,x", ""]).map(lambda v: ["--events", v]),
        WORDS.map(lambda w: ["--events", "20000", "--engines", "zz-" + w]),
    )),
    "bench-spark-paths": _bench("spark", st.sampled_from([["--workdir", "afile"], ["--plot", "adir"],
                                                          ["--plot", "missing/p.png"], ["--workdir", "afile/sub"]]).map(
        lambda w: ["--events", "20000", *w])),
    "bench-spark-master": _bench("spark", st.sampled_from(["spark://127.0.0.1:1", "local[abc]", "bogus"]).map(
        lambda m: ["--events", "20000", "--master", m])),
    "bench-capture": _bench("capture", st.tuples(
        st.sampled_from(["--messages", "--rounds", "--payload"]), st.integers(-10**6, -1),
        st.sampled_from([[], ["--service-url", f"pulsar://admin:{URL_PASSWORD}@127.0.0.1:1"]])).map(
        lambda t: [t[0], str(t[1]), *t[2]])),
    "bench-metadata-migration": _bench("metadata-migration", st.one_of(
        st.sampled_from(["abc", "0", "-1", "1,,2", "", "1e3"]).map(lambda v: ["--sizes", v]),
        ints_outside(1, 524_288).map(lambda v: ["--value-bytes", v]),
    )),
    "bench-metadata-migration-pulsar-version": _bench("metadata-migration", bad_pulsar_release().map(
        lambda v: ["--sizes", "10", "--pulsar-version", v])),
    "bench-metadata-migration-out": st.tuples(bad_dir_out("mm", must_be_empty=False), json_flag()).map(
        lambda t: Case(argv=["bench", "metadata-migration", "--sizes", "10", "--out", t[0][0], *t[1]], files=t[0][1],
                       timeout=BENCH_TIMEOUT)),
}


def _with_files(case: Case) -> Case:
    case.files.update({"afile": "x", "adir": DIR})
    return case


@pytest.mark.parametrize("name", params(BENCH_CLASSES, KNOWN))
def test_bench_commands_refuse_bad_options_before_working(name):
    fuzz(BENCH_CLASSES[name].map(_with_files), "bench", examples=6)
