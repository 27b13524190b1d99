"""Values a capture file must hold before any engine judges it, checked from its Parquet footer.

A null ``ts_ns`` or ``uid``, a negative timestamp or a ``kind`` outside the contract is not an
anomaly of the product: judged, such a file invented hundreds of "lost" or "redelivered"
messages, and the three engines disagreed on the nulls (SQL groups and compares them unlike
Python). So they are refused up front, naming the file, the column and the fix.

The footer's row-group statistics (null_count, min, max) answer the null and sign questions
without reading data; a writer that left statistics out costs a read of that one column. Kinds
cannot be proven from a min/max of strings, so the ``kind`` column is read dictionary-encoded
(five distinct values: a few KiB per file) unless its statistics show a single known kind.
"""
from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from pulsar_conformance.errors import UsageError
from pulsar_conformance.fixtures.capture.schema import COLUMN_NAMES, KINDS, NON_NEGATIVE, NOT_NULL

_FORMAT = "the capture format (docs/capture.md)"


def check_values(path: str, metadata: pq.FileMetaData) -> None:
    """Refuse ``path`` (UsageError) if a column breaks the capture contract."""
    columns = {metadata.schema.column(i).path: i for i in range(metadata.num_columns)}
    for name in NOT_NULL:
        nulls = _null_count(path, metadata, columns[name], name)
        if nulls:
            raise UsageError(
                f"{path}: column {name} holds {nulls} null value(s); {_FORMAT} has none there",
                f"re-capture with pulsar_conformance.fixtures.capture, or drop or fill those rows: no check can "
                f"judge an event without its {name} (only {', '.join(_nullable())} may be null)")
    for name in NON_NEGATIVE:
        low = _minimum(path, metadata, columns[name], name)
        if low is not None and low < 0:
            raise UsageError(
                f"{path}: column {name} holds negative values (lowest {low})",
                "ts_ns is nanoseconds since the Unix epoch (time.time_ns()); convert the timestamps (not a "
                "monotonic clock's, not an offset)" if name == "ts_ns" else
                f"{name} counts redeliveries (0 or more); fix the writer or drop those rows")
    unknown = _unknown_kinds(path, metadata, columns["kind"])
    if unknown:
        shown = ", ".join(repr(kind[:40]) for kind in unknown[:5]) + (" ..." if len(unknown) > 5 else "")
        raise UsageError(
            f"{path}: column kind holds value(s) outside {_FORMAT}: {shown}",
            f"kind is one of {', '.join(KINDS)}; map the other rows onto them or drop them")


def _nullable() -> list[str]:
    return [name for name in COLUMN_NAMES if name not in NOT_NULL]


def _null_count(path: str, metadata: pq.FileMetaData, index: int, name: str) -> int:
    total = 0
    for group in range(metadata.num_row_groups):
        stats = metadata.row_group(group).column(index).statistics
        if stats is None or not stats.has_null_count:
            return _column(path, name).null_count  # no statistics: count them once, in the data
        total += stats.null_count
    return total


def _minimum(path: str, metadata: pq.FileMetaData, index: int, name: str):
    lows = []
    for group in range(metadata.num_row_groups):
        chunk = metadata.row_group(group).column(index)
        stats = chunk.statistics
        if stats is None or (not stats.has_min_max and stats.null_count != chunk.num_values):
            return pc.min(_column(path, name)).as_py()  # no statistics (an all-null group has no min)
        if stats.has_min_max:
            lows.append(stats.min)
    return min(lows) if lows else None


def _unknown_kinds(path: str, metadata: pq.FileMetaData, index: int) -> list[str]:
    known = set(KINDS)
    seen: set[str] = set()
    for group in range(metadata.num_row_groups):
        stats = metadata.row_group(group).column(index).statistics
        if stats is None or not stats.has_min_max or stats.min != stats.max:
            break
        seen.add(stats.min if isinstance(stats.min, str) else bytes(stats.min).decode("utf-8", "replace"))
    else:
        return sorted(seen - known)  # every group held one kind: the footer is proof enough
    values = _column(path, "kind", dictionary=True)
    for chunk in values.chunks:
        seen.update(v for v in chunk.dictionary.to_pylist() if v is not None)
    return sorted(seen - known)


def _column(path: str, name: str, *, dictionary: bool = False) -> pa.ChunkedArray:
    table = pq.read_table(path, columns=[name], read_dictionary=[name] if dictionary else None)
    return table.column(name)
