"""The client-failover profile declares what its live scenarios judge, and refuses a client too
old to fail over before anything starts (exit 64, bad input, with the fix)."""
from __future__ import annotations

import subprocess
import sys
from types import SimpleNamespace

import pytest

from pulsar_conformance.conformance.profiles import get_profile
from pulsar_conformance.errors import EXIT_BAD_INPUT, UsageError
from pulsar_conformance.reports.bundle.verdicts import load_requirements
from pulsar_conformance.reports.runner.certify import _check_client


def test_a_client_without_autoclusterfailover_is_refused_with_the_fix():
    profile = get_profile("client-failover")
    with pytest.raises(UsageError) as refused:
        _check_client(profile, SimpleNamespace(version="3.4.0"))
    assert "3.11.0" in refused.value.problem and "--client-version 3.11.0" in refused.value.fix
    _check_client(profile, SimpleNamespace(version="3.13.0"))  # the control: accepted
    _check_client(get_profile("cluster-migration"), SimpleNamespace(version="3.4.0"))  # PIP-188 runs it


def test_the_profile_certifies_what_its_scenarios_judge():
    declared = set(get_profile("client-failover").declared(load_requirements()))
    assert {"PIP121-R01", "PIP121-R02", "PIP121-R03", "PIP121-R04", "PIP121-R05", "PIP121-R06", "PIP121-R07",
            "PIP121-R08", "PIP121-R09", "PIP121-R10", "PIP121-R11"} == declared
    # every check the scenarios record is declared (the recorder refuses others) and linked by the
    # catalog: tests/reports/test_checks.py


def test_certify_refuses_an_old_client_before_starting(tmp_path):
    """Through the command line, with this environment's client standing in for an old one."""
    done = subprocess.run([sys.executable, "-c",
                           "import sys; from pulsar_conformance.conformance import profiles;"
                           "object.__setattr__(profiles.PROFILES['client-failover'], 'min_client', '99.0.0');"
                           "from pulsar_conformance.cli import main; sys.exit(main())",
                           "certify", "--profile", "client-failover", "--out", str(tmp_path / "b")],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == EXIT_BAD_INPUT, done.stderr[-2000:]
    assert "needs 99.0.0 or later" in done.stderr and "fix:" in done.stderr
    assert not (tmp_path / "b").exists() or not any((tmp_path / "b").iterdir())


def test_the_failover_modules_import_with_a_client_older_than_3_11():
    """Every profile collects conformance/: with pulsar-client 3.4.0 (no ServiceInfoProvider) the
    failover modules must import, or the PIP-188 certification of an old client breaks."""
    code = ("import sys, types; old = types.ModuleType('pulsar'); sys.modules['pulsar'] = old;"
            "import pulsar_conformance.conformance.protocols.client_failover.test_client_failover")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]


def test_certify_refuses_a_java_client_maven_cannot_resolve(tmp_path):
    done = subprocess.run([sys.executable, "-m", "pulsar_conformance", "certify", "--profile", "client-failover",
                           "--java-client-version", "4.2.99", "--out", str(tmp_path / "b")],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == EXIT_BAD_INPUT, done.stderr[-2000:]
    assert "Java client 4.2.99 (org.apache.pulsar:pulsar-client-original) is not on Maven Central" in done.stderr
    assert "fix: pass a released version to --java-client-version" in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "b").exists() or not any((tmp_path / "b").iterdir())
