"""Spark's check of a capture stood in for, in the offline tests of a protocol's record step: the record step
must take Spark's verdict once, after the run, for the capture of that run (the list it returns says which)."""
from __future__ import annotations

from pulsar_conformance.conformance.harness import evidence


def stand_in_spark(monkeypatch, verdict: dict) -> list:
    """Make evidence.spark_verdict answer ``verdict``; the run folders it was asked about land in the list."""
    checked: list = []

    def spark(run_dir, columns, engine="spark"):
        checked.append(run_dir)
        return verdict

    monkeypatch.setattr(evidence, "spark_verdict", spark)
    return checked
