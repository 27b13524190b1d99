"""A kept explore bundle (tests/data/explore/explore-x0013.tar.gz, README there) judged again offline
(issue 50: "the offline re-judging of a kept failing schedule's history"): ``judge BUNDLE`` re-judges
every schedule's saved outcome with today's judges and gives each requirement the verdict it was
recorded with, and its failing schedule's file replays through the spec's model.

That schedule's failure was the suite's, not Pulsar's (the adapter read A's cursor before the client's
grouped acknowledgements reached it; fixed by reading it once it settles: docs/exploring.md): kept
because its history is a real one that fails, which is what re-judging must reproduce."""
from __future__ import annotations

import json
import tarfile
from pathlib import Path

from pulsar_conformance.cli import main
from pulsar_conformance.conformance.explore import schedule as schedules
from pulsar_conformance.conformance.explore.model import Tracker
from pulsar_conformance.conformance.protocols.tenant_migration.explore import VOCABULARY, spec

KEPT = Path(__file__).resolve().parents[2] / "data" / "explore" / "explore-x0013.tar.gz"


def _unpacked(tmp_path: Path) -> Path:
    with tarfile.open(KEPT) as archive:
        archive.extractall(tmp_path / "kept", filter="data")
    return next((tmp_path / "kept").iterdir())


def test_the_kept_exploration_is_judged_again_as_it_was_recorded(tmp_path, capsys):
    bundle = _unpacked(tmp_path)
    code = main(["judge", str(KEPT), "--out", str(tmp_path / "again"), "--json"])
    capsys.readouterr()
    assert code in (0, 1, 2)
    old = json.loads((bundle / "summary.json").read_text())
    new = json.loads((tmp_path / "again" / "summary.json").read_text())
    verdicts = lambda s: {r["id"]: r["verdict"] for r in s["requirements"]}  # noqa: E731
    assert verdicts(new) == verdicts(old) and verdicts(new)["TM-R04"] == "fail"
    # every schedule's outcome was judged again, none carried over
    assert new["rejudged"]["rows"]["rejudged"] > 0 and new["rejudged"]["rows"]["carried_over"] == 0


def test_the_kept_failing_schedule_is_a_file_the_spec_allows_step_by_step(tmp_path):
    bundle = _unpacked(tmp_path)
    doc = json.loads((bundle / "explore.json").read_text())
    candidate, = doc["candidates"]
    assert candidate["replayed"] == "3 of 3" and candidate["steps"] < candidate["shrunk_from"]["steps"]
    kept = schedules.read(bundle / candidate["file"], "tenant-migration")
    tracker = Tracker(spec(), VOCABULARY)
    for step in kept.steps:
        assert step in tracker.choices(), step
        tracker.take(step)
    # its history in schedules.jsonl: each step with when it was invoked and completed on the clusters
    line = next(json.loads(x) for x in (bundle / "schedules.jsonl").read_text().splitlines()
                if json.loads(x)["name"] == candidate["schedule"])
    assert [h["action"] for h in line["history"]] == [s.action for s in kept.steps]
    assert all(h["complete_ns"] >= h["invoke_ns"] > 0 for h in line["history"])
