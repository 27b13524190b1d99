"""A PASS says what it certified (issue 51, point 4): the smoke run's banner said PASS beside a red
"2 fail" chip (two SHOULD deviations) and nowhere that it certified 8 of the catalog's 58 requirements.
The banner and certify's verdict line now state certified-of-catalog, and a failed SHOULD is counted
as a deviation, with why the run does not fail on it."""
from __future__ import annotations

import re

from pulsar_conformance.reports.view.report_view import scope, scope_line

from .handmade import make_bundle, row


def _passing_with_a_deviation(where):
    from pulsar_conformance.conformance.profiles import get_profile
    from pulsar_conformance.reports.bundle.verdicts import load_requirements

    catalog = {r.id: r for r in load_requirements()}
    declared = get_profile("cluster-migration").declared(list(catalog.values()))
    should = next(rid for rid in declared if catalog[rid].strength != "MUST")
    rows = [row("m/p/check", rid, "fail" if rid == should else "pass") for rid in declared]
    return should, declared, make_bundle(where, rows, pytest_exit=0, failed_test=False)


def test_the_banner_says_what_was_certified_and_a_deviation_is_no_red_fail(tmp_path):
    should, declared, summary = _passing_with_a_deviation(tmp_path / "b")
    assert summary["verdict"] == "pass", summary["reasons"]
    html = (tmp_path / "b" / "report.html").read_text()
    banner = re.search(r'<div class="banner[^>]*id="run-verdict">(.*?)</div>', html, re.S).group(1)
    text = re.sub(r"<[^>]+>", "", banner)
    catalog = len(summary["requirements"])
    assert text.startswith(f"Verdict: PASS: {len(declared) - 1} of the catalog's {catalog} requirements certified "
                           "on the local deployment"), text
    assert f"1 SHOULD/MAY deviation, not failures: {should}" in text
    counts = re.search(r'<td colspan="5" id="requirement-counts">(.*?)</td>', html, re.S).group(1)
    assert 'data-chip="fail"' not in counts and 'data-chip="deviation"' in counts, counts
    assert "the verdict does not fail on it" in counts
    # the row itself says it
    assert "a deviation (SHOULD): the run does not fail on it" in html or "a deviation (MAY)" in html


def test_a_must_failure_keeps_its_red_chip(tmp_path):
    summary = make_bundle(tmp_path / "b")  # PIP188-R03 (MUST) and PIP188-R15 (SHOULD) failed
    html = (tmp_path / "b" / "report.html").read_text()
    counts = re.search(r'<td colspan="5" id="requirement-counts">(.*?)</td>', html, re.S).group(1)
    assert re.search(r'data-chip="fail">1 fail \(MUST\)', counts), counts
    assert re.search(r'data-chip="deviation"[^>]*>1 deviation<', counts), counts
    assert summary["verdict"] == "fail"


def test_the_scope_counts():
    rows = [{"id": "A", "verdict": "pass", "strength": "MUST"}, {"id": "B", "verdict": "fail", "strength": "SHOULD"},
            {"id": "C", "verdict": "unknown", "strength": "MUST"}, {"id": "D", "verdict": "not run", "strength": "MUST"},
            {"id": "E", "verdict": "pass", "strength": "MUST"}]
    sc = scope(rows, ["A", "B", "C"])
    assert sc["catalog"] == 5 and sc["declared"] == 3 and sc["certified"] == ["A"]  # E passed outside the profile
    assert sc["deviations"] == ["B"] and sc["failed_must"] == [] and sc["unsettled"] == ["C (unknown)"]
    assert sc["chips"] == {"pass": 2, "deviation": 1, "unknown": 1, "not run": 1}
    assert scope_line("unknown", rows, ["A", "B", "C"], "external") == (
        "UNKNOWN: 1 of the catalog's 5 requirements certified on the external deployment (the profile certifies 3 "
        "there; 1 SHOULD/MAY deviation, not failures: B; 1 neither passed nor failed: C (unknown))")
