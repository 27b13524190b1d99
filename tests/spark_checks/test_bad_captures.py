"""Captures the checks cannot use: exit 64 (bad input), one JSON error document, a fix to apply.

These fail before any engine starts, so they run without a JVM.
"""
from __future__ import annotations

import json
import shutil

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from pulsar_conformance import errors
from pulsar_conformance.cli import main

EXIT_BAD_INPUT = getattr(errors, "EXIT_BAD_INPUT", 2)


def _run(capsys, *args) -> tuple[int, dict]:
    code = main(["check-capture", *map(str, args), "--json"])
    out = capsys.readouterr().out
    lines = [line for line in out.splitlines() if line.strip()]
    assert len(lines) == 1, f"stdout must carry exactly one JSON document, got: {out!r}"
    return code, json.loads(lines[0])


@pytest.fixture
def copy(anomalous, tmp_path):
    target = tmp_path / "run"
    shutil.copytree(anomalous, target)
    return target


def _rewrite_first_file(run_dir, change):
    path = sorted((run_dir / "events").glob("*.parquet"))[0]
    pq.write_table(change(pq.read_table(path)), path)


def test_missing_directory(capsys, tmp_path):
    code, doc = _run(capsys, tmp_path / "nope")
    assert code == EXIT_BAD_INPUT and "not a directory" in doc["error"] and doc["fix"]


def test_empty_directory(capsys, tmp_path):
    code, doc = _run(capsys, tmp_path)
    assert code == EXIT_BAD_INPUT and "manifest.json" in doc["error"] and doc["fix"]


def test_no_manifest(capsys, copy):
    (copy / "manifest.json").unlink()
    code, doc = _run(capsys, copy)
    assert code == EXIT_BAD_INPUT and "manifest.json does not exist" in doc["error"]


def test_no_events(capsys, copy):
    shutil.rmtree(copy / "events")
    code, doc = _run(capsys, copy)
    assert code == EXIT_BAD_INPUT and "no Parquet files" in doc["error"] and doc["fix"]


def test_unreadable_file(capsys, copy):
    (copy / "events" / "zz-broken.parquet").write_bytes(b"this is not parquet")
    code, doc = _run(capsys, copy)
    assert code == EXIT_BAD_INPUT and "zz-broken.parquet is not a readable Parquet file" in doc["error"]


def test_missing_column(capsys, copy):
    _rewrite_first_file(copy, lambda t: t.drop_columns(["seq"]))
    code, doc = _run(capsys, copy)
    assert code == EXIT_BAD_INPUT and "lacks the column(s) ['seq']" in doc["error"]


def test_mistyped_column(capsys, copy):
    _rewrite_first_file(copy, lambda t: t.set_column(t.schema.get_field_index("seq"), "seq",
                                                     t.column("seq").cast(pa.string())))
    code, doc = _run(capsys, copy)
    assert code == EXIT_BAD_INPUT and "seq is string, expected int64" in doc["error"]


def test_unknown_allowed_class(capsys, copy):
    manifest = json.loads((copy / "manifest.json").read_text())
    manifest["allowed"] = ["lost", "dupes"]
    (copy / "manifest.json").write_text(json.dumps(manifest))
    code, doc = _run(capsys, copy)
    assert code == EXIT_BAD_INPUT and "dupes" in doc["error"] and "redelivered_after_ack" in doc["fix"]


def test_hidden_temp_files_of_a_killed_writer_are_ignored(capsys, copy):
    (copy / "events" / ".part-1-abc-000009.parquet.tmp").write_bytes(b"half a file")
    code = main(["check-capture", str(copy), "--engine", "duckdb", "--json"])
    doc = json.loads(capsys.readouterr().out)
    assert code == 1 and doc["anomalies"]["lost"]["count"] > 0


def test_no_sends_means_unknown(capsys, copy):
    for path in (copy / "events").glob("*.parquet"):
        table = pq.read_table(path)
        pq.write_table(table.filter(pa.compute.is_in(table.column("kind"), pa.array(["receive", "ack"]))), path)
    code = main(["check-capture", str(copy), "--engine", "duckdb", "--json"])
    doc = json.loads(capsys.readouterr().out)
    assert code == errors.EXIT_UNKNOWN and doc["valid"] is None and doc["unknown_reason"]
