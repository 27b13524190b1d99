"""tox's runner of an area's tests (tests/support/split_run.py): offline tests on two workers, live ones
alone, and a developer's own selection as one ordinary run."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from ..support import split_run

RUNNER = Path(split_run.__file__)


def test_without_a_selection_offline_tests_share_the_cores_and_live_ones_run_alone():
    offline, live = split_run.commands(["tests/a", "tests/b"], "10", [])
    assert offline[3:] == ["tests/a", "tests/b", "-m", "not (pulsar or spark or docker)", "-n", "2", "--durations=10"]
    assert live[3:] == ["tests/a", "tests/b", "-m", "(pulsar or spark or docker) and not outside_ci", "--durations=10"]
    assert "-n" not in live  # a live test never shares the cores with another test


def test_a_selection_is_one_ordinary_run():
    (only,) = split_run.commands(["tests/a"], "15", ["-k", "certify"])
    assert only[3:] == ["tests/a", "--durations=15", "-k", "certify"]
    (kept_out,) = split_run.commands(["tests/a"], "15", ["-m", "outside_ci"])  # how the runs CI leaves out are run
    assert kept_out[-2:] == ["-m", "outside_ci"]


def test_no_path_is_a_usage_error_and_runs_nothing():
    done = subprocess.run([sys.executable, str(RUNNER), "--durations", "5"], capture_output=True, text=True)
    assert done.returncode == 4 and "split_run.py PATH" in done.stderr
    done = subprocess.run([sys.executable, str(RUNNER), "tests/a", "--durations"], capture_output=True, text=True)
    assert done.returncode == 4 and "--durations" in done.stderr and "Traceback" not in done.stderr


def test_a_failing_half_fails_the_run_and_the_other_half_still_runs(tmp_path):
    (tmp_path / "test_halves.py").write_text(
        "import pytest\n"
        "def test_offline_fails():\n    assert False\n"
        "@pytest.mark.pulsar\ndef test_live_runs():\n    open(__file__ + '.live', 'w').close()\n"
        "@pytest.mark.pulsar\n@pytest.mark.outside_ci\ndef test_kept_out():\n    open(__file__ + '.out', 'w').close()\n")
    (tmp_path / "pytest.ini").write_text("[pytest]\nmarkers =\n    pulsar: x\n    spark: x\n    docker: x\n    outside_ci: x\n")
    done = subprocess.run([sys.executable, str(RUNNER), str(tmp_path / "test_halves.py")], cwd=tmp_path,
                          capture_output=True, text=True)
    assert done.returncode == 1, done.stdout[-2000:]
    assert (tmp_path / "test_halves.py.live").exists() and not (tmp_path / "test_halves.py.out").exists()


def test_a_path_with_offline_tests_only_passes_and_one_with_none_fails(tmp_path):
    (tmp_path / "test_offline.py").write_text("def test_offline():\n    pass\n")
    (tmp_path / "test_nothing.py").write_text("X = 1\n")
    (tmp_path / "pytest.ini").write_text("[pytest]\nmarkers =\n    pulsar: x\n    spark: x\n    docker: x\n    outside_ci: x\n")
    run = [sys.executable, str(RUNNER)]
    assert subprocess.run([*run, "test_offline.py"], cwd=tmp_path, capture_output=True).returncode == 0
    assert subprocess.run([*run, "test_nothing.py"], cwd=tmp_path, capture_output=True).returncode == 5
