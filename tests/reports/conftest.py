"""One real certification run for the module: token-protected local clusters standing in for a
vendor's, described by an external deployment file that holds a canary token."""
from __future__ import annotations

import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from ..support.vendor import vendor_file

CLI = [sys.executable, "-m", "pulsar_conformance"]


def run_cli(*args: str, timeout: float = 1800) -> subprocess.CompletedProcess:
    return subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=timeout)


@pytest.fixture(scope="session")
def vendor_run(tmp_path_factory):
    """(bundle dir, completed process, canary token) of ``certify --profile smoke --deployment FILE``."""
    from pulsar_conformance.fixtures.deploy import start_local

    base = tmp_path_factory.mktemp("vendor")
    with start_local(["blue", "green"], auth="token", heap_mb=384,
                     name=f"reports-{os.getpid()}-{uuid.uuid4().hex[:6]}") as secured:
        canary = secured.clusters["blue"].token
        config = vendor_file(base / "vendor.yaml", secured, lambda c: {
            "service_url": c.service_url, "admin_url": c.admin_url, "token": c.token})
        out = base / "bundle"
        done = run_cli("certify", "--profile", "smoke", "--deployment", str(config), "--out", str(out), "--json")
    return Path(out), done, canary
