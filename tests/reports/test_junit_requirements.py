"""requirements.junit.xml: one test case per requirement, so a CI dashboard shows PIP188-R03 failing
rather than a test function; allure results carry the requirements their test judged (issue 34)."""
from __future__ import annotations

import json
import xml.etree.ElementTree as ET

from pulsar_conformance.reports.bundle.junit import requirements_junit

from .handmade import make_bundle, row


def _cases(path) -> dict[str, ET.Element]:
    root = ET.parse(path).getroot()
    return {c.get("name"): c for c in root.iter("testcase")}


def _props(case) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for p in case.iterfind("properties/property"):
        found.setdefault(p.get("name"), []).append(p.get("value"))
    return found


def test_one_case_per_requirement_with_its_verdict_mapped_for_ci(tmp_path):
    rows = [row("m/p/redirected", "PIP188-R03", "fail", "0 sends stored on green"),
            row("m/p/order", "PIP188-R01", "pass", "seq order kept"),
            row("m/p/drained", "PIP188-R02", "unknown", "nothing read from green"),
            row("m/ns-level", "PIP188-R06", "not applicable", "HTTP 405"),
            row("m/once", "PIP188-R15", "fail", "2 duplicates")]
    summary = make_bundle(tmp_path / "b", rows, exclude=("PIP188-R07",))
    cases = _cases(tmp_path / "b" / "requirements.junit.xml")
    # the profile's 15 requirements, each once; the catalog's others were not asked
    assert sorted(cases) == sorted(summary["declared"])
    r03 = cases["PIP188-R03"]
    assert r03.get("classname") == "requirements.cluster-migration"
    failure = r03.find("failure")
    assert failure is not None and failure.get("type") == "MUST"
    assert failure.get("message").startswith("MUST requirement failed: ") and "F-188-4" in failure.get("message")
    assert "m/p/redirected: fail (0 sends stored on green)" in failure.text
    props = _props(r03)
    assert props["id"] == ["PIP188-R03"] and props["level"] == ["MUST"] and props["verdict"] == ["fail"]
    assert any(v.startswith("F-188-4 ") for v in props["finding"])
    # a SHOULD not met is a deviation: skipped with that reason, never a junit failure (issue 51)
    assert cases["PIP188-R15"].find("failure") is None
    should = cases["PIP188-R15"].find("skipped")
    assert should.get("message").startswith("deviation: SHOULD requirement not met") and "2 duplicates" in should.text
    assert _props(cases["PIP188-R15"])["deviation"]
    assert cases["PIP188-R01"].find("failure") is None and cases["PIP188-R01"].find("skipped") is None
    assert "seq order kept" in cases["PIP188-R01"].find("system-out").text
    unknown = cases["PIP188-R02"].find("skipped")
    assert unknown.get("message").startswith("unknown: ") and "nothing read from green" in unknown.get("message")
    lacking = cases["PIP188-R06"].find("skipped")
    assert lacking.get("message").startswith("not applicable: ") and "HTTP 405" in lacking.get("message")
    assert cases["PIP188-R07"].find("skipped").get("message") == "excluded from this run with --exclude"
    assert cases["PIP188-R05"].find("skipped").get("message").startswith("no verdict (not run)")
    root = ET.parse(tmp_path / "b" / "requirements.junit.xml").getroot()
    assert root.get("tests") == "15" and root.get("failures") == "1" and root.get("skipped") == "13"


def test_differs_passes_with_a_note():
    summary = {"profile": "client-failover", "declared": [], "requirements": [
        {"id": "PIP121-R08", "strength": "SHOULD", "area": "client-failover", "verdict": "differs", "text": "t",
         "evidence": ["c/x: differs (java)"]}]}
    case = ET.fromstring(requirements_junit(summary)).find(".//testcase")
    assert case.find("failure") is None and case.find("skipped") is None
    assert case.find("system-out").text.startswith("differs: ")


def test_control_characters_in_evidence_keep_the_file_parseable():
    summary = {"profile": "p", "declared": [], "requirements": [
        {"id": "X-R01", "strength": "MUST", "area": "a", "verdict": "fail", "text": "t",
         "evidence": ["c: fail (broker said \x00\x1b[31mNPE\x07)"]}]}
    case = ET.fromstring(requirements_junit(summary)).find(".//testcase")
    assert "NPE" in case.find("failure").text


def test_allure_results_are_labelled_with_the_requirements_their_test_judged(tmp_path):
    make_bundle(tmp_path / "b")
    allure = tmp_path / "b" / "allure-results"
    judged = json.loads((allure / "0f-result.json").read_text())
    stories = [lb["value"] for lb in judged["labels"] if lb["name"] == "story"]
    assert stories == ["PIP188-R03", "PIP188-R01", "PIP188-R02", "PIP188-R06", "PIP188-R15"]
    assert {"name": "feature", "value": "cluster-migration"} in judged["labels"]
    assert {"name": "requirement", "value": "PIP188-R03 MUST: fail"} in judged["labels"]
    assert {"name": "tag", "value": "cluster_migration"} in judged["labels"]  # allure-pytest's own stay
    other = json.loads((allure / "1a-result.json").read_text())
    assert other["labels"] == []
    # building again does not add the labels twice
    make_bundle(tmp_path / "b")
    again = json.loads((allure / "0f-result.json").read_text())
    assert again["labels"] == judged["labels"]


def test_allure_key_matches_allure_pytest_names():
    from pulsar_conformance.reports.bundle.contents import _allure_key

    assert _allure_key("conformance/protocols/x/test_y.py::test_z[java-1]") == (
        "conformance.protocols.x.test_y#test_z", "test_z[java-1]")
    assert _allure_key("conformance/test_y.py::TestC::test_z") == ("conformance.test_y.TestC#test_z", "test_z")


def _pass_with_deviations(tmp_path):
    """A cluster-migration bundle whose every declared requirement passed but one SHOULD, which failed."""
    from pulsar_conformance.conformance.profiles import get_profile
    from pulsar_conformance.reports.bundle.verdicts import load_requirements

    catalog = {r.id: r for r in load_requirements()}
    declared = get_profile("cluster-migration").declared(list(catalog.values()))
    should = next(rid for rid in declared if catalog[rid].strength != "MUST")
    rows = [row("m/p/check", rid, "fail" if rid == should else "pass", "2 duplicates" if rid == should else "seen")
            for rid in declared]
    return should, make_bundle(tmp_path / "b", rows, pytest_exit=0, failed_test=False)


def test_a_passing_run_with_deviations_has_no_junit_failure(tmp_path):
    """A PASS whose SHOULD requirements were not met once wrote failures="2": CI servers marked the
    passing gate failed. The file's failures are exactly what fails the run."""
    should, summary = _pass_with_deviations(tmp_path)
    assert summary["verdict"] == "pass", summary["reasons"]
    root = ET.parse(tmp_path / "b" / "requirements.junit.xml").getroot()
    assert root.get("failures") == "0" and root.find("testsuite").get("failures") == "0"
    assert not list(root.iter("failure"))
    assert "deviation" in _cases(tmp_path / "b" / "requirements.junit.xml")[should].find("skipped").get("message")


def test_a_run_failed_by_a_test_alone_still_fails_in_junit(tmp_path):
    """A run that fails without a failed MUST case (a test failed) gets a failing ``run`` case, so the
    junit file never passes a failed gate either."""
    summary = {"profile": "smoke", "verdict": "fail", "reasons": ["1 test(s) failed"], "declared": ["X-R01"],
               "requirements": [{"id": "X-R01", "strength": "SHOULD", "area": "x", "verdict": "fail", "text": "t",
                                 "evidence": ["c: fail (e)"]}]}
    root = ET.fromstring(requirements_junit(summary).split("\n", 1)[1])
    assert root.get("failures") == "1"
    (failure,) = root.iter("failure")
    assert "1 test(s) failed" in failure.get("message")
