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
