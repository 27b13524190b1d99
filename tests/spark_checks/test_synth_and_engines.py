"""Ground truth: every class is found exactly as often as it was injected, by every engine.

The DuckDB and Python engines need no JVM, so these run fast; the Spark engine is held to
the same numbers in test_spark_local.py.
"""
from __future__ import annotations

import pytest

from pulsar_conformance.spark_checks.capture_input import open_capture
from pulsar_conformance.spark_checks.check import check_capture
from pulsar_conformance.spark_checks.classes import CLASSES
from pulsar_conformance.spark_checks.synth import generate

from .conftest import truth

ENGINES = ("python", "duckdb")


def test_synthetic_capture_injects_every_class(anomalous):
    counts = truth(anomalous)["counts"]
    assert set(counts) == set(CLASSES)
    assert all(counts[c] > 0 for c in CLASSES), "a class without injections could never be shown to fail"


def test_same_seed_same_capture(tmp_path):
    a = generate(tmp_path / "a", events=20_000, seed=5)
    b = generate(tmp_path / "b", events=20_000, seed=5)
    assert a["injected_uids"] == b["injected_uids"]
    assert a != generate(tmp_path / "c", events=20_000, seed=6)


@pytest.mark.parametrize("engine", ENGINES)
def test_exact_counts_on_anomalous_capture(anomalous, engine):
    verdict = check_capture(anomalous, engine=engine)
    got = {c: verdict["anomalies"][c]["count"] for c in CLASSES}
    assert got == truth(anomalous)["counts"]
    assert verdict["valid"] is False
    assert verdict["events"] == truth(anomalous)["events"]


@pytest.mark.parametrize("engine", ENGINES)
def test_clean_capture_has_no_anomaly(clean, engine):
    verdict = check_capture(clean, engine=engine)
    assert {c: verdict["anomalies"][c]["count"] for c in CLASSES} == {c: 0 for c in CLASSES}
    assert verdict["valid"] is True


@pytest.mark.parametrize("engine", ENGINES)
def test_examples_are_the_injected_messages_worst_first(anomalous, engine):
    verdict = check_capture(anomalous, engine=engine)
    injected = truth(anomalous)["injected_uids"]
    for name in ("lost", "duplicate", "nonmonotonic", "redelivered_after_ack", "recovered"):
        examples = verdict["anomalies"][name]["examples"]
        assert 0 < len(examples) <= 5
        assert {e["uid"] for e in examples} <= set(injected[name]), name
    lost = verdict["anomalies"]["lost"]["examples"]
    assert [e["sent_ts_ns"] for e in lost] == sorted(e["sent_ts_ns"] for e in lost), "oldest loss first"
    assert all(e["uid"].startswith("ghost:") for e in verdict["anomalies"]["unexpected"]["examples"])


def test_python_and_duckdb_agree_exactly(anomalous):
    capture = open_capture(anomalous)
    from pulsar_conformance.spark_checks import engine_duckdb, engine_python

    a, b = engine_python.run_checks(capture), engine_duckdb.run_checks(capture)
    assert a["counts"] == b["counts"]
    assert a["examples"] == b["examples"]


def test_allowed_classes_decide_validity(tmp_path):
    run_dir = tmp_path / "run"
    generate(run_dir, events=20_000, seed=3)
    import json

    manifest = json.loads((run_dir / "manifest.json").read_text())
    manifest["allowed"] = list(CLASSES)
    (run_dir / "manifest.json").write_text(json.dumps(manifest))
    assert check_capture(run_dir, engine="duckdb")["valid"] is True
    manifest["allowed"] = [c for c in CLASSES if c != "nonmonotonic"]
    (run_dir / "manifest.json").write_text(json.dumps(manifest))
    assert check_capture(run_dir, engine="duckdb")["valid"] is False
