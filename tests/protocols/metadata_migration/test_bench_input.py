"""``bench metadata-migration``'s own bad options exit 2 with the fix, before any cluster starts."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from pulsar_conformance.errors import EXIT_BAD_INPUT


@pytest.mark.parametrize("args, needle", [
    (["--sizes", "ten"], "--sizes"),
    (["--sizes", "0,10"], "--sizes"),
    (["--sizes", "10", "--value-bytes", "2000000"], "--value-bytes"),
])
def test_bad_options_are_bad_input(tmp_path, args, needle):
    done = subprocess.run([sys.executable, "-m", "pulsar_conformance", "bench", "metadata-migration", *args,
                           "--out", str(tmp_path / "out"), "--json"], capture_output=True, text=True, timeout=60)
    assert done.returncode == EXIT_BAD_INPUT, done.stderr[-1000:]
    doc = json.loads(done.stdout)
    assert needle in doc["error"] and doc["fix"]
    assert not (tmp_path / "out").exists()
