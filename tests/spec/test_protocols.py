"""The protocol descriptors (pulsar_conformance/protocols/) are the one place a protocol is
added: the spec registry, the pytest markers, the certify profiles and CI's spec runs derive from
them, and each descriptor is complete (every variant of its spec has a CI budget)."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from pulsar_conformance.conformance.profiles import PROFILES
from pulsar_conformance.protocols import PROTOCOLS, markers
from pulsar_conformance.spec.cli import ci_commands
from pulsar_conformance.spec.registry import SPECS

from .conftest import BAD_INPUT

CLI = [sys.executable, "-m", "pulsar_conformance"]


def test_the_registry_profiles_and_markers_come_from_the_descriptors():
    assert set(SPECS) == {p.area for p in PROTOCOLS if p.spec}
    assert set(PROFILES) == {"smoke", "full"} | {p.area for p in PROTOCOLS}
    assert set(PROFILES["full"].areas) == {p.area for p in PROTOCOLS}
    # conformance/conftest.py registers these (it needs the pulsar extras to import, the spec env has none)
    assert set(markers()) == {"smoke", "smoke_local"} | {p.marker for p in PROTOCOLS}
    assert "AREA_MARKERS = markers()" in (Path(__file__).resolve().parents[2] / "conformance" / "conftest.py").read_text()


@pytest.mark.parametrize("protocol", [p for p in PROTOCOLS if p.spec], ids=lambda p: p.area)
def test_ci_and_the_full_profile_check_every_variant_of_every_spec(protocol):
    variants = set(protocol.load_spec().VARIANTS)
    assert {b.variant for b in protocol.ci} == variants, "a variant without a CI budget is never checked"
    assert {r.variant for r in PROFILES["full"].spec_runs if r.spec == protocol.area} == variants
    runs = [c for c in ci_commands() if c[1] == protocol.area]
    assert {c[c.index("--variant") + 1] for c in runs if c[0] == "check"} == variants
    assert any(c[0] == "mutants" for c in runs) == bool(protocol.mutants and protocol.load_spec().MUTANTS)


@pytest.mark.parametrize("protocol", [p for p in PROTOCOLS if p.spec and p.mutants], ids=lambda p: p.area)
def test_certify_runs_each_specs_mutants_at_the_budget_spec_ci_kills_them_at(protocol):
    """The protocol's own profile and the full profile run all its mutants at the descriptor's
    budget, the one ``spec ci`` holds them killed at. The per-protocol profiles once took depth 4:
    a certification of client-failover then failed on three mutants z3 cannot kill that shallow."""
    m = protocol.mutants
    for profile in (PROFILES[protocol.area], PROFILES["full"]):
        runs = [r for r in profile.mutants if r.spec == protocol.area]
        assert [(r.only, r.depth, r.examples, r.steps) for r in runs] == [(None, m.depth, m.examples, m.steps)], (
            profile.name, runs)
    # smoke runs the one mutant a descriptor names, at a small budget (tests/reports/test_smoke_profile.py)
    smoke = [r.only for r in PROFILES["smoke"].mutants if r.spec == protocol.area]
    assert smoke == ([protocol.smoke_mutant] if protocol.smoke_mutant else [])


def test_spec_ci_fails_when_a_run_does_not_pass(monkeypatch, capsys):
    """The summary's status is the worst run's: a run that cannot even start is not a pass."""
    from pulsar_conformance.spec import cli

    monkeypatch.setattr(cli, "ci_commands", lambda only=None: [["check", "no-such-spec"], ["list"]])
    args = type("A", (), {"only": None, "dry_run": False, "json": True})()
    assert cli.cmd_ci(args) == 2
    doc = json.loads(capsys.readouterr().out)
    assert doc["status"] == "unknown" and [r["exit"] for r in doc["runs"]] == [BAD_INPUT, 0]


def test_spec_ci_runs_in_parallel_keeps_the_order_and_the_worst_status(monkeypatch, capsys):
    """Two at a time: the summary lists the runs in their order, with each one's own exit code."""
    from pulsar_conformance.spec import cli

    monkeypatch.setattr(cli, "ci_commands", lambda only=None: [["list"], ["check", "no-such-spec"], ["list"]])
    args = type("A", (), {"only": None, "dry_run": False, "json": True, "jobs": 2})()
    assert cli.cmd_ci(args) == 2
    doc = json.loads(capsys.readouterr().out)
    assert [r["exit"] for r in doc["runs"]] == [0, BAD_INPUT, 0] and doc["runs"][1]["command"].endswith("no-such-spec")
    bad = subprocess.run([*CLI, "spec", "ci", "--jobs", "0"], capture_output=True, text=True)
    assert bad.returncode == BAD_INPUT and "--jobs 0 is outside 1..64" in bad.stderr


def test_spec_ci_dry_run_lists_the_runs():
    done = subprocess.run([*CLI, "spec", "ci", "--dry-run", "--only", "policy-sync", "--json"],
                          capture_output=True, text=True)
    doc = json.loads(done.stdout)
    assert done.returncode == 0 and doc["status"] == "planned" and len(doc["runs"]) == 4, done.stderr
    bad = subprocess.run([*CLI, "spec", "ci", "--only", "nope"], capture_output=True, text=True)
    assert bad.returncode == BAD_INPUT and "choose one of" in bad.stderr
