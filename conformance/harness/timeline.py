"""A scenario's timeline and how it ends, whatever the protocol: labelled instants (a trigger, a
fault, a hung client call) said as progress and drawn on the report's timeline, then the capture
judged by Spark, and the outcome saved beside the capture for the report (``markers.json``,
``verdict.json``) and for reading back offline (``<protocol>.json``)."""
from __future__ import annotations

import json
import time
from pathlib import Path

from pulsar_conformance.files import write_atomic
from pulsar_conformance.output import progress

from . import evidence


class Timeline:
    def __init__(self, name: str = ""):
        self.name = name  # said before each line of progress, when several scenarios share a log
        self.markers: list[dict] = []

    def say(self, text: str) -> None:
        progress(f"{self.name}: {text}" if self.name else text)

    def mark(self, label: str, at_ns: int | None = None) -> int:
        """A labelled instant (now, unless ``at_ns`` says when it happened); returns its time."""
        at_ns = time.time_ns() if at_ns is None else at_ns
        self.markers.append({"ts_ns": at_ns, "label": label})
        self.say(label)
        return at_ns

    def hook(self, hook, *args) -> None:
        """Run a scenario hook; a label it returns is marked."""
        if hook is not None:
            label = hook(*args)
            if label:
                self.mark(label)

    def hung(self, calls) -> None:
        """A client call abandoned at its deadline is a finding of its own: on the timeline."""
        for call in calls:
            self.mark(f"hung client call: {call}", at_ns=call.at_ns)


def spark_verdict(run_dir: Path, columns: dict, timeline: Timeline) -> dict:
    """Spark's verdict over the capture's rows (``evidence.read_capture``), said as progress."""
    timeline.say(f"checking {len(columns['kind'])} captured events with Spark")
    verdict = evidence.spark_verdict(run_dir, columns)
    timeline.say(f"Spark: {({True: 'valid', False: 'INVALID', None: 'unknown'})[verdict.get('valid')]}")
    return verdict


def save_stored(run_dir: Path, cluster: str, uids) -> None:
    """What a target cluster held when the scenario read it (``stored.json``, the report's picture of
    sent vs stored: reports/view/plots.py): the cluster's label in the capture and every uid it holds."""
    write_atomic(run_dir / "stored.json", json.dumps({"cluster": cluster, "uids": sorted(set(uids))}))


def save(run_dir: Path, protocol: str, doc: dict | None, markers: list[dict], verdict: dict | None = None) -> None:
    """``<protocol>.json`` (the outcome) and ``markers.json`` beside the capture; ``verdict.json`` only when a
    verdict is given: a scenario has none (Spark judges after it, harness/afterwards.py writes the file)."""
    if doc is not None:
        write_atomic(run_dir / f"{protocol}.json", json.dumps(doc, indent=2, default=str))
    write_atomic(run_dir / "markers.json", json.dumps(markers, indent=2, default=str))
    if verdict is not None:
        write_atomic(run_dir / "verdict.json", json.dumps(verdict, indent=2, default=str))
