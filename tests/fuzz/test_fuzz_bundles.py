"""``verify`` of a bundle that was tampered with (issue 48): a bundle is untrusted input, so its manifest is
parsed bounded and every entry that is not a regular file listed in the manifest is a difference, links
included, in a folder as in an archive.

Each case is a real bundle (a folder sealed by reports.archive, or its ``.tar.gz``) changed one way; each must
end in exit 1 (a difference, docs/certify.md: "1 when a file changed, is missing or was added") naming what
differs, with no traceback and nothing written. Before: a manifest nested 100,000 levels deep exited 70
(RecursionError), and a symlink (to a file outside the bundle, to a folder, in place of a listed file), a pipe
or a linked manifest in a bundle folder "verified" (exit 0) where the same link in an archive was a difference.
The control is the untouched bundle, folder and archive: exit 0.
"""
from __future__ import annotations

import functools
import io
import json
import tarfile
import tempfile
from pathlib import Path

import pytest
from hypothesis import strategies as st

from pulsar_conformance.reports.bundle import archive

from .cases import FIFO, Case, fuzz, json_flag, params, run_valid, symlink

KNOWN: dict[str, str] = {}
DIFFERENCE = 1
FILES = {"summary.json": '{"verdict": "pass", "profile": "smoke"}\n', "report.html": "<html>PASS</html>\n",
         "logs/certify.log": "certify: done\n", "faults/001-kill-blue.json": '{"rc": 0}\n'}
DEEP = "[" * 100_000 + "]" * 100_000


@functools.cache
def manifest() -> str:
    """The manifest certify writes for FILES (reports.archive.write_manifest, in a scratch folder)."""
    with tempfile.TemporaryDirectory() as scratch:
        out = Path(scratch) / "b"
        for rel, text in FILES.items():
            (out / rel).parent.mkdir(parents=True, exist_ok=True)
            (out / rel).write_text(text)
        archive.write_manifest(out)
        return (out / archive.MANIFEST).read_text()


def _bundle(**changes) -> dict:
    """The bundle folder's files, under ``b/``, with ``changes`` (path -> content, or None to drop it)."""
    files = {f"b/{rel}": text for rel, text in {**FILES, archive.MANIFEST: manifest()}.items()}
    for rel, value in changes.items():
        if value is None:
            files.pop(f"b/{rel}", None)
        else:
            files[f"b/{rel}"] = value
    return files


def _deep_manifest(where: str) -> str:
    doc = json.loads(manifest())
    text = json.dumps(doc)
    if where == "top":
        return DEEP
    if where == "in-files":
        return text.replace('"files": [', '"files": [' + DEEP + ", ", 1)
    if where == "in-entry":
        return text.replace('"size": ', '"size": ' + DEEP + ', "x": ', 1)
    return text.replace('"format"', '"deep": ' + DEEP + ', "format"', 1)


# folder cases: (the changes, what the difference must name)
FOLDER_CASES = {
    "manifest-deep-top": ({archive.MANIFEST: DEEP}, (archive.MANIFEST, "deeper")),
    "manifest-deep-in-files": ({archive.MANIFEST: _deep_manifest("in-files")}, (archive.MANIFEST,)),
    "manifest-deep-in-entry": ({archive.MANIFEST: _deep_manifest("in-entry")}, (archive.MANIFEST,)),
    "manifest-deep-beside": ({archive.MANIFEST: _deep_manifest("beside")}, (archive.MANIFEST,)),
    "manifest-deep-objects": ({archive.MANIFEST: '{"a": ' * 50_000 + "1" + "}" * 50_000}, (archive.MANIFEST,)),
    "manifest-not-json": ({archive.MANIFEST: "not json at all"}, (archive.MANIFEST,)),
    "manifest-binary": ({archive.MANIFEST: b"\xff\xfe\x00{"}, (archive.MANIFEST,)),
    "manifest-a-list": ({archive.MANIFEST: "[]"}, (archive.MANIFEST,)),
    "manifest-other-format": ({archive.MANIFEST: json.dumps({"format": "x/1", "files": []})}, (archive.MANIFEST,)),
    "manifest-bad-entry": ({archive.MANIFEST: json.dumps({"format": archive.FORMAT, "files": [{"path": 1}]})},
                           (archive.MANIFEST,)),
    "manifest-is-a-link": ({archive.MANIFEST: symlink("{dir}/elsewhere.json"), "../elsewhere.json": None},
                           (archive.MANIFEST, "link")),
    "manifest-is-a-folder": ({archive.MANIFEST: None, f"{archive.MANIFEST}/x": "x"}, (archive.MANIFEST,)),
    "added-link-outside": ({"passwd": symlink("/etc/passwd")}, ("passwd", "link")),
    "added-link-into-bundle": ({"copy.json": symlink("summary.json")}, ("copy.json", "link")),
    "added-link-to-folder": ({"logs/etc": symlink("/etc")}, ("logs/etc", "link")),
    "added-dangling-link": ({"gone": symlink("{dir}/nowhere")}, ("gone", "link")),
    "listed-file-replaced-by-link": ({"report.html": symlink("{dir}/report-copy.html")}, ("report.html", "link")),
    "folder-replaced-by-link": ({"logs/certify.log": None, "logs": symlink("{dir}/logs-copy")}, ("logs", "link")),
    "added-pipe": ({"logs/pipe": FIFO}, ("logs/pipe", "special")),
    "added-file": ({"extra.txt": "x"}, ("extra.txt", "not in the manifest")),
}


def _folder_case(name: str, json_mode: list[str]) -> Case:
    changes, said = FOLDER_CASES[name]
    files = _bundle(**{k: v for k, v in changes.items() if not k.startswith("../")})
    # what the links point at, outside the bundle (a copy of a listed file passes its digest: the link itself differs)
    files.update({"elsewhere.json": manifest(), "report-copy.html": FILES["report.html"],
                  "logs-copy/certify.log": FILES["logs/certify.log"]})
    return Case(argv=["verify", "b", *json_mode], files=files, said=said, expect=(DIFFERENCE,))


def _tar(manifest_text: str | bytes) -> bytes:
    """``b.tar.gz`` as certify writes it (manifest first), with ``manifest_text`` as the manifest."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for rel, text in [(archive.MANIFEST, manifest_text), *FILES.items()]:
            data = text if isinstance(text, bytes) else text.encode()
            info = tarfile.TarInfo(f"b/{rel}")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


ARCHIVE_CASES = {name: FOLDER_CASES[name] for name in FOLDER_CASES if name.startswith("manifest-") and
                 isinstance(FOLDER_CASES[name][0].get(archive.MANIFEST), (str, bytes))}


def _archive_case(name: str, json_mode: list[str]) -> Case:
    changes, said = ARCHIVE_CASES[name]
    return Case(argv=["verify", "b.tar.gz", *json_mode], files={"b.tar.gz": _tar(changes[archive.MANIFEST])},
                said=said, expect=(DIFFERENCE,))


CLASSES = {
    "verify-folder": st.tuples(st.sampled_from(sorted(FOLDER_CASES)), json_flag()).map(lambda t: _folder_case(*t)),
    "verify-archive": st.tuples(st.sampled_from(sorted(ARCHIVE_CASES)), json_flag()).map(lambda t: _archive_case(*t)),
}


def _explicit(name: str) -> list[Case]:
    cases, make = (FOLDER_CASES, _folder_case) if name == "verify-folder" else (ARCHIVE_CASES, _archive_case)
    return [make(case, ["--json"] if i % 2 else []) for i, case in enumerate(sorted(cases))]


@pytest.mark.parametrize("name", params(CLASSES, KNOWN))
def test_verify_finds_every_entry_the_manifest_does_not_list_and_parses_it_bounded(name):
    fuzz(CLASSES[name], "verify", examples=3, explicit=_explicit(name))


@pytest.mark.parametrize("target", ["b", "b.tar.gz"])
def test_control_the_untouched_bundle_verifies(target):
    outcome = run_valid(Case(argv=["verify", target, "--json"], files={**_bundle(), "b.tar.gz": _tar(manifest())}))
    assert outcome.code == 0 and json.loads(outcome.stdout)["ok"], outcome.show()
