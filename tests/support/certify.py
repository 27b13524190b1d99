"""A live certification run the way a user runs it (``python -m pulsar_conformance certify ...
--json``), for the protocol tests that judge its bundle: one place for the command and for the
live-only selection (the spec checks and mutants are the spec env's job)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

LIVE_ONLY = "not test_spec_check and not test_mutants_are_killed"


def certify(out: Path, profile: str, *options: str, select: str | None = LIVE_ONLY, timeout: float = 1800,
            env: dict[str, str] | None = None) -> tuple[int, dict]:
    """Run ``certify --profile PROFILE [OPTIONS] --select SELECT --out OUT --json``; its exit code and
    the bundle's summary.json."""
    command = [sys.executable, "-m", "pulsar_conformance", "certify", "--profile", profile, *options]
    if select:
        command += ["--select", select]
    done = subprocess.run([*command, "--out", str(out), "--json"], stdout=subprocess.PIPE, timeout=timeout,
                          env={**os.environ, **(env or {})})
    return done.returncode, json.loads((out / "summary.json").read_text())
