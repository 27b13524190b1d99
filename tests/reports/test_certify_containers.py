"""``certify --deployment containers --profile smoke`` on containers built on this machine: the
same verdicts as the module's run on local brokers, and nothing left behind (issue 13)."""
from __future__ import annotations

import json
import subprocess

import pytest

from pulsar_conformance.fixtures.deploy import docker_engine
from pulsar_conformance.fixtures.deploy.containers import LABEL, docker_available
from pulsar_conformance.reports.bundle.compare import compare
from pulsar_conformance.reports.bundle.reading import load

from ..support.tools import unavailable
from .conftest import run_cli

pytestmark = [pytest.mark.docker, pytest.mark.pulsar, pytest.mark.spark]


def test_smoke_on_containers_passes_as_on_local_brokers(vendor_run, tmp_path):
    ok, why = docker_available()
    if not ok:
        unavailable("a Docker engine", why)
    engine_before = docker_engine.ping() is not None
    out = tmp_path / "bundle"
    done = run_cli("certify", "--profile", "smoke", "--deployment", "containers", "--out", str(out), "--json")
    summary = json.loads((out / "summary.json").read_text())
    assert done.returncode == 0 and summary["verdict"] == "pass", (summary["reasons"], done.stderr[-3000:])
    assert summary["deployment"] == "containers" and summary["versions"]["pulsar"]
    identity = json.loads((out / "deployment.json").read_text())
    assert identity["deployment"]["image"].startswith("pulsar-conformance/pulsar:"), identity
    # the same requirements decided the same way as on the local brokers of the vendor run
    local = load(str(vendor_run[0]))
    doc = compare([local, load(str(out))])
    decided = {r["id"]: r["verdicts"] for r in doc["requirements"] if r["verdicts"][0] in ("pass", "fail")}
    assert decided and all(v[0] == v[1] for v in decided.values()), decided
    left = subprocess.run(["docker", "ps", "-a", "-q", "--filter", f"label={LABEL}"], capture_output=True, text=True)
    assert not left.stdout.split(), "containers left behind"
    if not engine_before:
        assert docker_engine.ping() is None, "the engine certify started is still running"
