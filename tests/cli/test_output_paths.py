"""pulsar_conformance/files.py: an output path is checked before the work that fills it, and a failed
atomic write leaves no ``*.tmp`` beside its target (each case was a traceback or a leftover file)."""
from __future__ import annotations

import pytest

from pulsar_conformance.errors import UsageError
from pulsar_conformance.files import check_output_path, write_atomic


def test_a_failed_atomic_write_leaves_no_tmp(tmp_path):
    folder = tmp_path / "page.html"
    folder.mkdir()  # the target is a directory: the rename fails after the write succeeded
    with pytest.raises(OSError):
        write_atomic(folder, "<html>")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["page.html"]
    write_atomic(tmp_path / "ok.json", "{}")  # the control
    assert (tmp_path / "ok.json").read_text() == "{}" and not list(tmp_path.glob("*.tmp"))


def test_a_file_is_expected(tmp_path):
    (tmp_path / "dir").mkdir()
    (tmp_path / "afile").write_text("x")
    with pytest.raises(UsageError, match="is a directory; a file is written there"):
        check_output_path(tmp_path / "dir", kind="file", option="--html")
    with pytest.raises(UsageError, match="does not exist"):
        check_output_path(tmp_path / "missing" / "x.html", kind="file")
    with pytest.raises(UsageError, match="does not exist"):
        check_output_path(tmp_path / "afile" / "x.html", kind="file")
    assert check_output_path(tmp_path / "afile", kind="file") == (tmp_path / "afile").resolve()  # replaced later
    assert check_output_path(tmp_path / "new.html", kind="file") == (tmp_path / "new.html").resolve()


def test_a_directory_is_expected(tmp_path):
    (tmp_path / "afile").write_text("x")
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "old").write_text("x")
    with pytest.raises(UsageError, match="--out .* is a file; a directory is written there") as refused:
        check_output_path(tmp_path / "afile", kind="dir")
    assert refused.value.fix
    with pytest.raises(UsageError, match="is a file, so no directory can be made under it"):
        check_output_path(tmp_path / "afile" / "a" / "b", kind="dir")
    with pytest.raises(UsageError, match="is not empty"):
        check_output_path(tmp_path / "full", kind="dir", empty=True)
    assert check_output_path(tmp_path / "full", kind="dir") == (tmp_path / "full").resolve()
    new = tmp_path / "a" / "b"
    assert check_output_path(new, kind="dir", empty=True) == new.resolve() and not (tmp_path / "a").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["afile", "full"]  # the probe left nothing


def test_a_tmp_sibling_that_is_a_folder_is_refused_up_front_and_left_alone(tmp_path):
    """``write_atomic`` writes FILE.tmp first: a folder there used to pass the check and end the run in
    an IsADirectoryError traceback raised by the cleanup, after the work."""
    (tmp_path / "page.html.tmp").mkdir()
    with pytest.raises(UsageError, match=r"page\.html\.tmp exists and is not a regular file") as refused:
        check_output_path(tmp_path / "page.html", kind="file", option="--html")
    assert "remove" in refused.value.fix
    with pytest.raises(IsADirectoryError):  # the write's own error, not the cleanup's
        write_atomic(tmp_path / "page.html", "<html>")
    assert (tmp_path / "page.html.tmp").is_dir() and not (tmp_path / "page.html").exists()
    (tmp_path / "old.json.tmp").write_text("half")  # a stale partial file is simply overwritten
    assert check_output_path(tmp_path / "old.json", kind="file") == (tmp_path / "old.json").resolve()
