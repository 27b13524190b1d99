"""F-188-12 as a configuration hazard (issue 28), offline: in ``--migration-tls on-no-tls-url`` the
operator migrated blue to a green advertised without its TLS broker URL while every client speaks
TLS. The C++ client refuses the plain URL (rightly) and stays on blue. What the live run recorded
(blue redirected p-1, which then stored 0 sends on green) used to fail PIP188-R16 (the client's
MUST); it is unknown now, with the hazard and its fix in the row. The same observation in the
default mode still fails R16, and blue failing to build the command (F-188-13) is the release's own
failure in either mode.
"""
from __future__ import annotations

from types import SimpleNamespace

import pytest

from pulsar_conformance.conformance.harness.recorder import Recorder
from pulsar_conformance.conformance.protocols.cluster_migration import tls_modes
from pulsar_conformance.conformance.protocols.cluster_migration.checks import CHECKS
from pulsar_conformance.conformance.protocols.cluster_migration.judge import judge_clients
from pulsar_conformance.conformance.run import CertifyRun

TOPIC = "persistent://mig/live/exclusive"
BLUE_LOG = "INFO redirect migrated producer to topic persistent://mig/live/exclusive: producerName = p-1, ...\n"
UNBUILT = "java.lang.NullPointerException\n\tat CommandTopicMigrated.setBrokerServiceUrlTls(...)\n"


def _recorded(tmp_path, monkeypatch, mode: str, log: str = BLUE_LOG) -> dict[str, dict]:
    monkeypatch.setenv(tls_modes.ENV, mode)
    rec = Recorder(CertifyRun(out=tmp_path, profile="cluster-migration", seed=1),
                   SimpleNamespace(node=SimpleNamespace(nodeid="t", user_properties=[])), None, CHECKS)
    stranded = SimpleNamespace(name="p-1", on_blue=300, on_green=0, send_errors=1501)
    rec.record(judge_clients({TOPIC: SimpleNamespace(placement=SimpleNamespace(problems=[]), producers=[stranded])},
                             log, "cluster-migration", tls=tls_modes.evidence()))
    rec("cluster-migration/new-producer-via-blue", False, "a producer created through blue timed out")
    return {r["check"].rsplit("/", 1)[-1]: r for r in rec.rows}


def test_a_tls_client_stranded_by_a_missing_tls_url_is_a_configuration_hazard(tmp_path, monkeypatch):
    rows = _recorded(tmp_path, monkeypatch, "on-no-tls-url")
    follows, via_blue = rows["client-follows-redirect"], rows["new-producer-via-blue"]
    for row in (follows, via_blue):
        assert row["verdict"] == "unknown", row  # was: fail (R16, R05)
        assert row["evidence"].startswith("configuration hazard (--migration-tls on-no-tls-url)")
        assert "fix: advertise green's brokerServiceUrlTls" in row["evidence"]
        hazard, = row["details"]["hazard"]
        assert hazard["requirements"] == ["PIP188-R03", "PIP188-R05", "PIP188-R16"]
    assert "stored 0 sends on green" in follows["evidence"]  # what was observed is kept


@pytest.mark.parametrize("mode", ["off", "on"])
def test_in_the_other_modes_the_same_observation_fails_r16(tmp_path, monkeypatch, mode):
    rows = _recorded(tmp_path, monkeypatch, mode)
    assert rows["client-follows-redirect"]["verdict"] == "fail"
    assert "hazard" not in rows["client-follows-redirect"]["details"]


def test_blue_failing_to_build_the_command_stays_the_releases_failure(tmp_path, monkeypatch):
    rows = _recorded(tmp_path, monkeypatch, "on-no-tls-url", BLUE_LOG + UNBUILT)
    assert rows["migrated-command-sent"]["verdict"] == "fail"  # F-188-13, PIP188-R03
    assert rows["client-follows-redirect"]["verdict"] == "unknown"  # never told: not judged (as before)
