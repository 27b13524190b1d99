"""compare: bundles built by the real bundle code. Exit 1 on a regression (MUST and SHOULD ones told
apart), 2 when a candidate was not judged (its run unknown, or a requirement that passed on the
baseline without a verdict), 0 otherwise, 64 on bundles that cannot be compared (the field named)."""
from __future__ import annotations

import json
import subprocess

import pytest

from pulsar_conformance.reports.bundle.archive import MANIFEST

from .conftest import CLI


def _declared(profile: str = "cluster-migration") -> list[str]:
    from pulsar_conformance.conformance.profiles import get_profile
    from pulsar_conformance.reports.bundle.verdicts import load_requirements

    return get_profile(profile).declared(load_requirements())


def _bundle(where, changes: dict[str, str], pulsar: str, profile: str = "cluster-migration"):
    """A bundle where every requirement the profile certifies passed, but for ``changes`` (None: no check ran)."""
    from pulsar_conformance.conformance.profiles import get_profile
    from pulsar_conformance.reports.runner.build import build_bundle
    from pulsar_conformance.reports.runner.request import CertifyRequest

    verdicts = {**{rid: "pass" for rid in _declared(profile)}, **changes}
    where.mkdir()
    with open(where / "checks.jsonl", "w") as handle:
        for rid, verdict in verdicts.items():
            if verdict is None:
                continue
            handle.write(json.dumps({"check": f"c/{rid}", "kind": "deployment", "requirements": [rid],
                                     "verdict": verdict, "evidence": f"{rid} {verdict} on {pulsar}", "test": "t",
                                     "details": {}}) + "\n")
    (where / "junit.xml").write_text('<testsuites><testsuite><testcase classname="c" name="a"/></testsuite></testsuites>')
    (where / "deployment.json").write_text(json.dumps({"status": {"pulsar_version": pulsar}}))
    request = CertifyRequest(profile=get_profile(profile), out=where, run_id=f"run-{pulsar}", pulsar_version=pulsar)
    build_bundle(where, request, pytest_exit=0, seconds=1)
    return where


def _compare(*paths, html=None, json_mode=True):
    command = [*CLI, "compare", *map(str, paths)] + (["--json"] if json_mode else []) + (
        ["--html", str(html)] if html else [])
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if not json_mode:
        return done.returncode, done.stdout, done.stderr
    return done.returncode, (json.loads(done.stdout) if done.stdout.strip() else None), done.stderr


def test_a_requirement_that_passed_and_now_fails_is_a_regression(tmp_path):
    old = _bundle(tmp_path / "old", {}, "4.0.1")
    new = _bundle(tmp_path / "new", {"PIP188-R02": "fail", "PIP188-R16": "unknown"}, "4.2.4")
    rc, doc, _ = _compare(old, new, html=tmp_path / "compare.html")
    assert rc == 1 and doc["regressions"] == ["PIP188-R02"], doc
    assert set(doc["changed"]) >= {"PIP188-R02", "PIP188-R16"}  # unknown is a change, not a regression
    assert doc["bundles"][1]["versions"]["pulsar"] == "4.2.4"
    row = next(r for r in doc["requirements"] if r["id"] == "PIP188-R02")
    assert row["verdicts"] == ["pass", "fail"] and "PIP188-R02 fail on 4.2.4" in " ".join(row["evidence"])
    page = (tmp_path / "compare.html").read_text()
    assert "REGRESSION" in page and 'class="regression"' in page


def test_control_a_fix_is_a_change_but_no_regression(tmp_path):
    old = _bundle(tmp_path / "old", {"PIP188-R02": "fail"}, "4.0.1")
    new = _bundle(tmp_path / "new", {}, "4.2.4")
    rc, doc, _ = _compare(old, new)
    assert rc == 0 and doc["regressions"] == [] and "PIP188-R02" in doc["changed"], doc
    assert doc["verdict"] == "no regression" and doc["bundles"][1]["verdict"] == "pass"


def test_must_regressions_are_told_from_should_ones(tmp_path):
    old = _bundle(tmp_path / "old", {}, "4.0.1")
    new = _bundle(tmp_path / "new", {"PIP188-R03": "fail", "PIP188-R10": "fail"}, "4.2.4")
    rc, doc, _ = _compare(old, new)
    assert rc == 1 and doc["regressions_must"] == ["PIP188-R03"] and doc["regressions_should"] == ["PIP188-R10"], doc
    rc, text, _ = _compare(old, new, json_mode=False)
    assert "MUST regressions (passed in [0], fail later): PIP188-R03" in text, text
    assert "SHOULD/MAY regressions (deviations certify lists): PIP188-R10" in text
    assert any("PIP188-R10" in line and "SHOULD REGRESSION" in line for line in text.splitlines()), text


@pytest.mark.parametrize("candidate", [{"PIP188-R04": "unknown"}, {"PIP188-R04": None}])
def test_a_candidate_without_a_verdict_fails_the_gate_with_its_own_code(tmp_path, candidate):
    """The old gate counted only pass -> fail, so a broken candidate (nothing judged) passed it."""
    old = _bundle(tmp_path / "old", {}, "4.0.1")
    new = _bundle(tmp_path / "new", candidate, "4.2.4")
    rc, doc, _ = _compare(old, new)
    assert rc == 2 and doc["regressions"] == [] and doc["lost"] == ["PIP188-R04"], doc
    assert doc["unjudged_candidates"] == [1] and doc["verdict"] == "candidate not judged"
    # the same bundles the other way round: the baseline's own gaps do not fail the gate
    rc, doc, _ = _compare(new, old)
    assert rc == 0 and doc["lost"] == [], doc


def test_bundles_of_different_profiles_are_not_compared(tmp_path):
    migration = _bundle(tmp_path / "migration", {}, "4.2.4")
    geo = _bundle(tmp_path / "geo", {}, "4.2.4", profile="geo-replication")
    rc, doc, _ = _compare(migration, geo)
    assert rc == 64 and "different profiles ([0] cluster-migration, [1] geo-replication)" in doc["error"], doc
    assert "--profile cluster-migration" in doc["fix"]


@pytest.mark.parametrize("damage, field", [
    (lambda s: s.pop("verdict"), "field verdict is missing"),
    (lambda s: s.update(verdict=3), "field verdict is int 3"),
    (lambda s: s.update(profile=None), "field profile is NoneType"),
    (lambda s: s.update(requirements={"a": 1}), "field requirements is dict"),
    (lambda s: s["requirements"][2].pop("id"), "field requirements[2].id is missing"),
    (lambda s: s["requirements"][0].update(verdict=["pass"]), "field requirements[0].verdict is list"),
    (lambda s: s["requirements"][1].update(evidence="x"), "field requirements[1].evidence is str"),
    (lambda s: s["requirements"][1].update(evidence=[{"x": 1}]), "field requirements[1].evidence[0] is dict"),
    (lambda s: s["requirements"].__setitem__(0, "PIP188-R01"), "field requirements[0] is str"),
    (lambda s: s.update(versions=[]), "field versions is list"),
])
def test_a_summary_with_a_missing_or_mistyped_field_names_it(tmp_path, damage, field):
    """These ended in a traceback exiting 1, which a CI gate reads as a regression."""
    good = _bundle(tmp_path / "good", {}, "4.2.4")
    bad = _bundle(tmp_path / "bad", {}, "4.2.4")
    summary = json.loads((bad / "summary.json").read_text())
    damage(summary)
    (bad / "summary.json").write_text(json.dumps(summary))
    # a bundle from before manifests: its summary is read, and checked field by field (with its manifest
    # the edit itself is refused: test_a_bundle_changed_after_certify_is_refused)
    (bad / MANIFEST).unlink()
    rc, doc, stderr = _compare(good, bad)
    assert rc == 64 and field in doc["error"] and "summary.json" in doc["error"], (doc, stderr[-2000:])
    assert "re-run certify" in doc["fix"] and "Traceback" not in stderr


def test_bad_bundles_exit_64_naming_the_fix(tmp_path):
    good = _bundle(tmp_path / "good", {}, "4.2.4")
    junk = tmp_path / "junk"
    junk.mkdir()
    (junk / "summary.json").write_text("{not json")
    for args, words in (((good, tmp_path / "missing"), "no certification bundle here"),
                        ((good, junk), "not a readable summary.json"),
                        ((good,), "at least two bundles")):
        rc, doc, _ = _compare(*args, html=tmp_path / "never.html")
        assert rc == 64 and words in doc["error"] and doc["fix"], doc  # --json: the error is the document
    assert not (tmp_path / "never.html").exists()


def test_html_where_no_page_can_be_written_is_refused_first(tmp_path):
    old = _bundle(tmp_path / "old", {}, "4.0.1")
    new = _bundle(tmp_path / "new", {}, "4.2.4")
    folder = tmp_path / "pages"
    folder.mkdir()
    (tmp_path / "file").write_text("x")
    for html, words in ((folder, "is a directory"), (tmp_path / "nowhere" / "c.html", "does not exist"),
                        (tmp_path / "file" / "c.html", "does not exist")):
        rc, doc, _ = _compare(old, new, html=html)
        assert rc == 64 and words in doc["error"] and doc["fix"], doc
    assert list(folder.iterdir()) == [] and not list(tmp_path.glob("**/*.tmp"))


def test_a_bundle_changed_after_certify_is_refused(tmp_path):
    """compare once read a hand-edited summary.json (a failing candidate edited to pass) without the look at
    the manifest that results takes: the gate passed. Each bundle is verified first, folder and archive."""
    old = _bundle(tmp_path / "old", {}, "4.0.1")
    new = _bundle(tmp_path / "new", {"PIP188-R02": "fail"}, "4.2.4")
    rc, doc, _ = _compare(old, new)
    assert rc == 1 and doc["regressions"] == ["PIP188-R02"], doc
    assert [b["integrity"] for b in doc["bundles"]] == ["verified", "verified"]
    # the archive beside each folder is compared the same way
    rc, doc, _ = _compare(tmp_path / "old.tar.gz", tmp_path / "new.tar.gz")
    assert rc == 1 and doc["regressions"] == ["PIP188-R02"], doc
    summary = json.loads((new / "summary.json").read_text())
    for r in summary["requirements"]:
        if r["verdict"] == "fail":
            r["verdict"] = "pass"
    summary["verdict"] = "pass"
    (new / "summary.json").write_text(json.dumps(summary, indent=2))
    rc, doc, stderr = _compare(old, new, html=tmp_path / "never.html")
    assert rc == 64, (doc, stderr[-2000:])
    assert "summary.json" in doc["error"] and MANIFEST in doc["error"] and "verify" in doc["fix"], doc
    assert not (tmp_path / "never.html").exists()
    rc, out, _ = _compare(old, new, json_mode=False)
    assert rc == 64 and out == ""


def test_a_bundle_without_a_manifest_is_compared_and_said_unverified(tmp_path):
    old = _bundle(tmp_path / "old", {}, "4.0.1")
    new = _bundle(tmp_path / "new", {}, "4.2.4")
    (new / MANIFEST).unlink()
    rc, doc, _ = _compare(old, new)
    assert rc == 0 and doc["bundles"][0]["integrity"] == "verified"
    assert doc["bundles"][1]["integrity"].startswith("not verified"), doc["bundles"][1]
    rc, out, _ = _compare(old, new, json_mode=False)
    assert "NOT VERIFIED" in out.splitlines()[1]
