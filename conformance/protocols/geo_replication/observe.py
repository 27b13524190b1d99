"""What the geo-replication scenario reads back after its traffic: the deliveries per subscription,
from the capture (the clusters' own view of replication is the capture's receive events)."""
from __future__ import annotations

from pathlib import Path

import pyarrow.compute as pc
import pyarrow.dataset as ds

from pulsar_conformance.fixtures.capture.schema import RECEIVE, event_files


def deliveries(run_dir: Path) -> dict[str, int]:
    """Receive events per subscription, read back from the capture."""
    files = event_files(run_dir)
    if not files:
        return {}
    table = ds.dataset(files, format="parquet").to_table(columns=["subscription", "kind"],
                                                         filter=pc.field("kind") == RECEIVE)
    counts = table.group_by("subscription").aggregate([("kind", "count")]).to_pylist()
    return {row["subscription"]: row["kind_count"] for row in counts}
