"""The CLI as a user meets it (issue 51, points 1 and 12): a bare command prints its help (it exited 64,
"bad input", for asking what there is), Ctrl-C during a z3 search exits 130 (it printed UNKNOWN and
exited 2, as if the budget had run out), shell completion, and the next steps certify prints name the
program that is running (a bare `pulsar-conformance` was on no PATH after the README's set-up)."""
from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pulsar_conformance.errors import EXIT_INTERRUPTED
from pulsar_conformance.invocation import me

CLI = [sys.executable, "-m", "pulsar_conformance"]


@pytest.mark.parametrize("argv, words", [([], "first run:"), (["spec"], "mutants"), (["bench"], "spark")])
def test_a_bare_command_prints_its_help_and_exits_0(argv, words):
    done = subprocess.run([*CLI, *argv], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("usage: ") and words in done.stdout and done.stderr == ""


def test_ctrl_c_during_a_z3_search_exits_130_not_unknown():
    # a search that takes minutes at this depth; z3 used to swallow SIGINT and answer "unknown"
    child = subprocess.Popen([*CLI, "spec", "check", "client-failover", "--engine", "z3", "--depth", "60",
                              "--max-seconds", "300"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        time.sleep(6)  # past start-up, inside a solver call
        assert child.poll() is None, child.communicate()[0]
        sent = time.monotonic()
        child.send_signal(signal.SIGINT)
        out, _ = child.communicate(timeout=60)
    finally:
        if child.poll() is None:
            child.kill()
    assert child.returncode == EXIT_INTERRUPTED, out[-2000:]
    assert "UNKNOWN" not in out and "budget not reached" not in out, out[-2000:]
    assert time.monotonic() - sent < 30  # the solver was interrupted, not waited for


@pytest.mark.skipif(shutil.which("bash") is None, reason="no bash")
def test_bash_completion_offers_commands_options_and_choices(tmp_path):
    script = tmp_path / "completion.bash"
    done = subprocess.run([*CLI, "completion", "bash"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    script.write_text(done.stdout)
    probe = f'''source {script}
t() {{ COMP_WORDS=("$@"); COMP_CWORD=$((${{#COMP_WORDS[@]}} - 1)); _pulsar_conformance; echo "${{COMPREPLY[*]}}"; }}
t pulsar-conformance cer
t pulsar-conformance spec ch
t pulsar-conformance certify --pro
t pulsar-conformance certify --profile sm
t pulsar-conformance spec check --engine ""
t pulsar-conformance certify --profile smoke --json --dep
'''
    lines = subprocess.run(["bash", "-c", probe], capture_output=True, text=True, timeout=60, check=True).stdout.splitlines()
    assert lines[0] == "certify" and lines[1] == "check"
    assert set(lines[2].split()) == {"--profile", "--product", "--proxy"}
    assert lines[3] == "smoke"
    assert set(lines[4].split()) == {"z3", "hypothesis", "explore", "all"}
    assert lines[5] == "--deployment"
    zsh = subprocess.run([*CLI, "completion", "zsh"], capture_output=True, text=True, timeout=120)
    assert zsh.returncode == 0 and "bashcompinit" in zsh.stdout
    bad = subprocess.run([*CLI, "completion", "fish"], capture_output=True, text=True, timeout=120)
    assert bad.returncode == 64 and "bash or zsh" in bad.stderr


def test_next_steps_name_the_program_that_runs(tmp_path):
    venv = tmp_path / ".venv" / "bin"
    venv.mkdir(parents=True)
    program = venv / "pulsar-conformance"
    program.write_text("#!/bin/sh\n")
    program.chmod(0o755)
    # the README's venv, not on the PATH: the path from where the user is
    assert me(str(program), cwd=tmp_path, path="/usr/bin") == ".venv/bin/pulsar-conformance"
    assert me(str(program), cwd=Path("/"), path="/usr/bin") == str(program)
    # on the PATH as itself: the bare name
    assert me(str(program), cwd=tmp_path, path=f"{venv}{os.pathsep}/usr/bin") == "pulsar-conformance"
    # another pulsar-conformance first on the PATH: not that one
    other = tmp_path / "other"
    other.mkdir()
    (other / "pulsar-conformance").write_text("#!/bin/sh\n")
    (other / "pulsar-conformance").chmod(0o755)
    assert me(str(program), cwd=tmp_path, path=f"{other}{os.pathsep}{venv}") == ".venv/bin/pulsar-conformance"
    # python -m pulsar_conformance
    assert me("/x/pulsar_conformance/__main__.py").endswith("-m pulsar_conformance")


def test_certify_last_lines_say_what_was_certified_and_what_to_run(tmp_path, monkeypatch):
    from pulsar_conformance.reports.runner import certify
    from tests.reports.handmade import make_bundle

    summary = make_bundle(tmp_path / "b")
    monkeypatch.setattr(certify, "me", lambda: ".venv/bin/pulsar-conformance")
    text = certify._text(summary, tmp_path / "b")
    first, *rest = text.splitlines()
    catalog = len(summary["requirements"])
    declared = len(summary["declared"])
    assert first.startswith(f"FAIL: 1 of the catalog's {catalog} requirements certified on the local deployment "
                            f"(the profile certifies {declared} there; 1 MUST failed: PIP188-R03; 1 SHOULD/MAY "
                            "deviation, not failures: PIP188-R15"), first
    assert f"next: .venv/bin/pulsar-conformance results {tmp_path / 'b'}" in text
    assert f".venv/bin/pulsar-conformance verify {tmp_path / 'b.tar.gz'}" in text
    counts = next(line for line in rest if line.startswith("requirements: "))
    assert "1 fail" in counts and "1 deviation (SHOULD/MAY not met" in counts
