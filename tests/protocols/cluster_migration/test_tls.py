"""PIP-188's TLS configurations on real brokers (``certify --migration-tls``, issue 19): blue and
green serve TLS with the suite's throw-away CA and the clients speak ``pulsar+ssl`` to blue.

- ``on``: green advertised with its TLS broker URL; a TLS client must follow it (PIP188-R16 pass).
- ``on-no-tls-url``: the same brokers and clients, green advertised without a TLS URL. The broker
  accepts the migration and redirects the producers, but a TLS client has no URL to follow: the
  C++ client logs "Failed to find the migrated broker url" and gives up every send. Refusing the
  plain URL is right; the operator stranded it (docs/findings.md F-188-12). So R16 (and R03, R05,
  which stranded clients cannot show either) are unknown there, never failed, and the bundle names
  the configuration hazard and its fix (issue 28; offline: test_tls_hazard.py).

Which topics a send in flight fences at termination (docs/findings.md F-188-4) varies from run
to run in both, so R03 and R05 are not asserted here.
"""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

pytestmark = [pytest.mark.pulsar, pytest.mark.spark]

SCENARIO = "test_cluster_migration_with_live_traffic"


def _certify(out, mode: str) -> tuple[int, dict]:
    command = [sys.executable, "-m", "pulsar_conformance", "certify", "--profile", "cluster-migration",
               "--migration-tls", mode, "--select", SCENARIO, "--out", str(out), "--json"]
    rc = subprocess.run(command, timeout=1200, stdout=subprocess.PIPE).returncode
    return rc, json.loads((out / "summary.json").read_text())


def _r16(summary: dict) -> dict:
    return next(r for r in summary["requirements"] if r["id"] == "PIP188-R16")


def test_a_tls_client_follows_greens_tls_url(tmp_path):
    rc, summary = _certify(tmp_path / "on", "on")
    assert summary["configuration"] == {"migration_tls": "on"} and "--migration-tls on" in summary["command"]
    r16 = _r16(summary)
    assert r16["verdict"] == "pass", r16
    assert all("TLS mode on: clients on pulsar+ssl, green advertised with its TLS broker URL" in e
               for e in r16["evidence"]), r16["evidence"]
    # one scenario of the profile: a run with no failing MUST is unknown for what the others judge
    assert rc in (0, 1) or (rc == 2 and any(r.startswith("narrowed:") for r in summary["reasons"])), summary["reasons"]


# Outside CI (110 s of its hour: the stranded clients wait out the 40 s drain): CI judges this observation offline
# (test_tls_hazard.py, the same rows); run it live with `tox -e protocols -- -m outside_ci` (docs/cluster-migration.md)
@pytest.mark.outside_ci
def test_without_a_tls_url_the_stranded_tls_client_is_a_configuration_hazard_not_a_failure(tmp_path):
    out = tmp_path / "no-url"
    rc, summary = _certify(out, "on-no-tls-url")
    r16 = _r16(summary)
    assert r16["verdict"] == "unknown", r16  # was: fail, charged to the client
    assert any("stored 0 sends on green" in e and "without its TLS broker URL" in e for e in r16["evidence"]), r16
    assert [h["name"] for h in r16["hazards"]] == ["--migration-tls on-no-tls-url"]
    hazard = next(r for r in summary["reasons"] if r.startswith("configuration hazard (--migration-tls on-no-tls-url"))
    assert "fix: advertise green's brokerServiceUrlTls" in hazard
    verdicts = {r["id"]: r["verdict"] for r in summary["requirements"]}
    assert all(verdicts[q] != "fail" for q in ("PIP188-R03", "PIP188-R05", "PIP188-R16")), verdicts
    assert rc != 0, summary["reasons"]  # what the stranded clients could not show is unknown, never a pass
    assert 'id="hazards"' in (out / "report.html").read_text()
    # the client's own words, kept in the bundle: it was told only the plain URL and ignored it
    logs = "".join(p.read_text(errors="replace") for p in (out / "allure-results").glob("*-attachment.txt"))
    assert "Failed to find the migrated broker url" in logs
