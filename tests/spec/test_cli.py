"""The spec commands honour the CLI contract: one JSON document, exit codes 0/1/2, and bad input
its own code (EXIT_BAD_INPUT) with the problem and its fix."""
from __future__ import annotations

import json
import subprocess
import sys

from .conftest import BAD_INPUT


def run(*args):
    proc = subprocess.run([sys.executable, "-m", "pulsar_conformance", *args], capture_output=True, text=True, timeout=600)
    return proc.returncode, proc.stdout, proc.stderr


def test_list_json_is_one_document():
    code, out, _ = run("spec", "list", "--json")
    assert code == 0
    doc = json.loads(out)
    names = {s["name"] for s in doc["specs"]}
    assert {"client-failover", "policy-sync"} <= names
    limits = {s["name"]: s["constant_limits"] for s in doc["specs"]}
    assert limits["client-failover"]["SECONDARIES"] == [1, 4]


def test_unknown_spec_is_bad_input_with_a_fix():
    code, out, _ = run("spec", "check", "no-such-spec", "--json")
    assert code == BAD_INPUT
    doc = json.loads(out)
    assert "no-such-spec" in doc["error"] and "spec list" in doc["fix"]


def test_bad_constant_is_bad_input():
    code, _, err = run("spec", "check", "client-failover", "--const", "SECONDARIES=x")
    assert code == BAD_INPUT and "NAME=INTEGER" in err


def test_unknown_variant_is_bad_input():
    code, _, err = run("spec", "explore", "policy-sync", "--variant", "as-dreamed")
    assert code == BAD_INPUT and "as-proposed" in err


def test_check_json_reports_engines_and_exit_0():
    code, out, _ = run("spec", "check", "client-failover", "--json", "--depth", "5", "--examples", "30")
    assert code == 0, out
    doc = json.loads(out)
    assert doc["ok"] is True and set(doc["engines"]) == {"explore", "z3", "hypothesis"}


def test_a_surviving_mutant_fails_the_mutants_command(monkeypatch):
    # a mutant whose claim is wrong must not count as killed: run one that breaks
    # something else than what we pretend it breaks
    from pulsar_conformance.spec.core.check import Budget
    from pulsar_conformance.spec.core.model import Mutant
    from pulsar_conformance.spec.core.mutants import run_mutants
    from pulsar_conformance.spec.protocols.client_failover import ClientFailover

    class Lying(ClientFailover):
        MUTANTS = (Mutant("switch-without-probe", "claims the wrong invariant", ("escape_dead_secondary",), "cpp"),)

    class Honest(ClientFailover):  # the control: the same mutant, claiming what it does break
        MUTANTS = (Mutant("switch-without-probe", "claims what it breaks", ("switch_only_to_reachable",), "cpp"),)

    budget = Budget(depth=6, examples=40, steps=30)
    # judged on the mutant's own row: with a single mutant, "ok" is false anyway (the coverage
    # table has invariants no mutant breaks), so it could not tell a kill from a survival
    (lying,) = run_mutants(Lying, budget)["mutants"]
    assert lying["killed"] is False and lying["breaks_what_it_claims"] is False, lying
    (honest,) = run_mutants(Honest, budget)["mutants"]
    assert honest["killed"] is True and honest["breaks_what_it_claims"] is True, honest
    assert honest["z3"]["broke"] == honest["hypothesis"]["broke"] == ["switch_only_to_reachable"]
