"""The cluster-migration certification tells a client that follows PIP-188 redirects from one
that cannot, on the same brokers (issue 5, "a suite with teeth").

pulsar-client 3.13.0 (C++ 4.2.0) follows CommandTopicMigrated; 3.4.0 (C++ 3.4.2, protocol
v19) cannot: blue logs "client doesn't support topic migration handling" and the producer
never reaches green. Each run is a real ``certify --profile cluster-migration`` on its own
blue and green; the 3.4.0 one takes its client from a separate environment
(fixtures/client_versions.py).

What the broker itself does (PIP188-R01..R15) is the product's verdict, not this test's: on
Pulsar 4.2.4 a producer whose send is in flight when blue terminates the topic can leave the
topic fenced and never be redirected (docs/findings.md F-188-4), so the 3.13.0 run may fail
PIP188-R03 for a reason that has nothing to do with the client. The client's own MUST,
PIP188-R16, must pass there and fail with 3.4.0.
"""
from __future__ import annotations

import json
import re
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

pytestmark = [pytest.mark.pulsar, pytest.mark.spark]

# The spec checks and mutants of the profile are CI's spec env's job (tox -e spec); run here they
# would only show the same thing again, so both runs narrow the profile to its live scenarios.
LIVE_ONLY = "not test_spec_check and not test_mutants_are_killed"


def _certify(out, *extra) -> tuple[int, dict]:
    command = [sys.executable, "-m", "pulsar_conformance", "certify", "--profile", "cluster-migration",
               "--out", str(out), "--json", *extra]
    rc = subprocess.run(command, timeout=1800, stdout=subprocess.PIPE).returncode
    return rc, json.loads((out / "summary.json").read_text())


class UnexplainedFailure(UserWarning):
    """A broker-side MUST failed that docs/findings.md does not explain: shown in the test report, not a failure."""


def _requirement(summary: dict, rid: str) -> dict:
    return next(r for r in summary["requirements"] if r["id"] == rid)


FINDINGS = Path(__file__).resolve().parents[3] / "docs" / "findings.md"
ROW = re.compile(r"^\| (PIP188-R\d\d) \| (F-188-[\w-]+(?:, F-188-[\w-]+)*) \|", re.M)


def documented_failures() -> dict[str, list[str]]:
    """docs/findings.md's table of the MUSTs a 4.2.4 certification fails: requirement -> findings."""
    text = FINDINGS.read_text()
    table = {rid: findings.split(", ") for rid, findings in ROW.findall(text)}
    for rid, findings in table.items():
        for finding in findings:
            assert f"### {finding} " in text, f"docs/findings.md lists {rid} under {finding}, which has no section"
    return table


def test_the_findings_table_names_real_sections():
    table = documented_failures()
    assert {"PIP188-R03", "PIP188-R16"} <= set(table), table


def test_current_client_follows_redirects(tmp_path):
    rc, summary = _certify(tmp_path / "new", "--select", LIVE_ONLY)
    assert summary["narrowed"]["selected"] == LIVE_ONLY
    r16 = _requirement(summary, "PIP188-R16")
    assert r16["verdict"] == "pass", r16
    assert rc in (0, 1), f"certify could not decide: {summary['reasons']}"
    if rc == 1:  # allowed only for a broker-side MUST that docs/findings.md explains, never the client's
        failed = [r["id"] for r in summary["requirements"] if r["verdict"] == "fail" and r["strength"] == "MUST"]
        assert "PIP188-R16" not in failed and failed, summary["reasons"]
        unexplained = set(failed) - set(documented_failures())
        if unexplained:
            # a warning, not a red CI: what this test asserts is the client's MUST (R16) and that certify decided;
            # a broker-side MUST no finding explains is Pulsar's possible outcome (a stop 54 CI run: blue's broker
            # stopped completing the topic operations one of its ordered executors owned after the namespace
            # migration, so the cluster-level scenario's topics never migrated and R09 failed), to be read and
            # written up from the bundle, never hidden and never a reason to fail the suite (issue 47)
            warnings.warn(f"MUST(s) {sorted(unexplained)} failed and docs/findings.md does not document why: "
                          f"{summary['reasons']}", UnexplainedFailure, stacklevel=1)
    # namespace-level and admin-state requirements do not depend on the fencing race (F-188-4)
    for rid in ("PIP188-R06", "PIP188-R12"):
        assert _requirement(summary, rid)["verdict"] == "pass", _requirement(summary, rid)


# pulsar-client publishes no wheel of 3.4.0 for Python 3.13 (its first there is 3.6.1, which follows the
# redirects since 3.5.0): on 3.13 no client that cannot follow exists to show the teeth with (docs/certify.md)
NO_OLD_CLIENT = sys.version_info >= (3, 13)


# Outside CI (150 s of its hour): CI judges the line blue logs for such a client offline
# (test_vacuous_verdicts.py, test_a_client_blue_could_not_tell_fails_r16_and_shows_r13); run it live with
# `tox -e protocols -- -m outside_ci`
@pytest.mark.outside_ci
@pytest.mark.skipif(NO_OLD_CLIENT, reason="no pulsar-client without TopicMigrated handling has a wheel for "
                                          "Python 3.13 (3.4.0 has none, the first is 3.6.1): run this on 3.11 or 3.12")
def test_pulsar_client_3_4_fails_the_client_must_with_evidence(tmp_path):
    # R16 is judged in every scenario; the cluster-level one with live traffic is enough to show
    # the old client cannot follow, and the other scenarios add nothing about the client.
    rc, summary = _certify(tmp_path / "old", "--client-version", "3.4.0",
                           "--select", "test_cluster_migration_with_live_traffic")
    assert rc == 1, summary["reasons"]
    r16 = _requirement(summary, "PIP188-R16")
    assert r16["verdict"] == "fail", r16
    assert any("could not tell the client (protocol < v20)" in e for e in r16["evidence"]), r16["evidence"]
    assert any("PIP188-R16" in reason for reason in summary["reasons"]), summary["reasons"]
