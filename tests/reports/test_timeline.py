"""The report's rate timeline over a capture, including the captures a failed scenario leaves."""
from __future__ import annotations

import pyarrow as pa
import pyarrow.parquet as pq

from pulsar_conformance.reports.view.timeline import rates, svg


def test_a_capture_without_events_draws_nothing_and_does_not_crash(tmp_path):
    # a scenario whose clients never attached leaves an events/ directory with no file in it
    (tmp_path / "events").mkdir()
    assert rates(tmp_path) == ({}, 0, 0.5)
    assert "no send or receive events" in svg(tmp_path)


def test_sends_and_receives_are_counted_per_cluster(tmp_path):
    (tmp_path / "events").mkdir()
    pq.write_table(pa.table({"ts_ns": [1_000_000_000 + i for i in range(3)] + [2_000_000_000],
                             "kind": ["send_ok"] * 3 + ["receive"], "cluster": ["blue"] * 3 + ["green"]}),
                   tmp_path / "events" / "part-0.parquet")
    series, start, bucket = rates(tmp_path)
    assert series == {"send_ok blue": [3, 0, 0], "receive green": [0, 0, 1]}, series
    assert start == 1_000_000_000 and bucket == 0.5
