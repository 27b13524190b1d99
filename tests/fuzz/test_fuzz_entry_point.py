"""A few cases through the installed entry point in a real process: argv bytes that are not UTF-8
(Python hands them over as surrogates, which a strict stdout cannot print), a C locale, and a
deployment refusal under the real interpreter's own stream and logging setup. The rest of the fuzz
runs in forked children, which is about fifty times faster."""
from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import pytest

from . import sandbox
from .cases import CANARIES, JWT, URL_PASSWORD, Case, materialize, session_root

CASES = {
    "argv-not-utf8-json": ([b"certify", b"--profile", b"\xff\xfe", b"--json"], {}, {}),
    "argv-not-utf8-text": ([b"certify", b"--profile", b"\xff\xfe"], {}, {}),
    "argv-not-utf8-expression": ([b"spec", b"explore", b"client-failover", b"--reach", b"\xff == 1"], {}, {}),
    "c-locale-non-ascii": ([b"spec", b"explore", b"client-failover", b"--reach", "é == 1".encode()], {},
                           {"LC_ALL": "C", "LANG": "C"}),
    "deployment-with-credentials": (["up", "--backend", "external", "--config", "vendor.yaml"],
                                    {"vendor.yaml": "clusters:\n  blue:\n    service_url: pulsar://127.0.0.1:1\n"
                                                    f"    admin_url: http://admin:{URL_PASSWORD}@127.0.0.1:1\n"
                                                    f"    token: \"{JWT}\\n{JWT}\"\n"}, {}),
    "java-env-pointing-at-nothing": (["certify", "--profile", "smoke", "--json"], {},
                                     {"PULSAR_CONFORMANCE_JAVA": "/nonexistent/bin/java"}),
}


@pytest.mark.parametrize("name", list(CASES))
def test_the_installed_entry_point_refuses_cleanly(name):
    argv, files, env = CASES[name]
    workdir = Path(tempfile.mkdtemp(dir=session_root(), prefix="entry-"))
    try:
        _, full_env = materialize(Case(argv=[], files=files), workdir)
        outcome = sandbox.run_process(argv, workdir, surface="entry-point", env={**full_env, **env})
        sandbox.assert_refused(outcome, CANARIES)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


# spec commands that run Hypothesis (check, mutants) left .hypothesis/ in the working directory (issue 48): its
# files belong in the suite's cache. A real process, since a forked case inherits the test process's Hypothesis
# home (fixed at its first use, in the checkout), which would hide the defect.
HYPOTHESIS_RUNS = {
    "spec-check": ["spec", "check", "client-failover", "--engine", "hypothesis", "--examples", "5", "--steps", "5",
                   "--json"],
    "spec-mutants": ["spec", "mutants", "client-failover", "--only", "threshold-off-by-one", "--examples", "20",
                     "--steps", "10", "--depth", "4", "--max-seconds", "20", "--json"],
}


@pytest.mark.parametrize("name", list(HYPOTHESIS_RUNS))
def test_spec_commands_leave_no_hypothesis_folder_in_the_working_directory(name):
    workdir = Path(tempfile.mkdtemp(dir=session_root(), prefix="entry-"))
    try:
        _, full_env = materialize(Case(argv=[]), workdir)
        full_env = {**full_env, "HYPOTHESIS_STORAGE_DIRECTORY": None}
        outcome = sandbox.run_process(HYPOTHESIS_RUNS[name], workdir, surface="entry-point", env=full_env)
        assert outcome.code in (0, 1) and not outcome.timed_out and "Traceback" not in outcome.stderr, outcome.show()
        left = [p for p in outcome.leftovers if p.startswith(".hypothesis")]
        assert not left, f"left in the working directory: {left[:3]}\n" + outcome.show()
        assert any(p.startswith("cache/hypothesis") for p in outcome.leftovers), outcome.show()  # kept in the cache
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
