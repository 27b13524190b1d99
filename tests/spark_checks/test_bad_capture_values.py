"""Captures whose values break the contract are refused before any engine judges them.

Nulls where the format has none, negative timestamps or redelivery counts and unknown ``kind``
values used to be judged: hundreds of "lost" or "redelivered" messages invented, and the three
engines disagreed on nulls. They are refused from the Parquet footer, naming file, column and fix.
"""
from __future__ import annotations

import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from pulsar_conformance import errors
from pulsar_conformance.cli import main
from pulsar_conformance.errors import UsageError
from pulsar_conformance.fixtures.capture.manifest import write_manifest
from pulsar_conformance.fixtures.capture.schema import SCHEMA
from pulsar_conformance.spark_checks.capture_input import open_capture
from tests.support.captures import SUB, TOPIC, clean_rows

EXIT_BAD_INPUT = getattr(errors, "EXIT_BAD_INPUT", 2)
# The contract's columns, every one nullable: what a foreign writer (or pandas) produces.
LOOSE = pa.schema([pa.field(f.name, f.type, nullable=True) for f in SCHEMA])


def _rows(n: int = 40) -> list[dict]:
    return clean_rows(n)


def _capture(tmp_path, rows: list[dict], **write_options):
    run_dir = tmp_path / "run"
    (run_dir / "events").mkdir(parents=True)
    pq.write_table(pa.Table.from_pylist(rows, schema=LOOSE), run_dir / "events" / "part-x-00000.parquet",
                   **write_options)
    write_manifest(run_dir, run_id="r", must_see=[{"topic": TOPIC, "subscription": SUB}])
    return run_dir


def _change(rows, every: int, **values) -> list[dict]:
    return [{**row, **values} if i % every == 0 else row for i, row in enumerate(rows)]


def _check_capture(capsys, run_dir, engine: str = "python") -> tuple[int, dict]:
    code = main(["check-capture", str(run_dir), "--engine", engine, "--json"])
    return code, json.loads(capsys.readouterr().out)


def test_a_clean_hand_written_capture_is_judged(capsys, tmp_path):
    code, doc = _check_capture(capsys, _capture(tmp_path, _rows()))
    assert code == 0, doc


@pytest.mark.parametrize("column", ["ts_ns", "uid", "kind", "topic", "seq", "client", "producer", "run_id"])
@pytest.mark.parametrize("engine", ["python", "duckdb"])
def test_nulls_where_the_format_has_none_are_refused(capsys, tmp_path, column, engine):
    run_dir = _capture(tmp_path, _change(_rows(), 7, **{column: None}))
    code, doc = _check_capture(capsys, run_dir, engine)
    assert code == EXIT_BAD_INPUT, doc
    assert "part-x-00000.parquet" in doc["error"] and f"column {column} holds 18 null" in doc["error"]
    assert "re-capture" in doc["fix"]


def test_nulls_where_the_format_allows_them_are_judged(capsys, tmp_path):
    code, doc = _check_capture(capsys, _capture(tmp_path, _change(_rows(), 5, key=None, cluster=None, msg_id=None)))
    assert code == 0, doc


@pytest.mark.parametrize("column, value", [("ts_ns", -1), ("redelivery_count", -3)])
def test_negative_timestamps_and_counts_are_refused(capsys, tmp_path, column, value):
    rows = _rows()
    rows[4] = {**rows[4], column: value}  # a receive row: it has a redelivery count
    code, doc = _check_capture(capsys, _capture(tmp_path, rows))
    assert code == EXIT_BAD_INPUT, doc
    assert f"column {column} holds negative values (lowest {value})" in doc["error"] and doc["fix"]


@pytest.mark.parametrize("kind", ["banana", "Receive", "send", ""])
def test_unknown_kinds_are_refused(capsys, tmp_path, kind):
    code, doc = _check_capture(capsys, _capture(tmp_path, _change(_rows(), 11, kind=kind)))
    assert code == EXIT_BAD_INPUT, doc
    assert f"column kind holds value(s) outside the capture format (docs/capture.md): {kind!r}" in doc["error"]
    assert "send_ok" in doc["fix"]


def test_files_without_statistics_and_with_many_row_groups_are_checked_too(tmp_path):
    rows = _change(_rows(200), 97, ts_ns=None)
    with pytest.raises(UsageError, match="column ts_ns holds 7 null"):
        open_capture(_capture(tmp_path / "a", rows, write_statistics=False, row_group_size=50))
    rows = _rows(200)
    rows[-1] = {**rows[-1], "kind": "nack"}  # only in the last of 12 row groups
    with pytest.raises(UsageError, match="'nack'"):
        open_capture(_capture(tmp_path / "b", rows, row_group_size=50))
    rows = _rows(200)
    rows[-2] = {**rows[-2], "ts_ns": -5}
    with pytest.raises(UsageError, match="lowest -5"):
        open_capture(_capture(tmp_path / "c", rows, write_statistics=False, row_group_size=50))


def test_a_file_of_one_kind_per_row_group_is_proven_from_the_footer(tmp_path, monkeypatch):
    from pulsar_conformance.spark_checks import capture_values

    rows = sorted(_rows(), key=lambda row: row["kind"])  # ack, receive, send_ok: one kind per group
    run_dir = _capture(tmp_path, rows, row_group_size=40)
    monkeypatch.setattr(capture_values, "_column", lambda *a, **k: pytest.fail("read data despite statistics"))
    assert open_capture(run_dir).rows == 120


def test_the_synthetic_captures_pass(anomalous, clean):
    assert open_capture(anomalous).rows and open_capture(clean).rows
