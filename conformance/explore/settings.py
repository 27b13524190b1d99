"""What ``explore`` hands the explore test in certify's child: one file (``explore.json`` in the bundle),
named by one variable, so the budget, the seed and a replayed schedule reach the test as they were
checked, and the bundle keeps what was asked."""
from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass
from pathlib import Path

from pulsar_conformance.files import write_atomic

from .machine import Settings

ENV = "PULSAR_CONFORMANCE_EXPLORE"
FILE = "explore-request.json"


@dataclass(frozen=True)
class Request:
    protocol: str
    settings: Settings
    replay: dict | None = None  # a schedule file's document (``schedule.read``'s), replayed ``repeat`` times
    repeat: int = 1

    def to_json(self) -> dict:
        return {"protocol": self.protocol, "settings": asdict(self.settings), "replay": self.replay, "repeat": self.repeat}


def write(out: Path, request: Request) -> Path:
    path = out / FILE
    write_atomic(path, json.dumps(request.to_json(), indent=1))
    return path


def read() -> Request | None:
    """The request of this child, None when it is not an explore run (then the explore tests are deselected)."""
    path = os.environ.get(ENV)
    if not path:
        return None
    doc = json.loads(Path(path).read_text())
    return Request(doc["protocol"], Settings(**doc["settings"]), doc.get("replay"), int(doc.get("repeat") or 1))
