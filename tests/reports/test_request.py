"""certify's options become one typed request at the CLI's edge (reports/runner/request.py), every value
checked before a folder, a cluster or a test process exists. Each of these used to start the tests
and end minutes later in an "unknown" bundle (or, for a matrix, after a whole run of the first value)."""
from __future__ import annotations

import dataclasses
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from pulsar_conformance.cli import build_parser
from pulsar_conformance.errors import UsageError

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def _own_state(tmp_path, monkeypatch):
    monkeypatch.setenv("PULSAR_CONFORMANCE_STATE_DIR", str(tmp_path / "state"))


def _request(*options: str, out: Path | None = None):
    from pulsar_conformance.reports.runner.request import certify_request

    argv = ["certify", "--profile", "smoke", *options]
    if out is not None:
        argv += ["--out", str(out)]
    return certify_request(build_parser().parse_args(argv))


def _refused(*options: str, out: Path | None = None) -> UsageError:
    new = out is not None and not out.exists()
    with pytest.raises(UsageError) as refused:
        _request(*options, out=out)
    assert refused.value.fix, refused.value
    if new:
        assert not out.exists(), "a refused request left its output folder behind"
    return refused.value


@pytest.mark.parametrize("release, words", [("abc", "'abc' is not a Pulsar release number"),
                                            ("2.11.0", "older than the 3.0 line"),
                                            ("9.9.9", "no Pulsar 9.9 line is known")])
def test_a_release_the_suite_cannot_run_is_refused_naming_the_supported_ones(tmp_path, release, words):
    error = _refused("--pulsar-version", release, out=tmp_path / "b")
    assert words in error.problem and "--pulsar-version" in error.problem, error
    assert "4.2.4" in error.fix and "5.0" in error.fix and "3.0" in error.fix


@pytest.mark.parametrize("repeat", ["0", "-1", "21"])
def test_repeat_out_of_range(tmp_path, repeat):
    assert f"--repeat {repeat}" in _refused("--repeat", repeat, out=tmp_path / "b").problem


@pytest.mark.parametrize("matrix, words", [("client=3.13.0,abc", "'abc' is not a pulsar-client release"),
                                           ("pulsar=4.2.4,9.9.9", "no Pulsar 9.9 line"),
                                           ("java-client=4.2.4,2.0.0", "older than the 3.0 line"),
                                           ("pulsar=4.2.4,4.2.4", "given twice"),
                                           ("pulsar=4.2.4", "expected AXIS=V1,V2")])
def test_every_matrix_value_is_checked_before_the_first_run(tmp_path, matrix, words):
    assert words in _refused("--matrix", matrix, out=tmp_path / "b").problem


def test_a_release_matrix_on_an_external_deployment_is_refused_before_the_file_is_read(tmp_path):
    error = _refused("--matrix", "pulsar=4.0.1,4.2.4", "--deployment", str(tmp_path / "clusters.yaml"),
                     out=tmp_path / "b")
    assert "external deployment runs whatever release it runs" in error.problem and "drop --deployment" in error.fix


def test_an_option_and_a_matrix_over_the_same_axis(tmp_path):
    error = _refused("--pulsar-version", "4.2.4", "--matrix", "pulsar=4.0.1,4.2.4", out=tmp_path / "b")
    assert "--pulsar-version and --matrix pulsar" in error.problem and "drop --pulsar-version" in error.fix


def test_java_env_pointing_at_nothing(tmp_path, monkeypatch):
    monkeypatch.setenv("PULSAR_CONFORMANCE_JAVA", str(tmp_path / "no-java"))
    error = _refused(out=tmp_path / "b")
    assert "$PULSAR_CONFORMANCE_JAVA" in error.problem and "not a working java" in error.problem


@pytest.mark.parametrize("select", ["a and", "(smoke", "x y", "__import__('os')"])
def test_a_selection_pytest_cannot_parse(tmp_path, select):
    error = _refused("--select", select, out=tmp_path / "b")
    assert "is not a pytest -k expression" in error.problem and "--select" in error.fix


def test_out_that_is_a_file_or_not_empty(tmp_path):
    afile = tmp_path / "afile"
    afile.write_text("keep me")
    assert "is a file; a directory is written there" in _refused(out=afile).problem
    assert afile.read_text() == "keep me"
    busy = tmp_path / "busy"
    busy.mkdir()
    (busy / "old").write_text("x")
    assert "is not empty" in _refused(out=busy).problem
    assert "is a file" in _refused(out=afile / "below").problem


def test_a_state_dir_that_is_a_file(tmp_path, monkeypatch):
    state = tmp_path / "state-file"
    state.write_text("")
    monkeypatch.setenv("PULSAR_CONFORMANCE_STATE_DIR", str(state))
    error = _refused(out=tmp_path / "b")
    assert "$PULSAR_CONFORMANCE_STATE_DIR" in error.problem and "is a file" in error.problem


def test_a_good_request_is_typed_frozen_and_holds_its_checked_values(tmp_path):
    request = _request("--exclude", "GEO-R02, GEO-R02", "--select", "smoke and not tls", "--seed", "7",
                       out=tmp_path / "b")
    assert request.profile.name == "smoke" and request.exclude == ("GEO-R02",) and request.seed == 7
    assert request.select == "smoke and not tls" and request.out == (tmp_path / "b").resolve()
    assert request.deployment.backend == "local" and not request.is_series
    assert request.clients and request.client is request.clients[0][1]  # prepared once, up front
    with pytest.raises(dataclasses.FrozenInstanceError):
        request.seed = 8  # series.py used to setattr on a copy of argparse's namespace
    assert not (tmp_path / "b").exists()  # checked, not created: the run creates it


def test_nothing_below_the_cli_reads_argparse():
    """The request is the interface: no getattr(args, ...) defaults, no setattr on options."""
    for name in ("runner/certify", "runner/series", "runner/build", "runner/identity", "bundle/contents",
                 "bundle/compare", "view/compare_page"):
        source = (REPO / "reports" / f"{name}.py").read_text()
        assert not re.search(r"\bargs\b|argparse|Namespace|setattr\(", source), name


def test_the_command_line_refuses_before_anything_starts(tmp_path):
    """Through the entry point: exit 64, one JSON document with the fix, no bundle, in seconds."""
    env = {**os.environ, "PULSAR_CONFORMANCE_STATE_DIR": str(tmp_path / "state")}
    done = subprocess.run([sys.executable, "-m", "pulsar_conformance", "certify", "--profile", "smoke", "--matrix",
                           "client=3.13.0,abc", "--out", str(tmp_path / "series"), "--json"],
                          capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == 64, done.stderr[-2000:]
    doc = json.loads(done.stdout)
    assert "'abc' is not a pulsar-client release number" in doc["error"] and doc["fix"]
    assert not (tmp_path / "series").exists() and "certify: run 1" not in done.stderr


@pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("setpriv"), reason="plays an unprivileged user with setpriv")
def test_out_in_a_read_only_directory():
    """Root writes into a mode-0555 folder, so an unprivileged user plays the case (the check probes by
    writing, it does not read mode bits)."""
    base = Path(tempfile.mkdtemp(prefix="ro-out-"))
    try:
        base.chmod(0o555)
        code = ("from pulsar_conformance.files import check_output_path as c\n"
                "from pulsar_conformance.errors import UsageError\n"
                f"for kind, path in (('dir', '{base}/bundle'), ('file', '{base}/page.html'), ('dir', '{base}')):\n"
                "    try:\n        c(path, kind=kind)\n    except UsageError as e:\n        print(e.problem)\n"
                "    else:\n        print('accepted', path)\n")
        done = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", sys.executable, "-c",
                               code], capture_output=True, text=True, timeout=60, cwd="/", env={
                                   **os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
        if "No module named 'pulsar_conformance'" in done.stderr:
            # an environment the unprivileged user cannot read (tox makes .tox mode 0700): the
            # unwritable case is covered without a user switch by the fuzz test's /proc paths
            pytest.skip("the unprivileged user cannot read this Python environment (.tox is private)")
        if "error while loading shared libraries" in done.stderr:
            # the interpreter itself is root's: a pyenv Python under /root links libpython from there
            pytest.skip(f"the unprivileged user cannot run this interpreter ({done.stderr.strip()[-160:]})")
        assert done.returncode == 0, done.stderr[-2000:]
        lines = done.stdout.splitlines()
        assert len(lines) == 3 and all("cannot write in" in line and "permission denied" in line for line in lines), lines
        assert list(base.iterdir()) == []  # the probe left nothing
    finally:
        base.chmod(0o755)
        shutil.rmtree(base)
