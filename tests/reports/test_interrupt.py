"""Ctrl-C ends a certification within seconds even while its tests hang in a native call, and
leaves no process behind and a bundle marked interrupted (verdict unknown, exit 130)."""
from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

import psutil
import pytest

from ..support.terminal import HungChild
from .conftest import CLI

pytestmark = [pytest.mark.pulsar, pytest.mark.slow]

REPO = Path(__file__).resolve().parents[2]


def _alive(procs: list[psutil.Process]) -> list[str]:
    left = []
    for proc in procs:
        try:
            if proc.is_running() and proc.status() != psutil.STATUS_ZOMBIE:
                left.append(f"{proc.pid} {' '.join(proc.cmdline())[:160]}")
        except psutil.NoSuchProcess:
            continue
    return left


def _containers_left() -> list[str]:
    from pulsar_conformance.fixtures.deploy.containers import LABEL

    done = subprocess.run(["docker", "ps", "-a", "--format", "{{.Names}} {{.Status}}", "--filter", f"label={LABEL}"],
                          capture_output=True, text=True)
    return done.stdout.splitlines()


@pytest.mark.parametrize("backend", ["local", "containers"])
def test_ctrl_c_ends_a_hung_certify_and_leaves_nothing(tmp_path, backend):
    from pulsar_conformance.fixtures.deploy import docker_engine, processes

    if backend == "containers":
        from pulsar_conformance.fixtures.deploy.containers import docker_available

        from ..support.tools import unavailable

        ok, why = docker_available()
        if not ok:
            unavailable("a Docker engine", why)
        engine_before = docker_engine.ping() is not None
    out = tmp_path / "bundle"
    # a state dir of its own: the run's processes carry it in their marker, other deployments on the
    # machine (a developer's, another test's) do not, and must not count as left behind
    state = (tmp_path / "state").resolve()
    env = {**os.environ, "PYTEST_ADDOPTS": "-p tests.support.hang_plugin", "PULSAR_CONFORMANCE_STATE_DIR": str(state),
           "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))}
    # the geo-replication scenario only: on the local backend smoke runs it last, after a scenario of
    # every protocol (docs/certify.md); the hang needs its session deployment, not the minutes before
    command = [*CLI, "certify", "--profile", "smoke", "--deployment", backend, "--out", str(out), "--json",
               "--select", "geo_replication"]
    with HungChild(command, cwd=REPO, env=env) as child:
        assert child.wait_hung(600), "the tests never reached the deployment:\n" + child.log(40)
        # everything the run started: the pytest child, the brokers, the fault proxy
        started = psutil.Process(child.proc.pid).children(recursive=True)
        # a container's JVM is the engine's child, not ours: found by the suite's marker
        started += [p for p in processes.find_marked(processes.MARKER_PREFIX + str(state)) if p not in started]
        assert any("java" in " ".join(p.cmdline()) for p in started), [p.cmdline()[:3] for p in started]
        if backend == "containers":
            assert _containers_left(), "the run's clusters are not in containers"
        interrupted_at = time.monotonic()
        stdout = child.interrupt(timeout=180)
        seconds = time.monotonic() - interrupted_at
    proc, log = child.proc, child.log()
    # the old certify waited 90 s for a teardown that a blocked child never starts, then left its JVMs
    assert seconds < 90, f"certify took {seconds:.0f} s to stop:\n{log}"
    assert _alive(started) == [], log
    if backend == "containers":
        assert _containers_left() == [], log
        if not engine_before:
            assert docker_engine.ping() is None, "the engine the run started is still running"
    assert proc.returncode == 130, log  # interrupted, distinct from an unknown verdict (2)
    doc = json.loads(stdout)
    assert doc["verdict"] == "unknown"
    summary = json.loads((out / "summary.json").read_text())
    assert summary["interrupted"] is True and "the run was interrupted" in summary["reasons"], summary["reasons"]
    assert (out / "report.html").exists()
