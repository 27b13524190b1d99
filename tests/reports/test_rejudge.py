"""``pulsar-conformance judge BUNDLE``: saved bundles judged again with today's judges (reports/runner/rejudge.py).

The recorded bundles of tests/data/rejudge/ (README there: one per live profile, their verdicts as the live
runs recorded them) are judged again and must get their recorded verdicts; a judge made wrong on purpose must
change them (else this test could not fail); rows with no saved outcome are carried over as recorded; and bad
input is refused with exit 64, nothing written.
"""
from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest

from pulsar_conformance.cli import main
from pulsar_conformance.conformance.harness.rows import row
from pulsar_conformance.conformance.protocols.client_failover import judge as failover_judge
from pulsar_conformance.conformance.protocols.cluster_migration import judge as migration_judge
from pulsar_conformance.conformance.protocols.geo_replication import judge as geo_judge
from pulsar_conformance.conformance.protocols.metadata_migration import judge as metadata_judge
from pulsar_conformance.conformance.protocols.policy_sync import judge as policy_judge
from pulsar_conformance.conformance.protocols.tenant_migration import judge as tenant_judge
from pulsar_conformance.errors import EXIT_BAD_INPUT, EXIT_FAIL, EXIT_PASS, EXIT_UNKNOWN
from pulsar_conformance.reports.bundle import archive
from pulsar_conformance.reports.bundle.verdicts import COUNTED
from pulsar_conformance.reports.runner import rejudge

DATA = Path(__file__).resolve().parents[1] / "data" / "rejudge"
# each kept bundle: the exit code of its recorded verdict, and how many of its rows have no saved outcome to
# judge again (carried over as recorded: metadata-migration's three "not applicable" rows of a participant
# killed, which a standalone has none of, are a deployment's answer, made before any traffic)
PROFILES = {"client-failover": (EXIT_FAIL, 0), "cluster-migration": (EXIT_UNKNOWN, 0),
            "geo-replication": (EXIT_PASS, 0), "metadata-migration": (EXIT_FAIL, 3), "policy-sync": (EXIT_FAIL, 0),
            "tenant-migration": (EXIT_PASS, 0)}
# the ITF files of the live traces judging them again writes (conformance/harness/itf_traces.py): one per
# trace row (a Key_Shared pair's one per key, at most 4; a metadata-migration phases row's one per variant)
# (geo-replication has no spec; policy-sync's replayed counterexample is one per variant, and the as-proposed
# variant refuses the divergence the clusters showed: that file is the accepted prefix, its #meta.rejected set)
TRACES = {"client-failover": 3, "cluster-migration": 16, "geo-replication": 0, "metadata-migration": 8,
          "policy-sync": 2, "tenant-migration": 6}


def _rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _summary(folder: Path) -> dict:
    return json.loads((folder / "summary.json").read_text())


def _verdicts(summary: dict) -> dict[str, str]:
    return {r["id"]: r["verdict"] for r in summary["requirements"]}


def _digest(folder: Path) -> dict[str, str]:
    return {p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def _judge(*argv: str, capsys=None) -> tuple[int, dict | None]:
    code = main(["judge", *argv, "--json"])
    doc = None
    if capsys is not None:
        out = capsys.readouterr().out.strip()
        doc = json.loads(out) if out else None
    return code, doc


def _copy(tmp_path: Path, profile: str) -> Path:
    shutil.copytree(DATA / profile, tmp_path / profile)
    return tmp_path / profile


@pytest.mark.parametrize("profile", list(PROFILES))
def test_a_recorded_bundle_is_judged_again_as_it_was_recorded(tmp_path, capsys, profile):
    source = DATA / profile
    before = _digest(source)
    exit_code, carried = PROFILES[profile]
    code, doc = _judge(str(source), "--out", str(tmp_path / "new"), capsys=capsys)
    assert code == exit_code, doc
    assert _digest(source) == before  # the input bundle is read, never written
    new, old = _summary(tmp_path / "new"), _summary(source)
    # every row with a saved outcome judged again with today's judges; only those without one carried over
    judged = len(old["checks"]) - carried
    assert new["rejudged"]["rows"] == {"rejudged": judged, "carried_over": carried, "replaced": judged}
    assert all(c["rejudged"] and not c["raised"] for c in new["rejudged"]["captures"])
    assert new["rejudged"]["input"]["verified"] is True
    # check by check, requirement by requirement, test by test and for the run: as the live run recorded them
    recorded = _rows(source / "checks.jsonl")
    again = _rows(tmp_path / "new" / "checks.jsonl")
    key = lambda r: (r["check"], r["verdict"], r["requirements"], r["test"], r["details"].get("client"),  # noqa: E731
                     r["details"].get("capture"))
    assert [key(r) for r in again] == [key(r) for r in recorded]
    assert _verdicts(new) == _verdicts(old)
    assert [(t["name"], t["outcome"]) for t in new["tests"]] == [(t["name"], t["outcome"]) for t in old["tests"]]
    assert new["verdict"] == old["verdict"] and new["rejudged"]["changed"] == {
        "verdict": None, "requirements": [], "tests": [], "gone": []}
    # today's reasons say how many distinct events the failures are (issue 47), which older bundles did not
    said, was = ([r for r in reasons if not r.startswith(COUNTED)] for reasons in (new["reasons"][:-1], old["reasons"]))
    assert said == was and "judged again on" in new["reasons"][-1]
    # a bundle of its own: sealed, its archive beside it, readable by results
    assert archive.verify(tmp_path / "new").ok and archive.verify(tmp_path / "new.tar.gz").ok
    for name in ("report.html", "requirements.junit.xml", "junit.xml"):
        assert (tmp_path / "new" / name).is_file()
    assert main(["results", str(tmp_path / "new.tar.gz"), "--json"]) == exit_code
    # every trace row's live trace saved again as an ITF file of the new bundle, sealed by its manifest with
    # the rest, and a behaviour of its spec by ``spec replay`` (the recorded bundles have none of them)
    traces = [r for r in again if r["details"].get("itf")]
    saved = [rel for r in traces for rel in r["details"]["itf"]]
    assert len(saved) == TRACES[profile] and all(rel.startswith(r["details"]["capture"] + "/traces/")
                                                 for r in traces for rel in r["details"]["itf"])
    assert not any("itf" in r["details"] for r in recorded)
    sealed = {f["path"] for f in json.loads((tmp_path / "new" / archive.MANIFEST).read_text())["files"]}
    assert set(saved) <= sealed
    for rel in saved:
        meta = json.loads((tmp_path / "new" / rel).read_text())["#meta"]
        # a trace the spec accepted replays OK (exit 0); one it refused, REJECTED where it left the spec (exit 1)
        assert main(["spec", "replay", meta["spec"], str(tmp_path / "new" / rel)]) == (1 if meta.get("rejected") else 0), rel


# the judge modules of the bundles kept from whole live certifications, each made wrong the same way below
JUDGES = {"geo-replication": geo_judge, "metadata-migration": metadata_judge, "policy-sync": policy_judge,
          "tenant-migration": tenant_judge}


@pytest.mark.parametrize("profile", list(JUDGES))
def test_a_judge_made_wrong_changes_that_profiles_verdicts(tmp_path, capsys, monkeypatch, profile):
    """Each protocol's judge made to say fail wherever it said pass (its ``row`` and ``from_judge``, through
    which every row it makes passes): judging the kept bundle again must fail, and requirements that passed
    must now fail, so the re-judge really runs that protocol's judge on its saved outcomes."""
    module = JUDGES[profile]
    made, judged = module.row, vars(module).get("from_judge")

    def flipped(r):
        if r.ok is True:
            r.ok, r.evidence = False, f"{r.evidence} (made wrong on purpose)"
        return r

    monkeypatch.setattr(module, "row", lambda *a, **k: flipped(made(*a, **k)))
    if judged is not None:  # geo-replication's judge makes its rows with ``row`` alone
        monkeypatch.setattr(module, "from_judge", lambda *a, **k: flipped(judged(*a, **k)))
    code, doc = _judge(str(DATA / profile), "--out", str(tmp_path / "new"), capsys=capsys)
    assert code == EXIT_FAIL, doc
    turned = [c for c in doc["changed"]["requirements"] if c["was"] == "pass" and c["now"] == "fail"]
    assert turned, doc["changed"]
    rows = _rows(tmp_path / "new" / "checks.jsonl")
    assert any("made wrong on purpose" in r["evidence"] for r in rows)


def test_a_judge_made_wrong_changes_the_verdicts(tmp_path, capsys, monkeypatch):
    """A judge that says every acknowledged send was lost: PIP121-R11 (a MUST) fails where it passed, and
    the tests that judged it now fail, so the re-judge really runs today's judge on the saved outcomes."""
    def wrong(out, prefix):
        return [row(f"{prefix}/nothing-acknowledged-lost", False, "made wrong on purpose")]

    monkeypatch.setattr(failover_judge, "lost", wrong)
    code, doc = _judge(str(DATA / "client-failover"), "--out", str(tmp_path / "new"), capsys=capsys)
    assert code == EXIT_FAIL
    changed = doc["changed"]
    assert {"id": "PIP121-R11", "was": "pass", "now": "fail"} in changed["requirements"]
    assert {t["test"].rsplit("::", 1)[-1] for t in changed["tests"] if t["now"] == "failed"} == {
        "test_java_controlled_failover", "test_secondary_dies_in_use"}
    junit = (tmp_path / "new" / "junit.xml").read_text()
    assert junit.count("<failure") == 3 and "made wrong on purpose" in junit
    summary = _summary(tmp_path / "new")
    assert "PIP121-R11" in summary["reasons"][0]
    assert next(r for r in summary["requirements"] if r["id"] == "PIP121-R11")["evidence"][0].endswith(
        "(made wrong on purpose)")


def test_a_judge_that_raises_leaves_its_requirements_unknown(tmp_path, capsys, monkeypatch):
    """The recorder's check-safe rule holds when judging again: judge_topics raising leaves its own
    ``raised`` row unknown for what it judges, the rows before it stand, and the later judges still record."""
    def broken(*_args, **_kwargs):
        raise RuntimeError("a judge bug")

    monkeypatch.setattr(migration_judge, "_crossed", broken)
    code, doc = _judge(str(DATA / "cluster-migration"), "--out", str(tmp_path / "new"), capsys=capsys)
    assert code == EXIT_UNKNOWN
    rows = {r["check"]: r for r in _rows(tmp_path / "new" / "checks.jsonl")}
    raised = rows["cluster-migration-java/judge_topics/raised"]
    assert raised["verdict"] == "unknown" and "a judge bug" in raised["evidence"]
    assert rows["cluster-migration-java/exclusive/p-live-java-exclusive/redirected"]["verdict"] == "pass"
    assert rows["cluster-migration-java/stats-flag"]["verdict"] == "fail"  # a later judge, still recorded
    assert {"id": "PIP188-R03", "was": "pass", "now": "unknown"} in doc["changed"]["requirements"]


def test_a_judge_fixed_since_replaces_the_recorded_rows(tmp_path, capsys):
    """A bundle whose judge said fail (sealed that way: its manifest matches) gets today's pass."""
    bundle = _copy(tmp_path, "client-failover")
    rows = _rows(bundle / "checks.jsonl")
    target = next(r for r in rows if r["check"] == "client-failover/secondary-dies/nothing-acknowledged-lost")
    target["verdict"] = "fail"
    (bundle / "checks.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    archive.write_manifest(bundle)
    code, doc = _judge(str(bundle), "--out", str(tmp_path / "new"), capsys=capsys)
    assert code == EXIT_FAIL
    again = {r["check"]: r["verdict"] for r in _rows(tmp_path / "new" / "checks.jsonl")}
    assert again["client-failover/secondary-dies/nothing-acknowledged-lost"] == "pass"


def test_rows_without_a_saved_outcome_are_carried_over(tmp_path, capsys):
    bundle = _copy(tmp_path, "client-failover")
    rows = _rows(bundle / "checks.jsonl")
    model = {"check": "spec:client-failover/cpp", "kind": "model", "requirements": ["PIP121-R01"], "verdict": "pass",
             "evidence": "no counterexample", "test": "conformance/test_spec_models.py::test_spec_check", "details": {}}
    answer = {"check": "client-failover/java-controlled/follows-provider", "kind": "deployment",
              "requirements": ["PIP121-R05"], "verdict": "pass", "evidence": "a release's answer",
              "test": "conformance/protocols/client_failover/test_java_client_failover.py::test_other", "details": {}}
    no_outcome = dict(answer, details={"capture": "captures/enable"})
    (bundle / "checks.jsonl").write_text("".join(json.dumps(r) + "\n" for r in [model, *rows, answer, no_outcome]))
    (bundle / "captures" / "enable").mkdir()
    (bundle / "captures" / "enable" / "note.txt").write_text("a capture folder without outcome.json")
    # an outcome type no protocol declares: its rows are carried over too, with the reason
    other = bundle / "captures" / "other"
    other.mkdir()
    (other / "outcome.json").write_text(json.dumps({"type": "conformance.protocols.nowhere.outcome.Outcome",
                                                    "outcome": {}}))
    stray = dict(answer, details={"capture": "captures/other"})
    with (bundle / "checks.jsonl").open("a") as handle:
        handle.write(json.dumps(stray) + "\n")
    archive.write_manifest(bundle)
    code, doc = _judge(str(bundle), "--out", str(tmp_path / "new"), capsys=capsys)
    assert code == EXIT_FAIL
    record = _summary(tmp_path / "new")["rejudged"]
    why = {(c["check"], c["capture"]): c["why"] for c in record["carried_over"]}
    assert len(why) == 4 and record["rows"]["carried_over"] == 4
    assert why[(model["check"], None)].startswith("a model check")
    assert why[(answer["check"], None)].startswith("recorded without a capture")
    assert why[(answer["check"], "captures/enable")] == "captures/enable has no outcome.json (a check recorded without a saved outcome)"
    assert "conformance.protocols.nowhere.outcome.Outcome" in why[(answer["check"], "captures/other")]
    again = _rows(tmp_path / "new" / "checks.jsonl")
    assert again[0] == model and again[-3:] == [answer, no_outcome, stray]  # as recorded, in their places
    assert record["rows"]["rejudged"] == len(rows)


def test_a_bundle_kept_as_its_summary_alone_is_judged_from_its_rows(tmp_path, capsys):
    """The release tables keep summary.json alone (no manifest, no outcome): every row is carried over,
    today's verdict rules combine them, and the input is said to be unverified."""
    kept = tmp_path / "kept"
    kept.mkdir()
    shutil.copyfile(DATA / "client-failover" / "summary.json", kept / "summary.json")
    code, doc = _judge(str(kept), "--out", str(tmp_path / "new"), capsys=capsys)
    assert code == EXIT_FAIL
    assert doc["input"]["verified"] is False and doc["rows"]["rejudged"] == 0
    assert doc["changed"]["requirements"] == [] and doc["was"] == "fail"
    new = _summary(tmp_path / "new")
    assert new["checks"] == _summary(DATA / "client-failover")["checks"]
    assert "the input was not verified" in new["reasons"][-1]


def test_an_archive_is_judged_like_its_folder(tmp_path, capsys):
    bundle = _copy(tmp_path, "cluster-migration")
    archive.write_archive(bundle)
    code, doc = _judge(str(tmp_path / "cluster-migration.tar.gz"), capsys=capsys)
    assert code == EXIT_UNKNOWN and doc["rows"]["rejudged"] == 44
    assert Path(doc["out"]).parent == tmp_path and Path(doc["out"]).name.startswith("cluster-migration-rejudged-")
    assert _verdicts(_summary(Path(doc["out"]))) == _verdicts(_summary(bundle))


def test_the_default_output_is_beside_the_bundle(tmp_path, capsys):
    bundle = _copy(tmp_path, "client-failover")
    before = _digest(bundle)
    code, doc = _judge(str(bundle), capsys=capsys)
    assert code == EXIT_FAIL and _digest(bundle) == before
    assert Path(doc["out"]).name.startswith("client-failover-rejudged-") and Path(doc["archive"]).is_file()


def _nothing_written(tmp_path: Path, before: set[str]) -> None:
    assert {p.name for p in tmp_path.iterdir()} == before


def test_not_a_bundle_is_refused(tmp_path, capsys):
    (tmp_path / "empty").mkdir()
    (tmp_path / "file.txt").write_text("not a bundle")
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "summary.json").write_text(json.dumps({"format": "something else"}))
    before = {p.name for p in tmp_path.iterdir()}
    for given in ("empty", "file.txt", "other", "missing"):
        code, doc = _judge(str(tmp_path / given), "--out", str(tmp_path / "new"), capsys=capsys)
        assert code == EXIT_BAD_INPUT and doc["fix"], (given, doc)
        _nothing_written(tmp_path, before)


@pytest.mark.parametrize("edit", ["outcome", "checks", "added"])
def test_a_tampered_bundle_is_refused_and_nothing_written(tmp_path, capsys, edit):
    bundle = _copy(tmp_path, "client-failover")
    if edit == "outcome":
        path = bundle / "captures" / "secondary-dies" / "outcome.json"
        path.write_text(path.read_text().replace('"sends_ok": ', '"sends_ok": 1', 1))
    elif edit == "checks":
        path = bundle / "checks.jsonl"
        path.write_text(path.read_text().replace('"verdict": "fail"', '"verdict": "pass"'))
    else:
        (bundle / "captures" / "secondary-dies" / "extra.json").write_text("{}")
    before = {p.name for p in tmp_path.iterdir()}
    code, doc = _judge(str(bundle), "--out", str(tmp_path / "new"), capsys=capsys)
    assert code == EXIT_BAD_INPUT
    assert "does not match" in doc["error"].lower() and "fetch the original archive" in doc["fix"]
    _nothing_written(tmp_path, before)
    archive.write_archive(bundle)  # the same, tampered before its archive was made: the archive is refused too
    before = {p.name for p in tmp_path.iterdir()}
    code, doc = _judge(str(tmp_path / "client-failover.tar.gz"), "--out", str(tmp_path / "new"), capsys=capsys)
    assert code == EXIT_BAD_INPUT
    _nothing_written(tmp_path, before)


def test_an_unusable_out_is_refused_and_nothing_written(tmp_path, capsys):
    bundle = _copy(tmp_path, "client-failover")
    (tmp_path / "a-file").write_text("keep me")
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "x").write_text("keep me")
    before, digest = {p.name for p in tmp_path.iterdir()}, _digest(bundle)
    for out in (tmp_path / "a-file", tmp_path / "full", bundle, bundle / "captures" / "new", tmp_path / "a-file" / "new"):
        code, doc = _judge(str(bundle), "--out", str(out), capsys=capsys)
        assert code == EXIT_BAD_INPUT and doc["fix"], (out, doc)
        _nothing_written(tmp_path, before)
    assert (tmp_path / "a-file").read_text() == "keep me" and _digest(bundle) == digest


def test_the_runs_configuration_is_set_while_judging_and_restored(monkeypatch):
    monkeypatch.delenv("PULSAR_CONFORMANCE_MIGRATION_TLS", raising=False)
    import os

    with rejudge._configuration({"configuration": {"migration_tls": "on-no-tls-url"}}):
        assert os.environ["PULSAR_CONFORMANCE_MIGRATION_TLS"] == "on-no-tls-url"
    assert "PULSAR_CONFORMANCE_MIGRATION_TLS" not in os.environ


def test_a_hazard_of_the_run_applies_again(tmp_path, capsys, monkeypatch):
    """Judged again under the run's recorded --migration-tls on-no-tls-url, a failure the hazard explains is
    unknown with the hazard, as the live recorder records it; without the hazard it fails."""
    bundle = _copy(tmp_path, "cluster-migration")
    summary = _summary(bundle)
    summary["configuration"] = {"migration_tls": "on-no-tls-url"}
    (bundle / "summary.json").write_text(json.dumps(summary))
    archive.write_manifest(bundle)
    real = migration_judge.judge_topics

    def stranded(out, topics, prefix, **options):
        return [row(f"{prefix}/{t.rsplit('/', 1)[-1]}/p-x/redirected", False, "never reached green") for t in topics[:1]] + [
            r for r in real(out, topics, prefix, **options)]

    monkeypatch.setattr(migration_judge, "judge_topics", stranded)
    code, doc = _judge(str(bundle), "--out", str(tmp_path / "new"), capsys=capsys)
    rows = {r["check"]: r for r in _rows(tmp_path / "new" / "checks.jsonl")}
    stranded_row = rows["cluster-migration-java/exclusive/p-x/redirected"]
    assert stranded_row["verdict"] == "unknown" and stranded_row["details"]["hazard"]
    assert code == EXIT_UNKNOWN


def test_a_bundle_certify_built_is_judged_again_whole(tmp_path, capsys):
    """A bundle as build_bundle leaves it (hand-made rows, no saved outcome): every row carried over, the same
    verdicts, and every file of it in the new bundle, the report, allure labels and reproduce.md written again."""
    from .handmade import make_bundle

    recorded = make_bundle(tmp_path / "bundle")
    code, doc = _judge(str(tmp_path / "bundle"), "--out", str(tmp_path / "new"), capsys=capsys)
    assert code == EXIT_FAIL and doc["input"]["verified"] and doc["rows"] == {
        "rejudged": 0, "carried_over": 5, "replaced": 0}
    new = _summary(tmp_path / "new")
    assert _verdicts(new) == {r["id"]: r["verdict"] for r in recorded["requirements"]}
    assert new["verdict"] == recorded["verdict"] and new["reasons"][:-1] == recorded["reasons"]
    old_files = set(archive.bundle_files(tmp_path / "bundle"))
    assert old_files <= set(archive.bundle_files(tmp_path / "new"))
    assert "Verdict: **fail**" in (tmp_path / "new" / "reproduce.md").read_text()
    labels = json.loads((tmp_path / "new" / "allure-results" / "0f-result.json").read_text())["labels"]
    assert {"name": "requirement", "value": "PIP188-R03 MUST: fail"} in labels
    assert "judged again on" in (tmp_path / "new" / "report.html").read_text()


def test_an_empty_out_folder_is_used(tmp_path, capsys):
    (tmp_path / "new").mkdir()
    code, doc = _judge(str(DATA / "client-failover"), "--out", str(tmp_path / "new"), capsys=capsys)
    assert code == EXIT_FAIL and archive.verify(tmp_path / "new").ok
    assert sorted(p.name for p in tmp_path.iterdir()) == ["new", "new.tar.gz"]  # no staging folder left


def test_trace_files_an_earlier_judging_wrote_are_not_carried_into_the_new_bundle(tmp_path, capsys):
    """A bundle judged before holds the ITF files of that judging; judging it again writes today's and drops
    one a fixed judge no longer writes (a stale file would be replayed as if today's judge had made it)."""
    bundle = _copy(tmp_path, "client-failover")
    stale = bundle / "captures" / "java-controlled" / "traces" / "gone.itf.json"
    stale.parent.mkdir(parents=True)
    stale.write_text("{}")
    archive.write_manifest(bundle)
    code, _doc = _judge(str(bundle), "--out", str(tmp_path / "new"), capsys=capsys)
    assert code == EXIT_FAIL
    written = sorted(p.name for p in (tmp_path / "new" / "captures").glob("*/traces/*"))
    assert "gone.itf.json" not in written and len(written) == TRACES["client-failover"]
