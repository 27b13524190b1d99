from __future__ import annotations

import pytest

from pulsar_conformance.conformance.protocols.cluster_migration import trace

from .recorded import DATA


@pytest.fixture(scope="session")
def run() -> trace.CapturedRun:
    """The recorded run, loaded once; tests that edit it work on copies (``with_columns``)."""
    return trace.load_run(DATA)
