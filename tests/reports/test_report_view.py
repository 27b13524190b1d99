"""The lower half of the report, built offline from recorded runs (tests/reports/recorded_report.py),
as issue 51 point 8 asks it: a coverage section that fits a 1,280 px window with every check in it,
scenario parameters as keys and values, fault letters and marker numbers that the legend under the
pictures names, and the migration plots labelled by the cluster that stored each send. The same page
in headless Chromium: tests/reports/test_screenshot_report.py."""
from __future__ import annotations

import html
import json
import re
import shutil
from pathlib import Path

import pytest

from pulsar_conformance.reports.view import placement, report_view

from . import recorded_report


@pytest.fixture(scope="module")
def page(tmp_path_factory) -> str:
    out = recorded_report.build(tmp_path_factory.mktemp("view") / "bundle")
    return (out / "report.html").read_text()


def section(page: str, start: str, end: str) -> str:
    return page[page.index(start):page.index(end, page.index(start))]


def capture_part(page: str, name: str) -> str:
    """The capture's part of the traffic section: from its heading to the next one."""
    start = page.index(f"<h3>{name} ")
    nxt = [i for i in (page.find("<h3>", start + 4), page.find("<h2", start)) if i > 0]
    return page[start:min(nxt)]


def figure(part: str, plot: str) -> str:
    return re.search(rf'<figure class="plot" id="[^"]*" data-plot="{plot}">(.*?)</figure>', part, re.S).group(1)


def series(svg: str) -> list[str]:
    return [html.unescape(t) for t in re.findall(r'<g class="series"><title>([^<]+)</title>', svg)]


def test_more_checks_than_a_matrix_fits_are_listed_per_requirement_every_one_with_its_verdict(page):
    coverage = section(page, 'id="coverage"', 'id="traffic"')
    # 59 check columns made a table 3,700 px wide: no matrix now, a list
    assert '<table class="matrix"' not in coverage and 'id="coverage-list"' in coverage
    listed = {(r, c, html.unescape(v)) for r, c, v in
              re.findall(r'data-req="([^"]+)" data-check="([^"]+)" data-verdict="([^"]*)"', coverage)}
    wanted = {(rid, c["check"], c["verdict"]) for c in recorded_report.checks() for rid in c["requirements"]}
    assert listed == wanted  # every cell of the matrix it replaces, no more, and no check left out
    # each requirement's checks under the scenario their names begin with, the rest of the name shown
    r16 = re.search(r'<tr data-id="PIP188-R16">(.*?)</tr>', coverage, re.S).group(1)
    assert re.findall(r'data-scenario="([^"]+)"', r16) == ["cluster-migration-java"]
    assert "<code>exclusive/p-new/client-follows-redirect</code>" in r16
    assert 'title="cluster-migration-java/exclusive/p-new/client-follows-redirect"' in r16
    # the requirements no check judged keep their row, said as not run
    assert re.search(r'<tr data-id="PIP188-R06">.*?not run in this profile', coverage, re.S)


def test_a_few_checks_keep_the_matrix_with_each_column_named_in_full(tmp_path):
    few = [c for c in recorded_report.checks() if c["check"].startswith("client-failover/java-controlled/")]
    assert 0 < len(few) <= report_view.MATRIX_COLUMNS
    out = recorded_report.build(tmp_path / "bundle", {"java-controlled": recorded_report.CAPTURES["java-controlled"]},
                                few)
    coverage = section((out / "report.html").read_text(), 'id="coverage"', 'id="traffic"')
    assert 'id="coverage-matrix"' in coverage and 'id="coverage-list"' not in coverage
    matrix = section(coverage, 'id="coverage-matrix"', "</table>")
    assert re.findall(r'<th class="col" title="([^"]+)">', matrix) == sorted(c["check"] for c in few)


def test_checks_group_by_the_scenario_their_name_begins_with():
    groups = report_view.coverage(["spec:cluster-migration[base]", "b/x/y", "a/z", "b/w", "solo", "b/w"])
    assert groups == [{"scenario": "a", "checks": [{"id": "a/z", "name": "z"}]},
                      {"scenario": "b", "checks": [{"id": "b/w", "name": "w"}, {"id": "b/x/y", "name": "x/y"}]},
                      {"scenario": "solo", "checks": [{"id": "solo", "name": "solo"}]},
                      {"scenario": "spec", "checks": [{"id": "spec:cluster-migration[base]",
                                                       "name": "cluster-migration[base]"}]}]
    rows = [{"id": "R1", "verdict": "pass", "checks": ["a/z"]}]
    viewed = report_view.arrange(rows, ["R1"])
    assert viewed["certified"][0]["coverage"] == [{"scenario": "a", "checks": [{"id": "a/z", "name": "z"}]}]
    assert "coverage" not in rows[0]  # the summary's own rows are not changed by the page


def test_scenario_parameters_read_as_keys_and_values_not_python(page):
    traffic = section(page, 'id="traffic"', 'id="spec"')
    params = re.findall(r'<div class="scenario-params" data-capture="([^"]+)">(.*?)</div>\s*<svg', traffic, re.S)
    assert {name for name, _ in params} == set(recorded_report.CAPTURES)
    for name, block in params:
        # no dict or list literal of Python's, no True/False/None
        assert not re.search(r"\{'|\[\{|'\}|\bTrue\b|\bFalse\b|\bNone\b", block), (name, block[:300])
    stranded = dict(params)["stranded-restart"]
    assert "<dt>seed</dt><dd>1</dd>" in stranded
    # a list of records is a table: one row per load, its subscriptions a table of their own
    assert re.search(r"<dt>loads</dt><dd><table class=\"params\"><tr><th>topic</th><th>subs</th><th>rate</th></tr>"
                     r"<tr><td>persistent://mig/stranded-restart/orders</td><td><table class=\"params\">", stranded)
    assert "<td>parked</td><td>Exclusive</td><td>1</td><td>0.2</td><td>yes</td><td>no</td>" in stranded
    failover = dict(params)["java-stale-failure"]
    assert "<dt>secondaries</dt><dd>s1, s2</dd>" in failover and "<dt>failover_delay_ms</dt><dd>2800</dd>" in failover


def test_every_letter_and_number_in_the_pictures_is_named_in_the_legend_and_no_label_is_printed_in_them(page):
    for name in recorded_report.CAPTURES:
        part = capture_part(page, name)
        legend = re.search(r'<div class="muted plot-legend marks"[^>]*>(.*?)</div>\s*(?:<figure|<table)', part, re.S)
        named = set(re.findall(r'data-(?:fault|mark)="([^"]+)"', legend.group(1))) if legend else set()
        drawn = re.findall(r'<text class="mark-label"[^>]*><title>[^<]*</title>([^<]+)</text>', part)
        assert set(drawn) == named, name
        # the timeline no longer prints marker labels at their line: numbers, with the label as a title
        timeline = re.search(r'<svg[^>]*class="timeline".*?</svg>', part, re.S).group(0)
        texts = re.findall(r"<text[^>]*>(?:<title>[^<]*</title>)?([^<]*)</text>", timeline)
        markers = json.loads((recorded_report.CAPTURES[name] / "markers.json").read_text())
        assert not [m["label"] for m in markers if m["label"] in texts], name
    stale = capture_part(page, "java-stale-failure")
    assert re.search(r'<li data-fault="A">A primary killed \(SIGKILL\) … primary started; its port opened \+6 ms after the '
                     r'last refusal \(\+1\.9 s to \+18\.5 s\)</li>', stale)
    assert '<li data-mark="1">1 client primary -&gt; s1 (+5.5 s)</li>' in stale


def _recorded_counts(capture: Path) -> dict[str, int]:
    doc = json.loads((capture / "migration.json").read_text())
    total: dict[str, int] = {}
    for o in doc["topics"].values():
        for cluster, n in o["placement"]["counts"].items():
            total[cluster] = total.get(cluster, 0) + n
    return total


def test_the_namespace_migration_is_seen_in_its_own_plots(page):
    """stranded-restart (a namespace-level migration): every row of its capture says blue, the cluster
    its clients attached through; the plots count the sends by the cluster that stored them, as the
    scenario recorded them in migration.json."""
    part = capture_part(page, "stranded-restart")
    delivery = figure(part, "delivery")
    assert series(delivery) == ["stored on blue", "delivered from blue", "stored on green", "delivered from green"]
    counts = _recorded_counts(recorded_report.CAPTURES["stranded-restart"])
    assert counts == {"blue": 248, "green": 708, "unknown": 0}
    assert "248 stored on blue, 248 delivered from blue, 708 stored on green, 708 delivered from green" in delivery
    assert "migration.json (placed again by acknowledgement order (ledger ids [10] on both clusters))" in delivery
    timeline = re.search(r'<svg[^>]*class="timeline".*?</svg>', part, re.S).group(0)
    assert {"sent, stored on blue", "sent, stored on green", "received from green"} <= set(
        re.findall(r"<polyline[^>]*><title>([^<]+)</title>", timeline))


def test_cluster_level_migrations_by_outcome_json_or_migration_json_and_the_unplaced_said(page):
    java = figure(capture_part(page, "cluster-migration-java"), "delivery")
    assert "where each send was stored is from outcome.json (placement by ledger ids)" in java
    python = figure(capture_part(page, "cluster-migration"), "delivery")
    assert "from migration.json (placed again by ledger ids)" in python
    counts = _recorded_counts(recorded_report.CAPTURES["cluster-migration"])
    assert f"{counts['blue']} stored on blue" in python and f"{counts['green']} stored on green" in python
    # the topic the scenario created through blue after the trigger: its state was not read, so not placed
    assert "sent via blue, not placed" in series(python) and "201 sent via blue, not placed" in python
    # the client-failover captures keep the cluster each client was attached to
    assert "sent via primary" in series(figure(capture_part(page, "java-controlled"), "delivery"))


def test_a_placement_that_disagrees_with_the_recorded_counts_is_not_drawn(tmp_path):
    capture = tmp_path / "stranded"
    shutil.copytree(recorded_report.CAPTURES["stranded-restart"], capture)
    assert placement.stored_on(capture).counts() == {"blue": 248, "green": 708}
    doc = json.loads((capture / "migration.json").read_text())
    topic = next(iter(doc["topics"]))
    doc["topics"][topic]["placement"]["counts"] = {"blue": 300, "green": 656, "unknown": 0}
    (capture / "migration.json").write_text(json.dumps(doc))
    assert placement.stored_on(capture) is None  # nothing placed: the pictures keep the capture's labels
    from pulsar_conformance.reports.view import plots

    delivery = plots.pictures(capture)["figures"][1]
    assert "sent via blue" in delivery["svg"] and "stored on" not in delivery["svg"]


def test_an_outcome_of_another_protocol_places_nothing(tmp_path):
    capture = tmp_path / "secondary-dies"
    shutil.copytree(recorded_report.CAPTURES["secondary-dies"], capture)
    assert (capture / "outcome.json").is_file() and placement.stored_on(capture) is None


def test_a_long_evidence_list_shows_the_failures_first_and_folds_the_passes():
    from pulsar_conformance.reports.view.report_view import evidence_split

    passes = [f"x/{i}/nothing-lost: pass (fine)" for i in range(30)]
    evidence = passes[:10] + ["x/99/nothing-lost: unknown (no events)", "x/7/nothing-lost: fail (lost=5)"] + passes[10:]
    shown, folded = evidence_split(evidence)
    assert shown[0] == "x/7/nothing-lost: fail (lost=5)" and shown[1].endswith("unknown (no events)")
    assert len(shown) == 2 and len(folded) == 30 and set(shown + folded) == set(evidence)
    assert evidence_split(evidence[:5]) == (evidence[:5], [])
