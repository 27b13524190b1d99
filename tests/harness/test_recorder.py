"""The recorder's fairness rules (issue 28), on a throw-away certification run:

- check-safe: a judge that raises leaves its requirements unknown with the error as evidence, and
  the checks after it are still recorded (before: the exception took the test down with no row);
- a configuration hazard turns a failure it explains into unknown, the hazard and its fix kept;
- the junit case carries each requirement's verdict with its source (and findings when failing);
- a requirement taken from another client's code does not fail the test of this client.
"""
from __future__ import annotations

from types import SimpleNamespace

import pytest

from pulsar_conformance.conformance.harness.checks import Check, Checks, UndeclaredCheck
from pulsar_conformance.conformance.harness.hazards import Hazard
from pulsar_conformance.conformance.harness.recorder import Recorder
from pulsar_conformance.conformance.harness.rows import from_judge, judges, row
from pulsar_conformance.conformance.run import CertifyRun, VerdictUnknown

CHECKS = Checks("cluster-migration", "here.py", ("s",), (
    Check("<scenario>/<topic>/<producer>/redirected", ("PIP188-R03",), "redirected"),
    Check("<scenario>/<topic>/<producer>/order", ("PIP188-R01",), "order"),
    Check("<scenario>/<topic>/<producer>/client-follows-redirect", ("PIP188-R16",), "follows"),
    Check("<scenario>/migrated-command-sent", ("PIP188-R03",), "built"),
))


def recorder(tmp_path, checks: Checks = CHECKS, **options) -> Recorder:
    run = CertifyRun(out=tmp_path, profile="t", seed=1)
    node = SimpleNamespace(nodeid="t::test", user_properties=[])
    return Recorder(run, SimpleNamespace(node=node), None, checks, **options)


@judges("PIP188-R01", "PIP188-R03")
def judge_broken(topics: list[str], prefix: str):
    yield row(f"{prefix}/m-1/p-1/redirected", False, "stored 0 sends on green")
    raise KeyError("p-2")  # a judge's own bug, halfway through


def test_a_judge_that_raises_records_unknown_for_its_requirements_and_the_test_goes_on(tmp_path):
    rec = recorder(tmp_path)
    rec.record(judge_broken(["m-1", "m-2"], "s"))  # before: KeyError took the test down here
    rec("s/m-1/p-1/order", True, "seq order kept")  # a later check still gets its row
    raised = next(r for r in rec.rows if r["check"].endswith("/raised"))
    assert raised["check"] == "s/judge_broken/raised" and raised["verdict"] == "unknown"
    assert raised["requirements"] == ["PIP188-R01", "PIP188-R03"]
    assert "raised KeyError: 'p-2'" in raised["evidence"] and "test_recorder.py" in raised["evidence"]
    assert [r["check"] for r in rec.rows] == ["s/m-1/p-1/redirected", "s/judge_broken/raised", "s/m-1/p-1/order"]
    assert len((tmp_path / "checks.jsonl").read_text().splitlines()) == 3
    # the failure it recorded before it raised stands: a failed MUST fails the test
    with pytest.raises(AssertionError, match="product defect"):
        rec.finish()


def test_a_judge_that_raises_before_recording_breaks_the_test_as_unknown(tmp_path):
    @judges("PIP188-R01")
    def traces(prefix: str):
        yield row(f"{prefix}/x", None, str(1 / 0))

    rec = recorder(tmp_path)
    rec.record(traces("s"))
    with pytest.raises(VerdictUnknown, match="s/traces/raised"):
        rec.finish()


def test_a_judge_must_name_requirements_its_protocol_judges(tmp_path):
    @judges("PIP188-R99")
    def x(prefix: str):
        raise ValueError("broken")
        yield

    with pytest.raises(UndeclaredCheck, match="PIP188-R99"):
        recorder(tmp_path).record(x("s"))


HAZARD = Hazard("--mode bad", ("PIP188-R03", "PIP188-R16"), "clients were given no URL they can use",
                "give them one", keeps=("migrated-command-sent",))


def test_a_configuration_hazard_turns_the_failures_it_explains_into_unknown(tmp_path):
    rec = recorder(tmp_path, Checks(**{**CHECKS.__dict__, "hazards": lambda: (HAZARD,)}))
    rec("s/m-1/p-1/client-follows-redirect", False, "stored 0 sends on green")
    rec("s/m-1/p-1/order", False, "seq 3 before seq 2")  # R01: not the hazard's
    rec("s/migrated-command-sent", False, "blue threw building the command")  # the release's own
    follows, order, built = rec.rows
    assert follows["verdict"] == "unknown"
    assert follows["evidence"].startswith("configuration hazard (--mode bad): clients were given no URL")
    assert "fix: give them one" in follows["evidence"] and "stored 0 sends on green" in follows["evidence"]
    assert follows["details"]["hazard"][0]["fix"] == "give them one"
    assert order["verdict"] == "fail" and "hazard" not in order["details"]
    assert built["verdict"] == "fail" and "hazard" not in built["details"]


def test_without_a_hazard_the_same_failure_stands(tmp_path):
    rec = recorder(tmp_path)
    rec("s/m-1/p-1/client-follows-redirect", False, "stored 0 sends on green")
    assert rec.rows[0]["verdict"] == "fail"


def test_the_junit_case_gets_each_requirement_with_its_source_and_findings(tmp_path):
    rec = recorder(tmp_path)
    rec("s/m-1/p-1/redirected", False, "stored 0 sends on green")
    (name, value), = rec.node.user_properties
    assert name == "PIP188-R03" and value.startswith("fail (s/m-1/p-1/redirected); source: the PIP says")
    assert "findings: F-188-4" in value


def test_a_requirement_from_the_cpp_client_does_not_fail_the_java_clients_test(tmp_path):
    from pulsar_conformance.conformance.protocols.client_failover.checks import CHECKS as FAILOVER

    rec = recorder(tmp_path, FAILOVER, client="java")
    rec("client-failover/java-stale-failure/left-dead-secondary", False, "stayed on the dead s2")
    row = rec.rows[0]
    assert row["verdict"] == "fail" and row["details"]["client"] == "java"  # what was observed, kept
    (name, value), = rec.node.user_properties
    assert name == "PIP121-R08" and value.startswith("differs") and "source: the C++ client does" in value
    assert "findings: F-121-2" in value
    rec.finish()  # no product defect: R08 is the C++ client's rule (and a SHOULD)


def test_a_pure_judge_that_raises_leaves_its_check_unknown_and_the_next_check_recorded(tmp_path):
    rec = recorder(tmp_path)

    def broken(doc):
        return doc["missing"]  # a judge's own bug: before, the KeyError took the test down

    rec.record([from_judge("s/migrated-command-sent", broken, {}),
                from_judge("s/m-1/p-1/order", lambda doc: (True, "seq order kept", {"gaps": 0}), {},
                           details={"topic": "m-1"})])
    first, second = rec.rows
    assert (first["check"], first["verdict"]) == ("s/migrated-command-sent", "unknown")
    assert "raised KeyError" in first["evidence"] and "not failed" in first["evidence"]
    assert (second["verdict"], second["details"]["gaps"], second["details"]["topic"]) == ("pass", 0, "m-1")


# issue 47: a check that compares the run with what its requirement's text does not ask for
OBSERVING = Checks("cluster-migration", "here.py", ("s",), (
    Check("<scenario>/<topic>/<producer>/redirected", ("PIP188-R03",), "redirected"),
    Check("<scenario>/<topic>/<producer>/order", ("PIP188-R01",), "order", observes="another implementation"),
))


def test_an_observations_failure_is_evidence_that_differs_not_the_requirements_failure(tmp_path):
    rec = recorder(tmp_path, OBSERVING)
    rec("s/m-1/p-1/order", False, "seq 3 before seq 2")
    row = rec.rows[0]
    assert row["verdict"] == "fail" and row["details"]["observation"] == "another implementation"  # what was seen
    (name, value), = rec.node.user_properties
    assert name == "PIP188-R01" and value.startswith("differs (s/m-1/p-1/order)"), value
    assert "order compares the run with another implementation, which PIP188-R01's text does not ask for" in value
    rec.finish()  # no product defect, though PIP188-R01 is a MUST: the observation is not its verdict
    # a declared check without ``observes`` that fails still fails its MUST
    rec("s/m-1/p-1/redirected", False, "stored 0 sends on green")
    with pytest.raises(AssertionError, match="product defect"):
        rec.finish()


def test_a_hazard_a_judge_observed_is_kept_beside_the_runs_own(tmp_path):
    observed = HAZARD.observed("3 sends dropped")
    rec = recorder(tmp_path, Checks(**{**CHECKS.__dict__, "hazards": lambda: (HAZARD,)}))
    rec("s/m-1/p-1/order", True, "kept", hazard=[observed])  # the run's hazard does not touch R01
    rec("s/m-1/p-1/client-follows-redirect", False, "stored 0 sends on green", hazard=[observed])
    order, follows = rec.rows
    assert order["verdict"] == "pass" and order["details"]["hazard"] == [observed]
    assert follows["verdict"] == "unknown" and follows["details"]["hazard"] == [observed, HAZARD.to_json()]
    assert observed["observed"] == "3 sends dropped" and observed["fix"] == HAZARD.fix
