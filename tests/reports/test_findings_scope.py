"""Issue 47: a finding is linked to a cell only when the cell is inside its scope (release, topology, configuration
store, client), in a fresh bundle and in every kept table alike; a failing cell no finding covers says so; a table
points at no bundle the repository does not hold. Issue 51 (7): the bundle carries the text of the findings it
cites, and its links point there.

The fresh bundles are built offline from recorded check rows, as certify leaves them; the kept tables are the
project's own docs/tables/*/ (those with bundles/ are read again from them)."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from pulsar_conformance.conformance.harness import findings
from pulsar_conformance.conformance.harness.findings import Context
from pulsar_conformance.reports.bundle.verdicts import summary_context
from pulsar_conformance.reports.view import releases_table

ROOT = Path(__file__).resolve().parents[2]
TABLES = sorted((ROOT / "docs" / "tables").glob("*/releases.md"))


def _row(check: str, rid: str, verdict: str, client: str | None = None) -> dict:
    return {"check": check, "kind": "deployment", "requirements": [rid], "verdict": verdict, "evidence": "seen",
            "test": "t", "details": {"client": client} if client else {}}


def _bundle(out: Path, rows: list[dict], *, pulsar: str, topology: str = "standalone",
            profile: str = "cluster-migration") -> dict:
    from pulsar_conformance.conformance.profiles import get_profile
    from pulsar_conformance.reports.runner.build import build_bundle
    from pulsar_conformance.reports.runner.request import CertifyRequest, Deployment

    out.mkdir(parents=True)
    (out / "checks.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (out / "junit.xml").write_text('<testsuites><testsuite><testcase classname="c" name="t"/></testsuite></testsuites>')
    (out / "deployment.json").write_text(json.dumps({"status": {"pulsar_version": pulsar}}))
    request = CertifyRequest(profile=get_profile(profile), out=out, run_id="scoped",
                             deployment=Deployment(topology=topology))
    return build_bundle(out, request, pytest_exit=1, seconds=1)


def _linked(summary: dict, rid: str) -> list[str]:
    return [f["id"] for f in next(r for r in summary["requirements"] if r["id"] == rid)["findings"]]


def _assert_in_scope(summary: dict) -> None:
    """Every failing (or unknown) row of a bundle links only findings whose scope holds for it."""
    for row in summary["requirements"]:
        context = summary_context(summary, row["id"])
        for f in row.get("findings") or ():
            scope = findings.finding(f["id"]).scope
            assert scope.covers(context), (row["id"], f["id"], scope.outside(context), context)


def test_a_fresh_bundle_links_only_the_findings_whose_scope_holds(tmp_path):
    rows = [_row("m/p/redirected", "PIP188-R03", "fail"), _row("m/new/refused", "PIP188-R05", "fail"),
            _row("m/p/order", "PIP188-R01", "pass")]
    m1 = _bundle(tmp_path / "m1", rows, pulsar="5.0.0-M1")
    # F-188-13 is fixed in 4.0.1: it named R03 and R05 on every release before scopes
    # F-188-11 is R02's and R04's event, no longer R03's (issue 47: one event, one requirement)
    assert _linked(m1, "PIP188-R03") == ["F-188-4"]
    assert _linked(m1, "PIP188-R05") == ["F-188-4"]  # F-188-16 is the cluster topology's, 4.2.4's
    old = _bundle(tmp_path / "old", rows, pulsar="3.0.0")
    assert _linked(old, "PIP188-R03") == ["F-188-13"] and _linked(old, "PIP188-R05") == ["F-188-13"]
    cluster = _bundle(tmp_path / "cluster", rows, pulsar="4.2.4", topology="cluster")
    # F-188-16 is now an observation of the window before a topic is migrated, which R05 no longer judges
    assert _linked(cluster, "PIP188-R05") == ["F-188-4"]
    for summary in (m1, old, cluster):
        _assert_in_scope(summary)
    assert _linked(m1, "PIP188-R01") == []


def test_a_client_finding_needs_that_clients_checks_and_a_store_finding_its_store(tmp_path):
    cf = _bundle(tmp_path / "cf", [_row("client-failover/java-stale-failure/x", "PIP121-R04", "fail", "java"),
                                   _row("client-failover/kill-primary/x", "PIP121-R09", "fail", "cpp")],
                 pulsar="4.2.4", profile="client-failover")
    assert _linked(cf, "PIP121-R04") == ["F-121-1"]  # judged on the Java client: F-121-1's
    assert _linked(cf, "PIP121-R09") == []  # failed on the Python client's checks: not F-121-1's
    sync = [_row("policy-sync/held-link/x", "PIP136-R01", "fail")]
    standalone = _bundle(tmp_path / "alone", sync, pulsar="4.2.4", profile="policy-sync")
    assert "F-136-9" not in _linked(standalone, "PIP136-R01")  # RocksDB configuration store
    cluster = _bundle(tmp_path / "cluster", sync, pulsar="4.2.4", topology="cluster", profile="policy-sync")
    assert "F-136-9" in _linked(cluster, "PIP136-R01")  # ZooKeeper's
    for summary in (cf, standalone, cluster):
        _assert_in_scope(summary)


def test_the_bundle_carries_the_findings_it_cites_and_links_them_offline(tmp_path):
    summary = _bundle(tmp_path / "b", [_row("m/p/redirected", "PIP188-R03", "fail")], pulsar="4.2.4")
    r03 = next(r for r in summary["requirements"] if r["id"] == "PIP188-R03")
    page = (tmp_path / "b" / "findings.html").read_text()
    text = (tmp_path / "b" / "findings.md").read_text()
    for f in r03["findings"]:
        assert f["href"].startswith("findings.html#") and f["source"].startswith("docs/findings.md#")
        assert f'id="{f["href"].split("#")[1]}"' in page
        assert f"### {f['id']} " in text
    assert "### F-188-13 " not in text and "apache/pulsar#26678" in text  # only what it cites, whole sections
    assert '"findings.html' in (tmp_path / "b" / "report.html").read_text().replace("href=", '"')
    manifest = json.loads((tmp_path / "b" / "bundle-manifest.json").read_text())
    assert {"findings.html", "findings.md"} <= set(json.dumps(manifest).replace('"', " ").split())


def _column_context(profile: str, column: dict) -> Context:
    """A kept table's column as its header says it (written apart from releases_table.column_context, which the
    table's re-linking uses: this test must not take the table's reading on trust)."""
    label = re.sub(r" \([^)]*\)$", "", column["label"])
    pulsar = re.search(r"^pulsar (\S+)", label).group(1)
    java = re.search(r"java client (\S+)", label)
    topology = re.search(r"topology (\S+)", label)
    python = re.search(r"python ([^,\s]+)", column["clients"])
    java_release = re.search(r"java ([^,\s]+)", column["clients"])
    java_release = java_release.group(1) if java_release else (java.group(1) if java and java.group(1) != "-" else None)
    shape = topology.group(1) if topology else None
    store = None if shape is None else "zookeeper" if shape == "cluster" or profile == "metadata-migration" \
        else "rocksdb"
    return Context(pulsar=pulsar, python=python.group(1) if python else None, java=java_release, topology=shape,
                   store=store, clients=frozenset(n for n, r in (("python", python), ("java", java_release)) if r))


@pytest.mark.parametrize("table", TABLES, ids=[t.parent.name for t in TABLES])
def test_every_kept_tables_cells_link_only_findings_in_scope(table):
    doc = releases_table.parse_markdown(table.read_text())
    kept = table.parent / "bundles"
    for group in doc["profiles"]:
        contexts = [_column_context(group["profile"], c) for c in group["columns"]]
        for row in group["rows"]:
            for cell, context, column in zip(row["cells"], contexts, group["columns"], strict=True):
                for fid in cell["linked"]:
                    scope = findings.finding(fid).scope
                    assert scope.covers(context), (table.parent.name, row["id"], column["label"], fid,
                                                   scope.outside(context))
                if cell["verdict"] == "fail":  # a failing cell names its finding or says none explains it
                    assert cell["linked"] or "no finding explains this cell" in _raw_cell(table, row["id"], column)
    text = table.read_text()
    assert "/work/" not in text and "/work/" not in (table.parent / "releases.html").read_text(), \
        "a table names a folder of the machine that ran it"
    for href in re.findall(r"\]\(([^)#]+)\)", text):  # every link of the table reaches something in the repository
        assert (table.parent / href).resolve().exists(), (table.parent.name, href)
    if kept.is_dir():
        _check_against_bundles(table, doc)


def _raw_cell(table: Path, rid: str, column: dict) -> str:
    line = next(li for li in table.read_text().splitlines() if li.startswith(f"| {rid} |"))
    return line


def _check_against_bundles(table: Path, doc: dict) -> None:
    """A table whose bundles are kept: each linked finding holds for a run of its column that did not pass."""
    for group in doc["profiles"]:
        for index, column in enumerate(group["columns"]):
            runs = [c.runs for c in releases_table.load_columns(ROOT / column["source"])]
            summaries = [r.summary for rs in runs for r in rs]
            for row in group["rows"]:
                for fid in row["cells"][index]["linked"]:
                    scope = findings.finding(fid).scope
                    assert any(scope.covers(summary_context(s, row["id"])) for s in summaries), \
                        (table.parent.name, column["label"], row["id"], fid)


def test_issue_47s_cells_in_the_kept_tables():
    """The four cells issue 47 names, as the regenerated tables show them."""
    def cells(name: str, profile: str, rid: str) -> dict[str, list[str]]:
        doc = releases_table.parse_markdown((ROOT / "docs" / "tables" / name / "releases.md").read_text())
        group = next(g for g in doc["profiles"] if g["profile"] == profile)
        row = next(r for r in group["rows"] if r["id"] == rid)
        return {c["label"]: cell["linked"] for c, cell in zip(group["columns"], row["cells"], strict=True)}

    r03 = cells("releases-e7171e1", "cluster-migration", "PIP188-R03")
    assert "F-188-13" in r03["pulsar 4.0.0"] and "F-188-13" not in r03["pulsar 4.0.1"] + r03["pulsar 4.2.4"]
    assert "F-188-13" not in cells("sweep-e7171e1", "cluster-migration", "PIP188-R03")["pulsar 5.0.0-M1"]
    assert not any("F-136-9" in ids for ids in cells("sweep-e7171e1", "policy-sync", "PIP136-R01").values())
    topology = cells("cluster-topology-4.2.4", "policy-sync", "PIP136-R01")
    assert "F-136-9" in topology["pulsar 4.2.4 / topology cluster"]
    assert "F-136-9" not in topology["pulsar 4.2.4 / topology standalone"]
    assert "F-454-13" not in cells("sweep-e7171e1", "metadata-migration", "PIP454-R04")["pulsar 5.0.0-M1"]
    assert "F-454-13" in cells("cluster-topology-4.2.4", "metadata-migration", "PIP454-R04")[
        "pulsar 4.2.4 / topology cluster"]
    r05 = cells("releases-e7171e1", "cluster-migration", "PIP188-R05")
    assert not any("F-188-16" in ids for ids in r05.values())
