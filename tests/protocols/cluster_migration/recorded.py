"""The recorded PIP-188 run the offline tests judge (tests/data/migration/cluster-migration-3.13.0,
README there): its folder and the Exclusive topic's producer the edits aim at."""
from __future__ import annotations

from pathlib import Path

DATA = Path(__file__).resolve().parents[2] / "data" / "migration" / "cluster-migration-3.13.0"
EXCLUSIVE = "persistent://mig/live/exclusive"
PRODUCER = "p-live-exclusive"
