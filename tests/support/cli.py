"""``python -m pulsar_conformance ARGS`` in a child process with its own state folder, for the live
tests that drive the command line against clusters they started."""
from __future__ import annotations

import os
import subprocess
import sys


def run_cli(*args: str, state_dir, timeout: float = 1800) -> subprocess.CompletedProcess:
    env = {**os.environ, "PULSAR_CONFORMANCE_STATE_DIR": str(state_dir)}
    return subprocess.run([sys.executable, "-m", "pulsar_conformance", *args], capture_output=True, text=True,
                          timeout=timeout, env=env, stdin=subprocess.DEVNULL)
