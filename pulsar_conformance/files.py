"""Files other processes read while we write them (records, pid files, bundles, traces)."""
from __future__ import annotations

from pathlib import Path


def write_atomic(path: Path, text: str) -> None:
    """Write beside ``path`` and rename over it: a reader sees the old file or the new one, never half."""
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text)
    tmp.replace(path)
