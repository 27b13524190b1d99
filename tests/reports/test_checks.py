"""Checks are declared once per protocol (conformance/protocols/<p>/checks.py) and the catalog's
``conformance:`` links are held to those declarations: a link that matches no check judging its
requirement is a broken link, a declared check no requirement links is a verdict the report
cannot place, and a recorder refuses a check nobody declared."""
from __future__ import annotations

from types import SimpleNamespace

import pytest

from pulsar_conformance.conformance.harness.checks import Check, Checks, UndeclaredCheck
from pulsar_conformance.conformance.harness.recorder import Recorder
from pulsar_conformance.conformance.run import catalog_requirements
from pulsar_conformance.protocols import PROTOCOLS


@pytest.mark.parametrize("protocol", [p for p in PROTOCOLS if p.checks], ids=lambda p: p.area)
def test_every_catalog_link_is_a_declared_check_and_every_check_is_linked(protocol):
    assert protocol.load_checks().link_problems(catalog_requirements()) == []


def test_a_broken_link_and_an_orphan_check_are_found():
    checks = Checks("a", "here.py", ("s",), (Check("s/<topic>/order", ("A-R1",), "order"),
                                             Check("s/stats", ("A-R2",), "stats")))
    reqs = [SimpleNamespace(id="A-R1", area="a", conformance=["s/<topic>/ordre"]),
            SimpleNamespace(id="A-R2", area="a", conformance=["s/stats"]),
            SimpleNamespace(id="B-R1", area="b", conformance=["elsewhere"])]
    assert checks.link_problems(reqs) == [
        "A-R1: link 's/<topic>/ordre' matches no check of here.py that judges A-R1",
        "s/<topic>/order (A-R1) is declared in here.py but no requirement links it"]


def test_a_recorded_name_takes_its_declared_requirements_or_is_refused():
    checks = Checks("a", "here.py", ("s", "t"), (
        Check("<scenario>/<topic>/order", ("A-R1",), "order"),
        Check("<scenario>/<topic>/<p>/<s>/trace", ("A-R1", "A-R2"), "trace", chosen=True)))
    assert checks.requirements("t/m-1/order") == ["A-R1"]
    assert checks.requirements("s/m-1/p/s/trace", ["A-R2"]) == ["A-R2"]
    for name, chosen, why in [("u/m-1/order", None, "scenario 'u' is not one of"),
                              ("s/m-1/orders", None, "not declared"),
                              ("s/m-1/order", ["A-R2"], "does not let its scenario choose"),
                              ("s/m-1/p/s/trace", None, "pass requirements="),
                              ("s/m-1/p/s/trace", ["A-R3"], "A-R3")]:
        with pytest.raises(UndeclaredCheck, match=why):
            checks.requirements(name, chosen)


def test_the_recorder_writes_the_declared_requirements(tmp_path):
    from pulsar_conformance.conformance.protocols.client_failover.checks import CHECKS
    from pulsar_conformance.conformance.run import CertifyRun

    run = CertifyRun(out=tmp_path, profile="client-failover", seed=1)
    outcome = SimpleNamespace(run_dir=tmp_path / "captures" / "x")
    rec = Recorder(run, SimpleNamespace(node=SimpleNamespace(nodeid="t")), outcome, CHECKS)
    rec("client-failover/kill-primary/failed-over", True, "left the primary")
    assert rec.rows[0]["requirements"] == ["PIP121-R01"]
    with pytest.raises(UndeclaredCheck):
        rec("client-failover/kill-primary/failed-over-typo", True, "")
    assert len(rec.rows) == 1 and len((tmp_path / "checks.jsonl").read_text().splitlines()) == 1
