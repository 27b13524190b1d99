"""The judge can fail: each thing the fuzz cases are failed on is seen when a command does it.

The sandbox runs ``pulsar_conformance.cli.main`` in a forked child, so replacing ``main`` here
(monkeypatch, in this process) gives the child a command that misbehaves on purpose.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from pulsar_conformance import cli

from . import sandbox
from .cases import JWT, URL_PASSWORD, Case, run_valid


def _outcome(monkeypatch, main, argv=("spec", "list", "--json"), **kwargs) -> sandbox.Outcome:
    monkeypatch.setattr(cli, "main", main)
    return run_valid(Case(argv=list(argv), **kwargs), surface="sandbox-self-test")


def _refusal(problem="bad", fix="do this") -> int:
    sys.stdout.write(json.dumps({"error": problem, "fix": fix}) + "\n")
    return sandbox.EXIT_BAD_INPUT


def _grow() -> int:
    """A memory bomb that gives the watchdog time to see it: 256 MiB at a time, at most 8 GiB."""
    import time

    held = []
    for _ in range(32):
        held.append(bytearray(256 << 20))
        time.sleep(0.05)
    return _refusal()


def test_a_clean_refusal_passes(monkeypatch):
    outcome = _outcome(monkeypatch, lambda argv: _refusal())
    assert sandbox.judge(outcome) == [], outcome.show()


@pytest.mark.parametrize("main, expected", [
    (lambda argv: _refusal(fix=""), "an error without a fix"),
    (lambda argv: _refusal() and 2, "exit code 2, not"),
    (lambda argv: 0, "exit code 0, not"),
    (lambda argv: (sys.stderr.write("Traceback (most recent call last):\n  boom\n"), _refusal())[1],
     "a Python traceback"),
    (lambda argv: 1 / 0, "a Python traceback"),
    (lambda argv: (sys.stdout.write("two\n"), _refusal())[1], "not one JSON document"),
    (lambda argv: _refusal(problem=f"cannot reach http://admin:{URL_PASSWORD}@h"), "a secret in the output"),
    (lambda argv: _refusal(problem=f"token {JWT} refused"), "a secret in the output"),
    (lambda argv: (open("left-behind.tmp", "w").close(), _refusal())[1], "left files behind"),
    (lambda argv: (subprocess.run(["sleep", "30"]), _refusal())[1], "work started on bad input: process"),
    (lambda argv: (__import__("socket").create_connection(("192.0.2.1", 80), timeout=1), _refusal())[1],
     "work started on bad input: network"),
    (lambda argv: (__import__("time").sleep(30), _refusal())[1], "still running at the time limit"),
    (lambda argv: _grow(), "grew past"),
])
def test_each_failure_is_seen(monkeypatch, main, expected):
    # long enough for a loaded machine to fill memory; the sleeping cases are stopped at their limit anyway
    outcome = _outcome(monkeypatch, main, timeout=2.0 if "time limit" in expected else 30.0)
    problems = sandbox.judge(outcome, (URL_PASSWORD, JWT.rsplit(".", 1)[1]))
    assert any(expected in p for p in problems), (problems, outcome.show())


def test_text_mode_needs_error_and_fix_on_stderr(monkeypatch):
    def text_refusal(argv):
        sys.stderr.write("error: bad\n")
        return sandbox.EXIT_BAD_INPUT

    outcome = _outcome(monkeypatch, text_refusal, argv=("spec", "list"))
    assert any("an error without a fix" in p for p in sandbox.judge(outcome)), outcome.show()


def test_a_process_left_behind_is_found_by_its_marker_and_killed():
    marker = uuid.uuid4().hex
    child = subprocess.Popen(["sleep", "60"], env={**os.environ, sandbox.MARKER_ENV: marker}, start_new_session=True)
    try:
        # between fork and exec the child still shows this process's environment, without the
        # marker: a case's leftovers are looked for after it ended, long past their exec
        deadline = time.monotonic() + 10
        while _command(child.pid) != ["sleep", "60"] and time.monotonic() < deadline:
            time.sleep(0.02)
        left = sandbox._kill_marked(marker)
        assert left and left[0].startswith(f"{child.pid}:"), left
        assert child.wait(timeout=10) == -9
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()


def _command(pid: int) -> list[str]:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().decode().split("\0")[:-1]
    except OSError:
        return []
