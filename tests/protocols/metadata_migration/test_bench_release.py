"""``bench metadata-migration --pulsar-version`` and ``--out`` are checked before Oxia is built or a
broker started (each used to be found out after, or never: any text was taken as a release)."""
from __future__ import annotations

import json

import pytest

from pulsar_conformance.cli import main
from pulsar_conformance.errors import EXIT_BAD_INPUT


@pytest.mark.parametrize("release, needle", [("37.30.3", "no Pulsar 37.30 line"), ("abc", "not a Pulsar release"),
                                             ("4.1.0", "4.2.0 and later"), ("3.0.7", "4.2.0 and later")])
def test_a_release_without_pip_454_is_refused(tmp_path, capsys, release, needle):
    code = main(["bench", "metadata-migration", "--sizes", "10", "--pulsar-version", release,
                 "--out", str(tmp_path / "out"), "--json"])
    doc = json.loads(capsys.readouterr().out)
    assert code == EXIT_BAD_INPUT and needle in doc["error"] and doc["fix"] and not (tmp_path / "out").exists()


def test_an_out_that_cannot_be_a_folder_is_refused(tmp_path, capsys):
    (tmp_path / "afile").write_text("keep")
    for out in (tmp_path / "afile", tmp_path / "afile" / "sub"):
        code = main(["bench", "metadata-migration", "--sizes", "10", "--out", str(out), "--json"])
        assert code == EXIT_BAD_INPUT and json.loads(capsys.readouterr().out)["fix"]
    assert (tmp_path / "afile").read_text() == "keep"
