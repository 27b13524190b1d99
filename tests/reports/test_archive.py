"""The bundle as one archive with a SHA-256 manifest, pytest's whole output in it as e2e.log, the suite's
version and commit, and no files of processes that are gone (issue 34, "The bundle")."""
from __future__ import annotations

import hashlib
import io
import json
import os
import signal
import sys
import tarfile
import time
from pathlib import Path

import pytest

from pulsar_conformance.reports.bundle import archive

from .handmade import make_bundle


def _members(path) -> dict[str, bytes]:
    with tarfile.open(path, "r:gz") as tar:
        return {m.name: tar.extractfile(m).read() for m in tar if m.isfile()}


def test_the_archive_holds_every_file_listed_with_its_sha256_and_size(tmp_path):
    make_bundle(tmp_path / "b")
    bundle, packed = tmp_path / "b", tmp_path / "b.tar.gz"
    assert packed.is_file()
    manifest = json.loads((bundle / "bundle-manifest.json").read_text())
    assert manifest["format"] == "pulsar-conformance-manifest/1" and manifest["algorithm"] == "sha256"
    listed = {f["path"]: f for f in manifest["files"]}
    on_disk = sorted(p.relative_to(bundle).as_posix() for p in bundle.rglob("*") if p.is_file())
    assert sorted(listed) == [p for p in on_disk if p != "bundle-manifest.json"]
    for rel, entry in listed.items():
        data = (bundle / rel).read_bytes()
        assert entry == {"path": rel, "sha256": hashlib.sha256(data).hexdigest(), "size": len(data)}
    members = _members(packed)
    assert sorted(members) == sorted(f"b/{p}" for p in on_disk)
    with tarfile.open(packed, "r:gz") as tar:
        first = tar.next()
        assert first.name == "b/bundle-manifest.json"  # a reader finds it before the files it lists
        assert all(m.uname == "" and m.uid == 0 for m in tar.getmembers())  # no user names of the machine
    for name in ("summary.json", "report.html", "junit.xml", "requirements.junit.xml", "PRODUCT.yaml",
                 "reproduce.md", "e2e.log", "logs/cluster-migration/logs/proxy/proxy.log"):
        assert f"b/{name}" in members, name


def test_files_of_processes_that_are_gone_are_left_out(tmp_path):
    summary = make_bundle(tmp_path / "b")
    names = list(_members(tmp_path / "b.tar.gz"))
    assert not [n for n in names if n.endswith(("control.port", "pid.json", ".pid"))], names
    assert not list((tmp_path / "b").rglob("control.port")) and not list((tmp_path / "b").rglob("pid.json"))
    assert summary["bundle"]["left_out"] == ["logs/cluster-migration/logs/proxy/control.port",
                                             "logs/cluster-migration/logs/proxy/pid.json"]


def test_the_suite_version_and_commit_are_recorded(tmp_path):
    summary = make_bundle(tmp_path / "b")
    versions = summary["versions"]
    assert versions["suite"]
    # this test runs from the checkout: its commit, marked when tracked files differ from it
    commit = versions["suite_commit"]
    assert commit and len(commit.split("+")[0]) == 40, commit
    assert f"| suite_commit | {commit} |" in (tmp_path / "b" / "reproduce.md").read_text()


def test_the_suite_commit_is_none_outside_a_checkout(tmp_path, monkeypatch):
    from pulsar_conformance.reports.bundle import contents as bundle

    copy = tmp_path / "site" / "contents.py"
    copy.parent.mkdir()
    copy.write_text(Path(bundle.__file__).read_text())
    monkeypatch.setattr(bundle, "__file__", str(copy))
    assert bundle.suite_commit() is None


def _rewrite(packed, change) -> None:
    """The archive with ``change(name, data) -> (name, data) | None`` applied to each file."""
    with tarfile.open(packed, "r:gz") as tar:
        files = [(m, tar.extractfile(m).read()) for m in tar if m.isfile()]
    with tarfile.open(packed, "w:gz") as tar:
        for member, data in files:
            changed = change(member.name, data)
            if changed is None:
                continue
            member.name, data = changed
            member.size = len(data)
            tar.addfile(member, io.BytesIO(data))


def test_verify_finds_a_changed_missing_or_added_file_in_the_archive(tmp_path):
    make_bundle(tmp_path / "b")
    packed = tmp_path / "b.tar.gz"
    assert archive.verify(packed).ok

    def tamper(name, data):
        if name == "b/summary.json":
            return name, data.replace(b'"verdict": "fail"', b'"verdict": "pass"', 1)
        if name == "b/e2e.log":
            return None
        return name, data

    _rewrite(packed, tamper)
    found = archive.verify(packed)
    assert not found.ok and found.manifest
    assert any(p.startswith("summary.json: changed") for p in found.problems), found.problems
    assert "e2e.log: missing" in found.problems


def test_verify_refuses_links_and_paths_leaving_the_bundle(tmp_path):
    make_bundle(tmp_path / "b")
    packed = tmp_path / "b.tar.gz"
    with tarfile.open(packed, "r:gz") as tar:
        files = [(m, tar.extractfile(m).read()) for m in tar if m.isfile()]
    with tarfile.open(packed, "w:gz") as tar:
        for member, data in files:
            tar.addfile(member, io.BytesIO(data))
        link = tarfile.TarInfo("b/logs/evil")
        link.type, link.linkname = tarfile.SYMTYPE, "/etc/passwd"
        tar.addfile(link)
        escape = tarfile.TarInfo("b/../../outside.txt")
        escape.size = 1
        tar.addfile(escape, io.BytesIO(b"x"))
    found = archive.verify(packed)
    assert not found.ok
    assert "b/logs/evil: a link or special file, not a bundle file" in found.problems
    assert "b/../../outside.txt: a path outside the bundle" in found.problems
    assert not (tmp_path.parent / "outside.txt").exists()  # nothing was unpacked


def test_pytest_output_is_teed_into_e2e_log(tmp_path, capfd):
    from pulsar_conformance.reports.runner.certify import _run_child

    log = tmp_path / "e2e.log"
    code = _run_child([sys.executable, "-c", "import sys; print('from stdout', flush=True); "
                       "sys.stderr.write('from stderr\\n'); sys.exit(3)"], dict(os.environ), log=log)
    assert code == 3
    text = log.read_text()
    assert "from stdout" in text and "from stderr" in text and text.startswith("certify: ")
    seen = capfd.readouterr()
    assert "from stdout" in seen.err and "from stderr" in seen.err and seen.out == ""  # stdout stays for --json


def test_a_process_left_holding_the_output_does_not_hold_certify(tmp_path):
    """A pipe would stay open as long as a JVM the tests left behind lives; the log file does not wait."""
    from pulsar_conformance.reports.runner.certify import _run_child

    log = tmp_path / "e2e.log"
    started = time.monotonic()
    code = _run_child([sys.executable, "-c", "import subprocess, sys; "
                       "p = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)']); "
                       "print('left', p.pid, flush=True)"], dict(os.environ), log=log)
    elapsed = time.monotonic() - started
    pid = int(log.read_text().split("left ", 1)[1].split()[0])
    try:
        assert code == 0 and elapsed < 20, elapsed
    finally:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


@pytest.mark.parametrize("name", ["b", "bundle with space"])
def test_archive_is_beside_the_folder_and_replaced_on_rebuild(tmp_path, name):
    make_bundle(tmp_path / name)
    packed = tmp_path / f"{name}.tar.gz"
    first = _members(packed)
    (tmp_path / name / "notes.txt").write_text("added before a rebuild")
    make_bundle(tmp_path / name)
    assert f"{name}/notes.txt" in _members(packed) and f"{name}/notes.txt" not in first
    assert archive.verify(packed).ok and archive.verify(tmp_path / name).ok
    assert not list(tmp_path.glob("*.tmp-*"))
