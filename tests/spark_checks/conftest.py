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


@pytest.fixture
def spark():
    """The process's shared session (spark_checks/session.shared_session), alive for each test: a test
    that stops the shared session (test_shared_session.py does) stops the one SparkContext a JVM has,
    and a session held across tests then failed every job "on a stopped SparkContext"."""
    from pulsar_conformance.spark_checks.session import shared_session

    session = shared_session("local[2]")
    session.conf.set("spark.sql.shuffle.partitions", "2")
    return session


def truth(run_dir) -> dict:
    return json.loads((run_dir / GROUND_TRUTH).read_text())
