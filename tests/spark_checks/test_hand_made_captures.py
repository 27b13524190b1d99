"""Small captures written by hand, each aimed at one rule the synthetic captures do not reach:
the ordering check without never-sent uids, messages that share a producer and seq but not a
uid, pairs delivered three times or more (the Spark engine's second pass). Every engine must
give the exact counts."""
from __future__ import annotations

import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from pulsar_conformance.fixtures.capture.manifest import write_manifest
from pulsar_conformance.fixtures.capture.schema import FORMAT, FORMAT_1, SCHEMA
from pulsar_conformance.spark_checks import engine_duckdb, engine_python
from pulsar_conformance.spark_checks.capture_input import open_capture
from pulsar_conformance.spark_checks.classes import CLASSES

TOPIC = "persistent://t/ns/a"
SUB = "s1"


def _write(run_dir, rows: list[tuple], capture_format: str = FORMAT) -> None:
    """rows: (ts_ns, kind, uid, seq, redelivery_count); producer p0, consumer c1, key k."""
    def row(ts, kind, uid, seq, rc):
        receiving = kind in ("receive", "ack")
        producer = "p0" if capture_format == FORMAT_1 else uid.rpartition("/")[0] or "standalone-0-1"
        return {"run_id": "hand", "ts_ns": ts, "client": "c1" if receiving else producer, "cluster": None,
                "topic": TOPIC, "subscription": SUB if receiving else None, "kind": kind, "uid": uid,
                "producer": producer, "seq": seq, "key": "k", "msg_id": None,
                "redelivery_count": rc if kind == "receive" else None}

    (run_dir / "events").mkdir(parents=True)
    table = pa.Table.from_pylist([row(*r) for r in rows], schema=SCHEMA)
    pq.write_table(table, run_dir / "events" / "part-hand-00000.parquet")
    write_manifest(run_dir, run_id="hand", must_see=[{"topic": TOPIC, "subscription": SUB}], allowed=["recovered"])
    manifest = json.loads((run_dir / "manifest.json").read_text())
    (run_dir / "manifest.json").write_text(json.dumps({**manifest, "format": capture_format}))


def _delivered(ts, uid, seq, rc=0):
    return [(ts, "receive", uid, seq, rc)]


def _acked(ts, uid, seq):
    return [(ts, "ack", uid, seq, None)]


@pytest.fixture(scope="module")
def never_sent_first(tmp_path_factory):
    """p0/5 was never sent and arrives first; p0/3's send failed and it still arrives (recovered),
    before p0/2. Only p0/2 is out of order: under the old rule p0/1, p0/3 and p0/2 all counted
    as lower than the never-sent p0/5."""
    run_dir = tmp_path_factory.mktemp("never-sent-first")
    _write(run_dir, [
        (1, "send_ok", "p0/1", 1, None), (2, "send_ok", "p0/2", 2, None), (3, "send_err", "p0/3", 3, None),
        *_delivered(5, "p0/5", 5), *_delivered(10, "p0/1", 1), *_delivered(15, "p0/3", 3), *_delivered(20, "p0/2", 2),
        *_acked(6, "p0/5", 5), *_acked(11, "p0/1", 1), *_acked(16, "p0/3", 3), *_acked(21, "p0/2", 2),
    ])
    return run_dir, {"unexpected": 1, "recovered": 1, "nonmonotonic": 1}


@pytest.fixture(scope="module")
def shared_seq_and_loops(tmp_path_factory):
    """Two messages from outside any capture (seq 0, distinct uids) are two unexpected pairs,
    not one pair delivered twice. p0/2 arrives three times, once with no reason (a duplicate);
    p0/3 three times, twice after its ack; p0/4, single, arrives before p0/3."""
    run_dir = tmp_path_factory.mktemp("shared-seq-and-loops")
    _write(run_dir, [
        *[(s, "send_ok", f"p0/{s}", s, None) for s in (1, 2, 3, 4)],
        *_delivered(10, "foreign:a:7:1:-1:-1", 0), *_delivered(11, "foreign:a:7:2:-1:-1", 0),
        *_delivered(20, "p0/1", 1), *_acked(21, "p0/1", 1),
        *_delivered(30, "p0/2", 2), *_delivered(31, "p0/2", 2), *_delivered(32, "p0/2", 2, rc=1), *_acked(33, "p0/2", 2),
        *_delivered(35, "p0/4", 4), *_acked(36, "p0/4", 4),
        *_delivered(40, "p0/3", 3), *_acked(41, "p0/3", 3), *_delivered(42, "p0/3", 3), *_delivered(43, "p0/3", 3, rc=1),
    ])
    return run_dir, {"unexpected": 2, "duplicate": 1, "redelivered_after_ack": 1, "nonmonotonic": 1}


@pytest.fixture(scope="module")
def format_1_other_run(tmp_path_factory):
    """Format /1: r0:p0:1, left over from another run, has this run's producer and seq but is
    another message (unexpected), not a second delivery of r1:p0:1."""
    run_dir = tmp_path_factory.mktemp("format-1-other-run")
    _write(run_dir, [(1, "send_ok", "r1:p0:1", 1, None), *_delivered(10, "r1:p0:1", 1), *_acked(11, "r1:p0:1", 1),
                     *_delivered(12, "r0:p0:1", 1), *_acked(13, "r0:p0:1", 1)], FORMAT_1)
    return run_dir, {"unexpected": 1}


def _expected(nonzero: dict) -> dict:
    return {c: nonzero.get(c, 0) for c in CLASSES}


@pytest.mark.parametrize("engine", [engine_python, engine_duckdb], ids=["python", "duckdb"])
@pytest.mark.parametrize("case", ["never_sent_first", "shared_seq_and_loops", "format_1_other_run"])
def test_exact_counts_without_a_jvm(request, case, engine):
    run_dir, nonzero = request.getfixturevalue(case)
    assert engine.run_checks(open_capture(run_dir))["counts"] == _expected(nonzero)


@pytest.mark.spark
@pytest.mark.slow
@pytest.mark.parametrize("case", ["never_sent_first", "shared_seq_and_loops", "format_1_other_run"])
def test_exact_counts_in_spark(request, spark, case, monkeypatch):
    from pulsar_conformance.spark_checks import engine_spark

    run_dir, nonzero = request.getfixturevalue(case)
    if case == "shared_seq_and_loops":
        # Many producers are coded by a join instead of a literal array: the same identities.
        monkeypatch.setattr(engine_spark, "INLINE_PRODUCERS", 0)
    got = engine_spark.run_checks(spark, open_capture(run_dir))
    assert got["counts"] == _expected(nonzero)
    assert got["examples"] == engine_duckdb.run_checks(open_capture(run_dir))["examples"]
