"""Finding and validating a capture run directory before any engine reads it.

Every engine (Spark, DuckDB, pyarrow) gets the same checked list of files, so a bad capture
fails the same way everywhere: exit 2 with what is wrong and how to fix it. Only Parquet
footers are read here, which is cheap even for thousands of one-second files.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from pulsar_conformance.errors import UsageError
from pulsar_conformance.fixtures.capture.manifest import ManifestError, read_manifest
from pulsar_conformance.fixtures.capture.schema import COLUMNS, event_files

from .capture_values import check_values
from .classes import CLASSES

# What the checks read; msg_id and cluster are only carried for people.
NEEDED = ("ts_ns", "client", "topic", "subscription", "kind", "uid", "producer", "seq", "key", "redelivery_count")
_ACCEPTED_TYPES = {name: {dtype} for name, dtype, _ in COLUMNS}
for _name, _types in _ACCEPTED_TYPES.items():
    if pa.string() in _types:
        _types.add(pa.large_string())  # same values; some writers default to it


@dataclass(frozen=True)
class CaptureInput:
    run_dir: Path
    manifest: dict
    files: tuple[str, ...]
    rows: int


def open_capture(run_dir: str | os.PathLike) -> CaptureInput:
    run_dir = Path(run_dir)
    if not run_dir.is_dir():
        raise UsageError(f"{run_dir} is not a directory", "pass the run directory that holds manifest.json and events/")
    try:
        manifest = read_manifest(run_dir)
    except ManifestError as error:
        raise UsageError(str(error), "point at a run directory written by pulsar_conformance.fixtures.capture") from None
    unknown = sorted(set(manifest["allowed"]) - set(CLASSES))
    if unknown:
        raise UsageError(
            f"{run_dir / 'manifest.json'}: 'allowed' names unknown anomaly classes {unknown}",
            f"use only {', '.join(CLASSES)}",
        )
    events_dir = run_dir / "events"
    files = event_files(run_dir)
    if not files:
        raise UsageError(
            f"{events_dir} holds no Parquet files: the capture recorded nothing",
            "check that the scenario's clients were wrapped by the Capture and that it was closed",
        )
    rows = 0
    for path in files:
        try:
            metadata = pq.read_metadata(path)
            schema = metadata.schema.to_arrow_schema()
        except (OSError, pa.ArrowException) as error:
            raise UsageError(f"{path} is not a readable Parquet file: {error}",
                             "remove or restore that file (a partial file from a killed writer has a hidden .tmp name and is never read)") from None
        _check_schema(path, schema)
        try:
            check_values(path, metadata)
        except (OSError, pa.ArrowException) as error:
            raise UsageError(f"{path} is not a readable Parquet file: {error}",
                             "remove or restore that file") from None
        rows += metadata.num_rows
    return CaptureInput(run_dir=run_dir, manifest=manifest, files=tuple(files), rows=rows)


def _check_schema(path: str, schema: pa.Schema) -> None:
    missing = [name for name in _ACCEPTED_TYPES if schema.get_field_index(name) < 0]
    if missing:
        raise UsageError(f"{path} lacks the column(s) {missing} of the capture format (docs/capture.md)",
                         "write captures with pulsar_conformance.fixtures.capture, or add the columns")
    wrong = [
        f"{name} is {schema.field(name).type}, expected {next(iter(sorted(map(str, types))))}"
        for name, types in _ACCEPTED_TYPES.items()
        if schema.field(name).type not in types
    ]
    if wrong:
        raise UsageError(f"{path} has mistyped column(s): {'; '.join(wrong)}",
                         "cast the columns to the types of docs/capture.md (ts_ns and seq int64, redelivery_count int32)")
