"""``results BUNDLE|ARCHIVE`` says what a bundle certified and what failed, with the findings, after
checking it against its manifest; a bundle changed since certify wrote it is refused (issue 34)."""
from __future__ import annotations

import json

from pulsar_conformance.cli import main

from .handmade import make_bundle, row


def _run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_results_print_verdict_certified_and_failures_with_findings(tmp_path, capsys):
    make_bundle(tmp_path / "b")
    code, out, _ = _run(capsys, "results", str(tmp_path / "b"))
    assert code == 1, out  # the run's own exit code: a MUST failed
    assert "Verdict: FAIL" in out and "verified: " in out
    certified = out.split("Certified (", 1)[1].split("\n\n", 1)[0]
    assert "PIP188-R01" in certified and "PIP188-R03" not in certified
    failed = out.split("Failed (2):", 1)[1]
    assert "PIP188-R03" in failed and "evidence: m/p/redirected: fail (0 sends stored on green)" in failed
    assert "finding:  F-188-4" in failed  # docs/findings.md explains R03's failure
    assert "PIP188-R15" in failed and "a deviation: not a MUST" in failed
    assert "Unknown (1):" in out and "PIP188-R02" in out.split("Unknown (1):", 1)[1]
    assert "No verdict (" in out and "PIP188-R05 (not run)" in out
    assert "Not applicable to this release: PIP188-R06" in out
    assert "Tests that did not pass (1)" in out and "product defect" in out


def test_results_json_is_one_document_for_folder_and_archive(tmp_path, capsys):
    make_bundle(tmp_path / "b")
    docs = []
    for target in (tmp_path / "b", tmp_path / "b.tar.gz", tmp_path / "b" / "summary.json"):
        code, out, _ = _run(capsys, "results", str(target), "--json")
        assert code == 1
        docs.append(json.loads(out))
    for doc in docs:
        assert doc["verdict"] == "fail" and doc["integrity"]["ok"], doc["integrity"]
        assert [r["id"] for r in doc["failures"]] == ["PIP188-R03", "PIP188-R15"]
        assert doc["failures"][0]["evidence"] == ["m/p/redirected: fail (0 sends stored on green)"]
        assert any(f["id"] == "F-188-4" for f in doc["failures"][0]["findings"])
        assert [r["id"] for r in doc["certified"]] == ["PIP188-R01"]
        assert doc["suite"]["version"] and doc["product"]["type"] == "distribution"
    assert docs[1]["integrity"]["kind"] == "archive" and docs[0]["integrity"]["kind"] == "directory"


def test_results_exit_with_the_run_verdict(tmp_path, capsys):
    declared = [f"PIP188-R{n:02d}" for n in (2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 15, 16)]
    make_bundle(tmp_path / "pass", [row("m/p/order", "PIP188-R01", "pass")], pytest_exit=0, failed_test=False,
                exclude=tuple(declared))
    code, out, _ = _run(capsys, "results", str(tmp_path / "pass.tar.gz"), "--json")
    assert json.loads(out)["verdict"] == "pass" and code == 0
    make_bundle(tmp_path / "unknown", [row("m/p/drained", "PIP188-R02", "unknown")], pytest_exit=0,
                failed_test=False)
    code, out, _ = _run(capsys, "results", str(tmp_path / "unknown.tar.gz"), "--json")
    assert json.loads(out)["verdict"] == "unknown" and code == 2


def test_a_changed_bundle_is_refused_and_verify_names_the_differences(tmp_path, capsys):
    make_bundle(tmp_path / "b")
    summary = tmp_path / "b" / "summary.json"
    doc = json.loads(summary.read_text())
    doc["verdict"] = "pass"  # the edit a gate must not believe
    summary.write_text(json.dumps(doc))
    (tmp_path / "b" / "reproduce.md").unlink()
    code, out, _ = _run(capsys, "results", str(tmp_path / "b"), "--json")
    assert code == 64
    error = json.loads(out)
    assert "summary.json: changed" in error["error"] and "reproduce.md: missing" in error["error"]
    assert "fetch the original archive" in error["fix"]
    code, out, _ = _run(capsys, "verify", str(tmp_path / "b"))
    assert code == 1 and "summary.json: changed" in out and "reproduce.md: missing" in out
    code, out, _ = _run(capsys, "verify", str(tmp_path / "b.tar.gz"), "--json")
    assert code == 0 and json.loads(out)["ok"]  # the archive still holds what certify wrote


def test_a_bundle_without_manifest_is_read_but_said_unverified(tmp_path, capsys):
    make_bundle(tmp_path / "b")
    (tmp_path / "b" / "bundle-manifest.json").unlink()
    code, out, _ = _run(capsys, "results", str(tmp_path / "b"))
    assert code == 1 and "NOT VERIFIED: no bundle-manifest.json" in out
    code, out, _ = _run(capsys, "verify", str(tmp_path / "b"))
    assert code == 2 and "not verified" in out


def test_not_a_bundle_is_bad_input(tmp_path, capsys):
    for target, said in ((tmp_path / "nothing", "no such file"), (tmp_path, "no certification bundle here")):
        code, out, _ = _run(capsys, "results", str(target), "--json")
        assert code == 64 and said in json.loads(out)["error"], out
    junk = tmp_path / "junk.tar.gz"
    junk.write_bytes(b"not gzip at all")
    code, out, _ = _run(capsys, "results", str(junk), "--json")
    assert code == 64 and "not a readable .tar.gz" in json.loads(out)["error"]
    code, out, _ = _run(capsys, "verify", str(tmp_path / "nothing"), "--json")
    assert code == 64


def test_results_on_a_series_folder_verifies_each_run(tmp_path, capsys):
    from pulsar_conformance.reports.runner.series import aggregate

    members = [(name, make_bundle(tmp_path / "series" / name)) for name in ("run-1", "run-2")]
    (tmp_path / "series" / "summary.json").write_text(
        json.dumps(aggregate(members, "cluster-migration", "series"), default=str))
    code, out, _ = _run(capsys, "results", str(tmp_path / "series"), "--json")
    doc = json.loads(out)
    assert code == 1 and doc["integrity"]["kind"] == "series" and doc["integrity"]["ok"], doc["integrity"]
    assert [r["run"] for r in doc["series"]["runs"]] == ["run-1", "run-2"]
    (tmp_path / "series" / "run-2" / "checks.jsonl").write_text("")
    code, out, _ = _run(capsys, "results", str(tmp_path / "series"), "--json")
    assert code == 64 and "run-2/checks.jsonl: changed" in json.loads(out)["error"]
    # a run whose manifest was removed does not make the series unverifiable and so readable
    (tmp_path / "series" / "run-2" / "bundle-manifest.json").unlink()
    code, out, _ = _run(capsys, "results", str(tmp_path / "series"), "--json")
    assert code == 64 and "run-2: no bundle-manifest.json" in json.loads(out)["error"]
