"""manifest.json (docs/capture.md): written atomically, read back with clear errors."""
from __future__ import annotations

import json

import pytest

from pulsar_conformance.fixtures.capture.manifest import ManifestError, read_manifest, write_manifest
from pulsar_conformance.fixtures.capture.schema import FORMAT


def test_round_trip(tmp_path):
    write_manifest(tmp_path, run_id="r1", must_see=[{"topic": "persistent://t/ns/a", "subscription": "s1"}],
                   allowed=["recovered"], scenario={"seed": 7})
    document = read_manifest(tmp_path)
    assert document == {"format": FORMAT, "run_id": "r1",
                        "must_see": [{"topic": "persistent://t/ns/a", "subscription": "s1"}],
                        "allowed": ["recovered"], "scenario": {"seed": 7}}
    assert not list(tmp_path.glob(".*.tmp")), "the temporary file of the atomic write was left behind"


@pytest.mark.parametrize("content, message", [
    (None, "does not exist"),
    ("{not json", "not readable JSON"),
    ("[]", "JSON object"),
    (json.dumps({"format": "other/9", "run_id": "r"}), "format"),
    (json.dumps({"format": FORMAT}), "run_id"),
    (json.dumps({"format": FORMAT, "run_id": "r", "must_see": [{"topic": 1}]}), "must_see"),
    (json.dumps({"format": FORMAT, "run_id": "r", "allowed": "lost"}), "allowed"),
    ("[" * 100_000, "nests too deeply"),  # was a RecursionError traceback
    (b"\xff\xfe{}", "not readable JSON"),
])
def test_bad_manifests_say_what_is_wrong(tmp_path, content, message):
    if isinstance(content, bytes):
        (tmp_path / "manifest.json").write_bytes(content)
    elif content is not None:
        (tmp_path / "manifest.json").write_text(content)
    with pytest.raises(ManifestError, match=message):
        read_manifest(tmp_path)
