"""Tools some tests need (a Docker engine, Chromium, Graphviz...): a test skips, saying why,
only outside CI. Under CI (``CI`` set, as .ci/run has it) a missing tool fails the test, so a
check CI is meant to run can never turn into a skip that nobody sees."""
from __future__ import annotations

import os

import pytest


def in_ci() -> bool:
    return os.environ.get("CI", "").lower() not in ("", "0", "false", "no")


def unavailable(tool: str, why: str) -> None:
    """Stop the test because ``tool`` cannot be had: skip on a developer's machine, fail in CI."""
    message = f"{tool} unavailable: {why}"
    if in_ci():
        pytest.fail(f"CI requires {message}", pytrace=False)
    pytest.skip(message)
