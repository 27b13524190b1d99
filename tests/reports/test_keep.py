"""tests/data/rejudge/keep.py, the tool that keeps a live bundle for test_rejudge.py: it keeps only a bundle
today's judges give its recorded verdicts, of the profile named, as certify sealed it, and small; every refusal
says why and leaves the kept bundles as they were (a refusal that did not hold would let a bundle that tests
nothing, or one too big for the checkout, into tests/data)."""
from __future__ import annotations

import importlib.util
import json
import shutil
from pathlib import Path

import pytest

from pulsar_conformance.conformance.protocols.geo_replication import judge as geo_judge
from pulsar_conformance.reports.bundle import archive

DATA = Path(__file__).resolve().parents[1] / "data" / "rejudge"


def _keep_module(tmp_path: Path, monkeypatch):
    """keep.py loaded from its file (it is a script, not a package module), writing under tmp_path."""
    spec = importlib.util.spec_from_file_location("keep_under_test", DATA / "keep.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    monkeypatch.setattr(module, "HERE", tmp_path / "kept")
    (tmp_path / "kept").mkdir()
    return module


def _bundle(tmp_path: Path) -> Path:
    """geo-replication's kept bundle (the smallest, 0.8 MB) as a fresh certify bundle would be, sealed."""
    source = tmp_path / "certify-bundle"
    shutil.copytree(DATA / "geo-replication", source)
    archive.write_manifest(source)
    return source


def test_a_bundle_its_judges_agree_with_is_kept(tmp_path, monkeypatch, capsys):
    keep = _keep_module(tmp_path, monkeypatch)
    out = keep.keep("geo-replication", _bundle(tmp_path))
    assert out == tmp_path / "kept" / "geo-replication"
    summary = json.loads((out / "summary.json").read_text())
    assert summary["verdict"] == "pass" and summary["kept"].startswith("tests/data/rejudge/keep.py")
    assert archive.verify(out).ok
    assert "pass (judge exit 0)" in capsys.readouterr().out


def test_another_profiles_bundle_is_refused(tmp_path, monkeypatch):
    keep = _keep_module(tmp_path, monkeypatch)
    with pytest.raises(SystemExit, match="profile 'geo-replication', not 'policy-sync': pass its own profile"):
        keep.keep("policy-sync", _bundle(tmp_path))
    assert not any((tmp_path / "kept").iterdir())


def test_a_bundle_that_does_not_match_its_manifest_is_refused(tmp_path, monkeypatch):
    keep = _keep_module(tmp_path, monkeypatch)
    source = _bundle(tmp_path)
    checks = source / "checks.jsonl"
    checks.write_text(checks.read_text() + "\n")  # one byte changed after certify sealed it
    with pytest.raises(SystemExit, match="does not match its manifest: keep a bundle as certify sealed it"):
        keep.keep("geo-replication", source)
    assert not any((tmp_path / "kept").iterdir())


def test_a_bundle_over_the_size_limit_is_refused(tmp_path, monkeypatch):
    keep = _keep_module(tmp_path, monkeypatch)
    monkeypatch.setattr(keep, "LIMIT_BYTES", 1000)
    with pytest.raises(SystemExit, match=r"bytes kept, over 1000: narrow the run \(certify --select\)"):
        keep.keep("geo-replication", _bundle(tmp_path))
    assert not any((tmp_path / "kept").iterdir())


def test_a_bundle_todays_judges_disagree_with_is_refused(tmp_path, monkeypatch, capsys):
    """geo-replication's judge made to fail every row it passes: the recorded pass no longer holds, so the
    bundle is not kept, and a bundle kept earlier under the same name is left as it was."""
    keep = _keep_module(tmp_path, monkeypatch)
    earlier = tmp_path / "kept" / "geo-replication"
    earlier.mkdir()
    (earlier / "summary.json").write_text("{}")
    made = geo_judge.row

    def failing(*args, **kwargs):
        r = made(*args, **kwargs)
        if r.ok is True:
            r.ok = False
        return r

    monkeypatch.setattr(geo_judge, "row", failing)
    with pytest.raises(SystemExit, match="today's judges change the recorded verdicts .*not keeping a bundle"):
        keep.keep("geo-replication", _bundle(tmp_path))
    assert (earlier / "summary.json").read_text() == "{}"
