"""Small synthetic captures shared by the checks' tests (generated once per session)."""
from __future__ import annotations

import json

import pytest

from pulsar_conformance.spark_checks.synth import GROUND_TRUTH, generate

EVENTS = 30_000


@pytest.fixture(scope="session")
def anomalous(tmp_path_factory):
    run_dir = tmp_path_factory.mktemp("anomalous")
    generate(run_dir, events=EVENTS, seed=11, per_class=6)
    return run_dir


@pytest.fixture(scope="session")
def clean(tmp_path_factory):
    run_dir = tmp_path_factory.mktemp("clean")
    generate(run_dir, events=EVENTS, seed=12, clean=True)
    return run_dir


@pytest.fixture(scope="session")
def spark():
    from pulsar_conformance.spark_checks.session import spark_session

    with spark_session("local[2]", shuffle_partitions=2) as session:
        yield session


def truth(run_dir) -> dict:
    return json.loads((run_dir / GROUND_TRUTH).read_text())
