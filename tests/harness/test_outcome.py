"""harness/outcome.py: any protocol's outcome type saved as JSON beside its capture and read back
into the same type, so its judge runs offline on a recorded run; and every protocol package has
that round trip tested (tests/protocols/<package>/test_outcome.py)."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pytest

from pulsar_conformance.conformance.harness import outcome as saved

from .packages import PACKAGES, ROOT


@dataclass
class Inner:
    name: str
    ledgers: set[int] = field(default_factory=set)
    at: float | None = None


@dataclass
class Sample:
    run_dir: Path
    inner: Inner
    by_topic: dict[str, Inner]
    pairs: dict[tuple[str, str], str]
    spans: list[tuple[int, int]]
    maybe: Inner | None = None
    columns: dict = saved.unsaved(default_factory=dict)


def test_an_outcome_round_trips_nested_types(tmp_path):
    out = Sample(tmp_path, Inner("a", {3, 1}, 2.0), {"t": Inner("b")}, {("t", "s"): "Shared"}, [(1, 2)],
                 None, {"kind": ["send_ok"]})
    saved.save(out, tmp_path)
    back = saved.load(Sample, tmp_path, columns={"kind": ["send_ok"]})
    assert back == out and isinstance(back.inner.ledgers, set) and back.spans == [(1, 2)]
    assert "columns" not in (tmp_path / saved.FILE).read_text()  # the capture holds those


def test_loading_another_protocols_outcome_is_refused(tmp_path):
    saved.save(Inner("a"), tmp_path)
    with pytest.raises(TypeError, match="holds a .*Inner.*not a Sample"):
        saved.load(Sample, tmp_path)


@pytest.mark.parametrize("package", PACKAGES)
def test_every_protocols_outcome_has_its_round_trip_and_offline_judge_tested(package):
    path = ROOT / "tests" / "protocols" / package / "test_outcome.py"
    assert path.exists(), f"{package}'s outcome has no round-trip test ({path.relative_to(ROOT)})"
    text = path.read_text()
    assert "saved.load(" in text and "judge." in text, f"{path.relative_to(ROOT)} does not judge a loaded outcome"
