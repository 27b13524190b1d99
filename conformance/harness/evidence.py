"""What a scenario leaves to be judged, whatever the protocol: the capture's rows (docs/capture.md)
and Spark's verdict over them (docs/spark-checks.md)."""
from __future__ import annotations

from pathlib import Path

import pyarrow.dataset as ds

from pulsar_conformance.fixtures.capture.manifest import read_manifest
from pulsar_conformance.fixtures.capture.schema import COLUMN_NAMES, event_files
from pulsar_conformance.spark_checks.check import check_capture
from pulsar_conformance.spark_checks.classes import CLASSES
from pulsar_conformance.spark_checks.verdict import build_verdict


def read_capture(run_dir) -> dict[str, list]:
    """The capture's rows as columns (a scenario's capture is thousands of rows, not millions)."""
    files = event_files(run_dir)
    if not files:  # no client attached (an old client on a migrated topic): no rows, same columns
        return {name: [] for name in COLUMN_NAMES}
    table = ds.dataset(files, format="parquet").to_table()
    table = table.sort_by([("ts_ns", "ascending")])
    return {name: table.column(name).to_pylist() for name in table.column_names}


def rows(columns: dict[str, list], **where) -> list[dict]:
    names = list(columns)
    out = []
    for values in zip(*(columns[n] for n in names), strict=True):
        row = dict(zip(names, values, strict=True))
        if all(row[k] == v if not isinstance(v, tuple) else row[k] in v for k, v in where.items()):
            out.append(row)
    return out


def spark_verdict(run_dir: Path, columns: dict, engine: str = "spark") -> dict:
    """Spark's verdict on the capture; with no event at all nothing can be judged (unknown),
    which Spark would refuse as a capture that recorded nothing. ``engine="duckdb"``: the same checks
    in-process, for a decision that cannot wait for a Spark job (a live search's next step), never
    for a recorded verdict."""
    if not columns["kind"]:
        return build_verdict(manifest=read_manifest(run_dir), events=0, sends=0, counts=dict.fromkeys(CLASSES, 0),
                             examples={}, engine="none")
    return check_capture(run_dir, engine=engine)
