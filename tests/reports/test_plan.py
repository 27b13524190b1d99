"""``plan`` (issue 32): per requirement, judged / partly / not judged on an external deployment and
what is missing (role, fault command, broker setting, irreversible scenario) with the fix; broker
settings come from the runtime configuration through an allow-list, never a secret setting's value."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from pulsar_conformance.conformance.profiles import PROFILES
from pulsar_conformance.fixtures.deploy.external import load_external
from pulsar_conformance.reports.runner.plan import make_plan, text

from ..support.loopback import admin_stub

SECRET = "brokerClientSecret-CANARY-4f1e"


@pytest.fixture
def admin():
    runtime = {"clusterMigrationCheckDurationSeconds": "0", "brokerClientAuthenticationParameters": SECRET,
               "tokenSecretKey": "data:;base64," + SECRET}
    state = {"status": 200}

    def answer(path: str) -> tuple[int, str]:
        return state["status"], json.dumps(runtime) if path.endswith("/configuration/runtime") else "4.2.4"

    with admin_stub(answer) as port:
        yield port, state


def _file(tmp_path, port, extra=""):
    path = tmp_path / "d.yaml"
    clusters = "".join(f"  {n}: {{service_url: 'pulsar://127.0.0.1:1', admin_url: 'http://127.0.0.1:{port}'}}\n"
                       for n in ("us-east", "us-west", "eu"))
    path.write_text(f"clusters:\n{clusters}roles: {{blue: us-east, green: us-west, remote: eu}}\n{extra}")
    return path


def test_a_two_role_file_without_faults_leaves_fault_scenarios_partly_judged(tmp_path, admin):
    port, _ = admin
    plan = make_plan(load_external(_file(tmp_path, port), check=False), PROFILES["geo-replication"])
    assert {r["status"] for r in plan["requirements"]} == {"partly"}
    what = " ".join(m["what"] for r in plan["requirements"] for m in r["missing"])
    assert "fault 'cut' has no command for us-east -> us-west" in what


def test_faults_given_make_it_judged(tmp_path, admin):
    port, _ = admin
    faults = ("faults:\n" + "".join(f"  {a}:\n    link:\n      {b}: {{cut: {{argv: [/bin/true]}}, heal: {{argv: [/bin/true]}}}}\n"
                                    for a, b in (("us-east", "us-west"), ("us-west", "us-east"))))
    plan = make_plan(load_external(_file(tmp_path, port, faults), check=False), PROFILES["geo-replication"])
    assert plan["counts"] == {"judged": 2, "partly": 0, "not judged": 0}


def test_broker_settings_are_read_through_an_allow_list_and_secrets_never_shown(tmp_path, admin):
    port, _ = admin
    plan = make_plan(load_external(_file(tmp_path, port), check=False), PROFILES["cluster-migration"])
    shown = json.dumps(plan) + text(plan)
    assert SECRET not in shown and "brokerClientAuthenticationParameters" not in shown
    assert plan["settings"]["us-east"] == {"clusterMigrationCheckDurationSeconds": "0"}
    assert "clusterMigrationCheckDurationSeconds on us-east is '0'" in shown
    # wanted on blue's cluster alone: green and the third region keep the default (the local fixtures set it on blue)
    assert "on us-west is" not in shown and "on eu is" not in shown
    # irreversible scenarios: deselected unless allowed, and the plan says so
    assert "irreversible scenario(s) deselected" in shown and "--allow-irreversible" in shown
    allowed = make_plan(load_external(_file(tmp_path, port), check=False), PROFILES["cluster-migration"],
                        allow_irreversible=True)
    assert "irreversible" in " ".join(allowed["creates"])


def test_a_runtime_configuration_refused_leaves_the_setting_unknown_with_the_reason(tmp_path, admin):
    port, state = admin
    state["status"] = 403
    plan = make_plan(load_external(_file(tmp_path, port), check=False), PROFILES["cluster-migration"])
    assert "needs a super-user role" in text(plan)


def test_missing_roles_are_not_judged(tmp_path, admin):
    port, _ = admin
    deployment = load_external(_file(tmp_path, port), check=False)
    plan = make_plan(deployment, PROFILES["client-failover"], read_settings=False)
    assert plan["counts"]["judged"] == 0 and "role primary maps to no cluster" in text(plan)
    plan = make_plan(deployment, PROFILES["metadata-migration"], read_settings=False)
    assert plan["counts"]["not judged"] == len(plan["requirements"]) > 0
    assert "role zeta maps to no cluster" in text(plan)


def test_a_metadata_migration_asks_its_components_faults_and_is_irreversible(tmp_path, admin):
    """PIP-454 on an operator's cluster: the target Oxia's kill and start are the oxia component's commands
    (``oxia.kill``), and the migration is deselected without --allow-irreversible, saying what it changes."""
    port, _ = admin
    faults = ("faults:\n  us-east:\n    cluster: {kill: {argv: [/bin/true]}, start: {argv: [/bin/true]}, "
              "cutover: {argv: [/bin/true]}}\n    oxia: {kill: {argv: [/bin/true]}}\n")
    path = _file(tmp_path, port, faults).read_text().replace("blue: us-east", "zeta: us-east, blue: us-east")
    (tmp_path / "d.yaml").write_text(path)
    deployment = load_external(tmp_path / "d.yaml", check=False)
    plan = make_plan(deployment, PROFILES["metadata-migration"], read_settings=False)
    said = text(plan)
    assert "fault 'oxia.start' has no command for us-east" in said and "oxia: start: {argv" in said
    assert "oxia.kill'" not in said and "irreversible scenario(s) deselected" in said
    allowed = make_plan(deployment, PROFILES["metadata-migration"], read_settings=False, allow_irreversible=True)
    assert any("a metadata store migration of us-east" in c for c in allowed["creates"])
    status = {r["requirement"]: r["status"] for r in allowed["requirements"]}
    assert status["PIP454-R11"] == "not judged" and status["PIP454-R01"] == "partly"  # one migration a run
    assert "cannot be migrated again from scratch" in text(allowed)


def test_the_command_prints_json(tmp_path, admin):
    port, _ = admin
    done = subprocess.run([sys.executable, "-m", "pulsar_conformance", "plan", "--deployment",
                           str(_file(tmp_path, port)), "--profile", "geo-replication", "--json"],
                          capture_output=True, text=True, timeout=120)
    # a plan in which some requirement would be unknown (partly judged: the cut GEO-R02 needs cannot run) exits 2
    assert done.returncode == 2, done.stderr
    doc = json.loads(done.stdout)
    assert doc["roles"] == {"blue": "us-east", "green": "us-west"} and doc["counts"]["partly"] == 2
