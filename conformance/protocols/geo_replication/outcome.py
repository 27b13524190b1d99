"""What a geo-replication run leaves to be judged (saved beside its capture as outcome.json by
harness/outcome.py): whether the outage was reached, the sends that failed, the timeline's markers,
the deliveries per subscription read back from the capture, and Spark's verdict over the capture,
taken by the record step after the scenario (record.py) and saved again with the outcome."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ...harness import outcome as saved


@dataclass
class Outage:
    reached: bool = False
    why: str = ""


@dataclass
class Outcome:
    run_dir: Path
    verdict: dict | None  # Spark's verdict over the capture (docs/spark-checks.md); None until record.judged
    outage: Outage
    failures: list[str] = field(default_factory=list)  # send results other than Ok
    markers: list[dict] = field(default_factory=list)
    deliveries: dict[str, int] = field(default_factory=dict)  # receive events per subscription
    # an explored schedule's name, which its rows carry (geo-replication/<schedule>/...) so that the rows of many
    # schedules in one bundle stay apart; "" for the certify scenario, whose rows keep their names
    name: str = ""
    columns: dict = saved.captured()  # the capture's rows (an explored schedule's judge reads them; not saved)
