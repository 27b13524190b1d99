"""compare: two bundles built by the real bundle code; exit 1 on a regression, 0 without, 2 on junk."""
from __future__ import annotations

import json
import subprocess
from argparse import Namespace

from .conftest import CLI

ALL_PASS = {"PIP188-R01": "pass", "PIP188-R02": "pass", "PIP188-R16": "pass"}


def _bundle(where, verdicts: dict[str, str], pulsar: str):
    from pulsar_conformance.reports.bundle import build_bundle
    from pulsar_conformance.reports.profiles import get_profile

    where.mkdir()
    with open(where / "checks.jsonl", "w") as handle:
        for rid, verdict in verdicts.items():
            handle.write(json.dumps({"check": f"c/{rid}", "kind": "deployment", "requirements": [rid],
                                     "verdict": verdict, "evidence": f"{rid} {verdict} on {pulsar}", "test": "t",
                                     "details": {}}) + "\n")
    (where / "junit.xml").write_text('<testsuites><testsuite><testcase classname="c" name="a"/></testsuite></testsuites>')
    (where / "deployment.json").write_text(json.dumps({"status": {"pulsar_version": pulsar}}))
    args = Namespace(profile="cluster-migration", deployment=None, pulsar_version=pulsar, client_version=None,
                     out=None, vendor=None, product=None, seed=1, exclude=[])
    build_bundle(where, run_id=f"run-{pulsar}", profile=get_profile("cluster-migration"), args=args,
                 deployment={"backend": "local", "file": None}, pytest_exit=0, seconds=1)
    return where


def _compare(*paths, html=None):
    command = [*CLI, "compare", *map(str, paths), "--json"] + (["--html", str(html)] if html else [])
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    return done.returncode, (json.loads(done.stdout) if done.stdout.strip() else None), done.stderr


def test_a_requirement_that_passed_and_now_fails_is_a_regression(tmp_path):
    old = _bundle(tmp_path / "old", ALL_PASS, "4.0.1")
    new = _bundle(tmp_path / "new", {**ALL_PASS, "PIP188-R02": "fail", "PIP188-R16": "unknown"}, "4.2.4")
    rc, doc, _ = _compare(old, new, html=tmp_path / "compare.html")
    assert rc == 1 and doc["regressions"] == ["PIP188-R02"], doc
    assert set(doc["changed"]) >= {"PIP188-R02", "PIP188-R16"}  # unknown is a change, not a regression
    assert doc["bundles"][1]["versions"]["pulsar"] == "4.2.4"
    row = next(r for r in doc["requirements"] if r["id"] == "PIP188-R02")
    assert row["verdicts"] == ["pass", "fail"] and "PIP188-R02 fail on 4.2.4" in " ".join(row["evidence"])
    page = (tmp_path / "compare.html").read_text()
    assert "REGRESSION" in page and 'class="regression"' in page


def test_control_a_fix_is_a_change_but_no_regression(tmp_path):
    old = _bundle(tmp_path / "old", {**ALL_PASS, "PIP188-R02": "fail"}, "4.0.1")
    new = _bundle(tmp_path / "new", ALL_PASS, "4.2.4")
    rc, doc, _ = _compare(old, new)
    assert rc == 0 and doc["regressions"] == [] and "PIP188-R02" in doc["changed"], doc


def test_bad_bundles_exit_2_naming_the_fix(tmp_path):
    good = _bundle(tmp_path / "good", ALL_PASS, "4.2.4")
    junk = tmp_path / "junk"
    junk.mkdir()
    (junk / "summary.json").write_text("{not json")
    for args, words in (((good, tmp_path / "missing"), "no certification bundle here"),
                        ((good, junk), "not a readable summary.json"),
                        ((good,), "at least two bundles")):
        rc, doc, _ = _compare(*args, html=tmp_path / "never.html")
        assert rc == 2 and words in doc["error"] and doc["fix"], doc  # --json: the error is the document
    assert not (tmp_path / "never.html").exists()
