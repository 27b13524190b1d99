"""The capture writer: periodic flushes, bounded memory, and what a killed runner leaves."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from pulsar_conformance.fixtures.capture.schema import COLUMN_NAMES, SCHEMA
from pulsar_conformance.fixtures.capture.writer import CaptureWriter


def _row(i: int) -> tuple:
    return ("run", 1_000 + i, "p1", None, "persistent://t/ns/a", None, "send_ok", f"run:p1:{i}", "p1", i, None,
            f"1:{i}:-1:-1", None)


def _read_rows(run_dir: Path) -> int:
    files = [p for p in (run_dir / "events").glob("*.parquet") if not p.name.startswith(".")]
    return sum(pq.read_table(p).num_rows for p in files)


def test_rows_become_readable_within_a_second_without_close(tmp_path):
    writer = CaptureWriter(tmp_path, flush_interval=0.5)
    try:
        for i in range(1, 101):
            writer.append(_row(i))
        deadline = time.monotonic() + 1.5
        while _read_rows(tmp_path) < 100 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _read_rows(tmp_path) == 100, "rows appended 1.5 s ago are still not on disk"
    finally:
        writer.close()


def test_files_follow_the_contract_schema(tmp_path):
    writer = CaptureWriter(tmp_path)
    writer.append(_row(1))
    writer.close()
    (only,) = (tmp_path / "events").glob("*.parquet")
    schema = pq.read_schema(only)
    assert tuple(schema.names) == COLUMN_NAMES
    assert schema.equals(SCHEMA, check_metadata=False)


def test_buffer_is_bounded_by_back_pressure(tmp_path):
    # A flush interval of a second and a buffer of 100 rows: 10 000 rows appended in a burst
    # must be written along the way, never held all at once.
    writer = CaptureWriter(tmp_path, flush_interval=1.0, max_rows=100)
    try:
        for i in range(1, 10_001):
            writer.append(_row(i))
            assert len(writer._rows) <= 4 * 100 + 1
    finally:
        writer.close()
    assert _read_rows(tmp_path) == 10_000


def test_interval_over_a_second_is_refused(tmp_path):
    with pytest.raises(ValueError, match="at least once a second|in \\(0, 1\\]"):
        CaptureWriter(tmp_path, flush_interval=2.0)


_KILLED_WRITER = r"""
import sys, time
from pulsar_conformance.fixtures.capture.writer import CaptureWriter
def on_flush(total):
    print(total, flush=True)
writer = CaptureWriter(sys.argv[1], flush_interval=0.2, on_flush=on_flush)
i = 0
while True:
    i += 1
    writer.append(("run", i, "p1", None, "persistent://t/ns/a", None, "send_ok", f"run:p1:{i}", "p1", i, None, None, None))
    if i % 200 == 0:
        time.sleep(0.001)
"""


def test_a_killed_runner_leaves_every_flushed_event_readable(tmp_path):
    process = subprocess.Popen([sys.executable, "-c", _KILLED_WRITER, str(tmp_path)], stdout=subprocess.PIPE, text=True)
    flushed = []
    try:
        deadline = time.monotonic() + 60
        while len(flushed) < 8 and time.monotonic() < deadline:
            line = process.stdout.readline()
            if line:
                flushed.append(int(line))
    finally:
        os.kill(process.pid, signal.SIGKILL)
        process.wait()
    assert len(flushed) >= 8, f"the writer reported only {len(flushed)} flushes in 60 s"
    # Every file that carries a visible name is whole; a flush cut short left at most a hidden temp.
    readable = _read_rows(tmp_path)
    assert readable >= flushed[-1], f"{flushed[-1]} rows were reported flushed, only {readable} are readable"
    seqs = sorted(v for p in (tmp_path / "events").glob("*.parquet") if not p.name.startswith(".")
                  for v in pq.read_table(p, columns=["seq"]).column("seq").to_pylist())
    assert seqs == list(range(1, len(seqs) + 1)), "flushed rows have gaps: a flush lost rows"
