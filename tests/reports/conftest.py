"""One real certification run for the module: token-protected local clusters standing in for a
vendor's, described by an external deployment file that holds a canary token."""
from __future__ import annotations

import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

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
        lines = ["product: {vendor: Example Vendor, name: Example Streaming, version: '9.9', type: hosted}",
                 "clusters:"]
        for cluster in secured.clusters.values():
            lines += [f"  {cluster.name}:", f"    service_url: {cluster.service_url}",
                      f"    admin_url: {cluster.admin_url}", f"    token: {cluster.token}"]
        config = base / "vendor.yaml"
        config.write_text("\n".join(lines) + "\n")
        out = base / "bundle"
        done = run_cli("certify", "--profile", "smoke", "--deployment", str(config), "--out", str(out), "--json")
    return Path(out), done, canary
