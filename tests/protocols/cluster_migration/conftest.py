from __future__ import annotations

import pytest

from pulsar_conformance.conformance.protocols.cluster_migration import outcome

from .recorded import DATA


@pytest.fixture(scope="session")
def run() -> outcome.CapturedRun:
    """The recorded run, loaded once; tests that edit it work on copies (``with_columns``)."""
    return outcome.load_run(DATA)
