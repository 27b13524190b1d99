"""releases: the per-release, per-requirement table from bundles, --repeat and --matrix folders.

Built from small summary.json files written here (the format certify writes, the series' summary by
reports/bundle/verdicts.aggregate as certify's series does); no broker. A verdict that differs between releases
is a release difference only with one suite commit, the same options and agreeing repeated runs;
malformed input exits 64 naming the field. The real bundles under /work/runs are read when present."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from pulsar_conformance import protocols
from pulsar_conformance.cli import main
from pulsar_conformance.protocols import PROTOCOLS, Protocol, ProtocolOption, protocol_options
from pulsar_conformance.reports.runner.series import aggregate
from pulsar_conformance.reports.view.releases_table import version_key

ROOT = Path(__file__).resolve().parents[2]

FINDING = {"id": "F-188-4", "title": "A send in flight at termination can fence the topic for good",
           "href": "docs/findings.md#f-188-4-a-send"}
DECLARED = ["PIP188-R03", "PIP188-R06"]


def _summary(pulsar: str, verdicts: dict, *, seed: int = 1, commit: str | None = "abc123", profile="cluster-migration",
             select: str = "test_namespace_level_migration", client: str = "3.13.0") -> dict:
    rows = [{"id": rid, "strength": "MUST", "text": f"{rid} text", "verdict": v, "evidence": [f"{rid} {v}"],
             "findings": [dict(FINDING)] if rid == "PIP188-R03" else []}
            for rid, v in {"PIP121-R01": "not run", **verdicts}.items()]
    return {"format": "pulsar-conformance-certification/1", "run_id": f"r-{pulsar}-{seed}", "profile": profile,
            "verdict": "fail" if "fail" in verdicts.values() else "pass", "reasons": [], "seed": seed,
            "versions": {"suite": "0.1.0", "suite_commit": commit, "pulsar": pulsar, "pulsar_client_python": client,
                         "pulsar_client_java": None},
            "configuration": {"migration_tls": "off"}, "declared": DECLARED,
            "command": f"pulsar-conformance certify --profile {profile} --select {select} --pulsar-version {pulsar} "
                       f"--out /x --seed {seed}",
            "requirements": rows}


def _write(where: Path, summary: dict) -> Path:
    where.mkdir(parents=True, exist_ok=True)
    (where / "summary.json").write_text(json.dumps(summary))
    return where


def _series(where: Path, runs: list[dict]) -> Path:
    """A certify --repeat folder: run-i/ bundles and the summary over them, as reports/runner/series.py writes it."""
    members = [(f"run-{i}", _write(where / f"run-{i}", s) and s) for i, s in enumerate(runs, 1)]
    return _write(where, aggregate(members, runs[0]["profile"], "series"))


@pytest.fixture(autouse=True)
def bundle_findings(monkeypatch, tmp_path):
    """The tables below link what their bundles recorded (FINDING): as an install without docs/ does. The
    checkout's docs/findings.md, which a table links where it exists, is test_findings_are_the_checkouts_own's."""
    from pulsar_conformance.reports.view import releases_table
    monkeypatch.setattr(releases_table, "FINDINGS_DOC", tmp_path / "no-checkout" / "docs" / "findings.md")


def test_findings_are_the_checkouts_own(tmp_path, monkeypatch):
    """With docs/findings.md beside the suite, a failing cell links the findings it names for the requirement
    now, not the ones its bundle recorded at its commit: a finding written after a sweep explains its cells."""
    from pulsar_conformance.conformance.harness import findings
    from pulsar_conformance.reports.view import releases_table
    monkeypatch.setattr(releases_table, "FINDINGS_DOC", findings.DOC)
    bundle = _write(tmp_path / "b", _summary("3.0.0", {"PIP188-R03": "fail", "PIP188-R06": "pass"}))
    rc, doc = _releases(bundle, out=tmp_path / "table")
    assert rc == 0
    r03, r06 = _cells(doc, "PIP188-R03")[0], _cells(doc, "PIP188-R06")[0]
    # the bundle recorded F-188-4 only; docs/findings.md now names F-188-13 too, and F-188-4's race is not 3.0.0's
    # (its fence there is F-188-13's, and F-188-4's scope says so): the cell links what holds on 3.0.0
    assert [f["id"] for f in r03["findings"]] == ["F-188-13"]
    assert "F-188-4" in [f["id"] for f in findings.for_requirement("PIP188-R03")]
    assert r06["findings"] == []  # a pass links nothing
    assert all((tmp_path / "table" / f["href"].split("#")[0]).resolve() == findings.DOC for f in r03["findings"])


def _releases(*args, out: Path) -> tuple[int, dict]:
    import contextlib
    import io

    stdout = io.StringIO()
    with contextlib.redirect_stdout(stdout):
        rc = main(["releases", *map(str, args), "--out", str(out), "--json"])
    return rc, json.loads(stdout.getvalue())


def _cells(doc: dict, rid: str, profile: str = "cluster-migration") -> list[dict]:
    group = next(g for g in doc["profiles"] if g["profile"] == profile)
    return next(r for r in group["rows"] if r["id"] == rid)["cells"]


def test_a_difference_over_agreeing_runs_of_one_suite_commit_is_a_release_difference(tmp_path):
    old = _series(tmp_path / "old", [_summary("4.0.1", {"PIP188-R03": "pass", "PIP188-R06": "fail"}, seed=s)
                                     for s in (1, 2, 3)])
    new = _series(tmp_path / "new", [_summary("4.2.4", {"PIP188-R03": "pass", "PIP188-R06": "pass"}, seed=s)
                                     for s in (1, 2, 3)])
    rc, doc = _releases(new, old, out=tmp_path / "table")
    assert rc == 0, doc
    group = doc["profiles"][0]
    assert [c["label"] for c in group["columns"]] == ["pulsar 4.0.1", "pulsar 4.2.4"]  # sorted by release
    r06 = _cells(doc, "PIP188-R06")
    assert [c["text"] for c in r06] == ["fail 3/3", "pass 3/3"]
    assert all(c.get("release_difference") for c in r06) and r06[0]["against"] == ["pulsar 4.2.4"], r06
    assert group["release_differences"] == ["PIP188-R06"] and group["other_differences"] == []
    assert not any(c.get("reasons") or c.get("release_difference") for c in _cells(doc, "PIP188-R03"))
    # a requirement the profile neither declares nor ran is not a row
    assert [r["id"] for r in group["rows"]] == ["PIP188-R03", "PIP188-R06"]
    md = (tmp_path / "table" / "releases.md").read_text()
    # no finding names R06: the failing cell says so (issue 47)
    assert "| PIP188-R06 | MUST | fail 3/3 _no finding explains this cell_ **release difference** (vs pulsar 4.2.4) |" \
        in md, md
    page = (tmp_path / "table" / "releases.html").read_text()
    assert "release-difference" in page and "<script" not in page and "http" not in page.replace("http-equiv", "")


@pytest.mark.parametrize("change, reason", [
    ({"commit": "def456"}, "other suite commit"),
    ({"select": "test_cluster_level_migration"}, "other options"),
    ({"client": "3.5.0"}, "pulsar and client differ"),
    ({"commit": None}, "suite commit not recorded"),
])
def test_a_difference_something_else_explains_is_marked_not_called_a_release_difference(tmp_path, change, reason):
    old = _series(tmp_path / "old", [_summary("4.0.1", {"PIP188-R06": "fail"}, seed=s) for s in (1, 2)])
    new = _series(tmp_path / "new", [_summary("4.2.4", {"PIP188-R06": "pass"}, seed=s, **change) for s in (1, 2)])
    rc, doc = _releases(old, new, out=tmp_path / "table")
    assert rc == 0
    cells = _cells(doc, "PIP188-R06")
    assert not any(c.get("release_difference") for c in cells), cells
    # a missing commit is the new column's own; the old one names it on the other side ("pulsar 4.2.4: ...")
    assert all(any(reason in said for said in c["reasons"]) for c in cells), cells
    assert doc["profiles"][0]["other_differences"] == ["PIP188-R06"]
    assert f"_not a release difference: {reason}" in (tmp_path / "table" / "releases.md").read_text()


def test_one_run_or_runs_that_disagree_is_no_release_difference(tmp_path):
    single = _write(tmp_path / "single", _summary("3.2.0", {"PIP188-R03": "fail", "PIP188-R06": "pass"}))
    flaky = _series(tmp_path / "flaky", [_summary("3.3.2", {"PIP188-R03": v, "PIP188-R06": "fail"}, seed=s)
                                         for s, v in ((1, "pass"), (2, "fail"), (3, "pass"))])
    steady = _series(tmp_path / "steady", [_summary("4.2.4", {"PIP188-R03": "pass", "PIP188-R06": "pass"}, seed=s)
                                           for s in (1, 2, 3)])
    rc, doc = _releases(steady, flaky, single, out=tmp_path / "table")
    assert rc == 0
    r03 = _cells(doc, "PIP188-R03")
    assert [c["text"] for c in r03] == ["fail 1/1", "fail 1/3, pass 2/3", "pass 3/3"]
    assert "1 run" in r03[0]["reasons"] and "runs disagree" in r03[1]["reasons"], r03
    # steady's own runs agree; what stands in the way is on the other side, and said so
    assert not r03[2].get("release_difference") and "pulsar 3.2.0: 1 run" in r03[2]["reasons"], r03
    r06 = _cells(doc, "PIP188-R06")  # 3.3.2 fail 3/3 against 4.2.4 pass 3/3: agreeing runs on both sides
    assert r06[1]["release_difference"] and r06[2]["release_difference"] and "1 run" in r06[0]["reasons"]


def test_a_matrix_folder_gives_one_column_per_cell_sorted_by_release(tmp_path):
    matrix = tmp_path / "matrix"
    cells = {}
    for pulsar in ("5.0.0", "3.10.0", "5.0.0-M1", "3.2.0"):
        cells[f"pulsar-{pulsar}"] = aggregate(
            [(f"run-{s}", _write(matrix / f"pulsar-{pulsar}" / f"run-{s}",
                                 _summary(pulsar, {"PIP188-R03": "fail" if pulsar == "3.2.0" else "pass"}, seed=s))
              and _summary(pulsar, {"PIP188-R03": "fail" if pulsar == "3.2.0" else "pass"}, seed=s)) for s in (1, 2)],
            "cluster-migration", pulsar)
        _write(matrix / f"pulsar-{pulsar}", cells[f"pulsar-{pulsar}"])
    _write(matrix, aggregate(list(cells.items()), "cluster-migration", "matrix"))
    rc, doc = _releases(matrix, out=tmp_path / "table")
    assert rc == 0
    group = doc["profiles"][0]
    assert [c["label"] for c in group["columns"]] == ["pulsar 3.2.0", "pulsar 3.10.0", "pulsar 5.0.0-M1", "pulsar 5.0.0"]
    assert [c["runs"] for c in group["columns"]] == [2, 2, 2, 2]
    r03 = _cells(doc, "PIP188-R03")
    assert [c["text"] for c in r03] == ["fail 2/2", "pass 2/2", "pass 2/2", "pass 2/2"]
    assert group["release_differences"] == ["PIP188-R03"]
    # the finding that explains the failure is linked beside it, relative to where the table is written, not beside a pass
    assert [f["id"] for f in r03[0]["findings"]] == ["F-188-4"] and r03[1]["findings"] == []
    href = r03[0]["findings"][0]["href"]
    assert href.endswith("docs/findings.md#f-188-4-a-send") and not href.startswith("docs/")
    assert (tmp_path / "table" / href.split("#")[0]).resolve().name == "findings.md"


def test_rows_are_grouped_by_profile(tmp_path):
    cm = _write(tmp_path / "cm", _summary("4.2.4", {"PIP188-R03": "pass"}))
    cf = _write(tmp_path / "cf", _summary("4.2.4", {"PIP188-R03": "pass"}, profile="client-failover") | {
        "declared": ["PIP121-R01"]})
    rc, doc = _releases(cm, cf, out=tmp_path / "table")
    assert rc == 0 and [g["profile"] for g in doc["profiles"]] == ["cluster-migration", "client-failover"]
    assert [r["id"] for r in doc["profiles"][1]["rows"]] == ["PIP121-R01", "PIP188-R03"]
    md = (tmp_path / "table" / "releases.md").read_text()
    assert md.index("## cluster-migration") < md.index("## client-failover")


def test_version_order():
    texts = ["5.0.0", None, "3.10.0", "5.0.0-M1", "3.2.0", "4.0.1"]
    assert sorted(texts, key=version_key) == ["3.2.0", "3.10.0", "4.0.1", "5.0.0-M1", "5.0.0", None]


def _damaged(summary: dict, damage) -> dict:
    damage(summary)
    return summary


@pytest.mark.parametrize("damage, field", [
    (lambda s: s["requirements"][1].update(findings="F-188-4"), "requirements[1].findings"),
    (lambda s: s["requirements"][1]["findings"][0].pop("href"), "requirements[1].findings[0].href"),
    (lambda s: s.update(command=7), "command"),
    (lambda s: s["versions"].update(suite_commit=["abc"]), "versions.suite_commit"),
    (lambda s: s.update(series={"runs": [{"bundle": None}]}), "series.runs[0].bundle"),
    (lambda s: s.update(declared=["PIP188-R03", 3]), "declared[1]"),
    (lambda s: s.update(configuration={"migration_tls": ["on"]}), "configuration.migration_tls"),
    # every key, whichever protocol declares it (or none does): a string or null
    (lambda s: s.update(configuration={"migration_tls": "on", "fencing_mode": 3}), "configuration.fencing_mode"),
    (lambda s: s.update(configuration={"pulsar": "4.2.4"}), "configuration.pulsar"),  # would shadow the release
    (lambda s: s.update(configuration=["off"]), "configuration"),
    (lambda s: s.pop("profile"), "profile"),  # compare's own validation
])
def test_a_malformed_summary_exits_64_naming_the_field(tmp_path, capsys, damage, field):
    bad = _write(tmp_path / "bad", _damaged(_summary("4.2.4", {"PIP188-R03": "fail"}), damage))
    assert main(["releases", str(bad), "--out", str(tmp_path / "table")]) == 64
    assert f"field {field} is" in capsys.readouterr().err
    assert not (tmp_path / "table").exists()


def test_bad_inputs_exit_64_and_write_nothing(tmp_path, capsys):
    good = _write(tmp_path / "good", _summary("4.2.4", {"PIP188-R03": "pass"}))
    escape = _write(tmp_path / "escape", aggregate([("../good", _summary("4.2.4", {}))], "cluster-migration", "x"))
    missing = _write(tmp_path / "missing", aggregate([("run-1", _summary("4.2.4", {}))], "cluster-migration", "x"))
    nul = _write(tmp_path / "nul", aggregate([("run\x00", _summary("4.2.4", {}))], "cluster-migration", "x"))
    mixed = _series(tmp_path / "mixed", [_summary("4.2.4", {}), _summary("4.2.4", {}, profile="client-failover")])
    # a sweep stopped with Ctrl-C left a cell whose rows are all "not run" (a "pulsar ?" column once)
    stopped = _write(tmp_path / "stopped", {**_summary("4.0.1", {}), "interrupted": True})
    stopped_member = _series(tmp_path / "stopped-series", [_summary("4.0.1", {}), {**_summary("4.0.1", {}), "interrupted": True}])
    for args, says in (([tmp_path / "nothing"], "no summary.json"),
                       ([escape], "expected a folder inside the series' own"),
                       ([nul], "expected a folder inside the series' own"),
                       ([mixed], "field profile is 'client-failover', expected 'cluster-migration'"),
                       ([missing], "has no summary.json"),
                       ([good, stopped], "the run was interrupted (field interrupted is true)"),
                       ([stopped_member], "the run was interrupted (field interrupted is true)"),
                       ([good, good / "summary.json"], "given twice")):
        assert main(["releases", *map(str, args), "--out", str(tmp_path / "table")]) == 64, says
        assert says in capsys.readouterr().err
    (tmp_path / "file").write_text("")
    assert main(["releases", str(good), "--out", str(tmp_path / "file")]) == 64
    assert not (tmp_path / "table").exists()


FENCING = ProtocolOption(
    field="fencing_mode", flag="--fencing-mode", env="PULSAR_CONFORMANCE_FENCING_MODE", metavar="MODE",
    help="how the made-up scenarios fence a topic", axis="fencing", example="off,on", configuration_default="off")


def _configured(pulsar: str, verdict: str, mode: str, seed: int) -> dict:
    summary = _summary(pulsar, {"PIP188-R06": verdict}, seed=seed)
    summary["configuration"]["fencing_mode"] = mode
    summary["command"] += f" --fencing-mode {mode}"
    return summary


def test_a_protocol_options_axis_and_configuration_come_from_its_descriptor(tmp_path, monkeypatch):
    """A made-up descriptor's configuration option is a release component named by its axis, and its flag
    is one of the run's options; the table names no protocol option by hand."""
    off = _series(tmp_path / "off", [_configured("4.2.4", "pass", "off", s) for s in (1, 2)])
    on = _series(tmp_path / "on", [_configured("4.2.4", "fail", "on", s) for s in (1, 2)])
    rc, doc = _releases(on, off, out=tmp_path / "unknown")
    assert rc == 0  # no descriptor declares it: the flag differs between the columns, so do their options
    assert all("other options" in c["reasons"] for c in _cells(doc, "PIP188-R06"))
    assert [c["label"] for c in doc["profiles"][0]["columns"]] == ["pulsar 4.2.4 / fencing_mode off",
                                                                   "pulsar 4.2.4 / fencing_mode on"]
    made_up = Protocol(area="topic-fencing", title="made up", source="https://example.invalid",
                       marker="topic_fencing", profile="made up", options=(FENCING,))
    monkeypatch.setattr(protocols, "PROTOCOLS", (*PROTOCOLS, made_up))
    rc, doc = _releases(on, off, out=tmp_path / "declared")
    assert rc == 0
    group = doc["profiles"][0]
    assert [c["label"] for c in group["columns"]] == ["pulsar 4.2.4 / fencing off", "pulsar 4.2.4 / fencing on"]
    assert group["release_differences"] == ["PIP188-R06"], group
    assert group["columns"][0]["release"]["fencing_mode"] == "off"


def test_the_real_configuration_option_labels_its_columns_by_its_axis(tmp_path):
    modes = {}
    for mode in ("on", "advertised"):
        runs = [_summary("4.2.4", {"PIP188-R06": "pass"}, seed=s) for s in (1, 2)]
        for run in runs:
            run["configuration"] = {"migration_tls": mode}
        modes[mode] = _series(tmp_path / mode, runs)
    rc, doc = _releases(*modes.values(), out=tmp_path / "table")
    assert rc == 0
    assert [c["label"] for c in doc["profiles"][0]["columns"]] == ["pulsar 4.2.4 / migration-tls advertised",
                                                                   "pulsar 4.2.4 / migration-tls on"]


def test_the_table_names_no_protocol_option_by_hand():
    source = (ROOT / "reports" / "view" / "releases_table.py").read_text()
    named = [word for o in protocol_options() for word in (o.flag, o.field, o.env, o.axis) if word and word in source]
    assert named == [], f"reports/view/releases_table.py names {named}: derive them from the descriptors"


RUNS = Path("/work/runs")


@pytest.mark.skipif(not (RUNS / "cm-r06-matrix" / "summary.json").exists(), reason="no real matrix here")
def test_real_matrix_and_repeat_bundles(tmp_path):
    rc, doc = _releases(RUNS / "cm-r06-matrix", RUNS / "cf-332-r11-rep5", out=tmp_path)
    assert rc == 0
    cm, cf = doc["profiles"]
    assert [c["label"] for c in cm["columns"]] == ["pulsar 3.2.0", "pulsar 3.3.2", "pulsar 4.0.1", "pulsar 4.2.4"]
    # one run each and no suite commit recorded: none of the differences is called a release difference
    assert cm["release_differences"] == [] and "PIP188-R06" in cm["other_differences"]
    assert cf["columns"][0]["runs"] == 5 and _cells(doc, "PIP121-R01", "client-failover")[0]["text"] == "pass 5/5"


def test_a_standalone_and_a_cluster_topology_of_one_release_are_two_columns_of_one_question(tmp_path):
    """The topology is a component of a column (issue 31): a verdict that differs between a standalone and a
    cluster of one release, over agreeing runs of one suite commit, is marked against the standalone."""
    def topology(summary: dict, shape: str | None, how: str) -> dict:
        if how == "field":
            summary["topology"] = shape
        elif shape:  # a bundle made before summary.json said it: the command does
            summary["command"] += f" --topology {shape}"
        return summary

    for how in ("field", "command"):
        alone = _series(tmp_path / how / "alone", [topology(_summary("4.2.4", {"PIP188-R06": "pass"}, seed=s), None, how)
                                                   for s in (1, 2)])
        cluster = _series(tmp_path / how / "cluster", [topology(_summary("4.2.4", {"PIP188-R06": "fail"}, seed=s), "cluster", how)
                                                       for s in (1, 2)])
        rc, doc = _releases(cluster, alone, out=tmp_path / how / "table")
        assert rc == 0, doc
        group = doc["profiles"][0]
        assert [c["label"] for c in group["columns"]] == ["pulsar 4.2.4 / topology standalone", "pulsar 4.2.4 / topology cluster"]
        r06 = _cells(doc, "PIP188-R06")
        assert r06[1]["release_difference"] and r06[1]["against"] == ["pulsar 4.2.4 / topology standalone"], r06
    # tables of standalone runs only are as they were: no topology in the labels
    rc, doc = _releases(alone, out=tmp_path / "alone-only")
    assert [c["label"] for c in doc["profiles"][0]["columns"]] == ["pulsar 4.2.4"]
