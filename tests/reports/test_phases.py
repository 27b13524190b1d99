"""A scenario's phases reach the person watching while the test runs, not when it ends."""
from __future__ import annotations

import subprocess
import sys


def test_phases_pass_pytest_capture_with_the_test_elapsed_time(tmp_path):
    go = tmp_path / "go"
    (tmp_path / "test_scenario.py").write_text(
        "import pathlib, time\nfrom pulsar_conformance.output import progress\n\n"
        "def test_scenario():\n    progress('deployment ready in 0 s')\n"
        f"    for _ in range(300):\n        if pathlib.Path({str(go)!r}).exists(): break\n        time.sleep(0.1)\n"
        f"    assert pathlib.Path({str(go)!r}).exists(), 'the watcher never saw the first phase'\n"
        "    progress('checking with Spark')\n")
    child = subprocess.Popen([sys.executable, "-m", "pytest", "-q", str(tmp_path), "-p", "no:cacheprovider",
                              "-p", "pulsar_conformance.reports.runner.phases"],
                             cwd=tmp_path, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
    first = child.stderr.readline()
    # the test waits for our answer and fails without it: a line pytest held until the test
    # ended would come too late to answer
    go.touch()
    rest = child.stderr.read()
    assert child.wait(60) == 0
    assert "test_scenario: deployment ready in 0 s" in first and "s]" in first, first
    assert "checking with Spark" in rest


def test_control_without_the_plugin_pytest_holds_the_phases(tmp_path):
    (tmp_path / "test_scenario.py").write_text(
        "from pulsar_conformance.output import progress\n\ndef test_scenario():\n    progress('deployment ready')\n")
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", str(tmp_path), "-p", "no:cacheprovider"],
                          cwd=tmp_path, capture_output=True, text=True, check=False)
    assert done.returncode == 0 and "deployment ready" not in done.stderr + done.stdout
