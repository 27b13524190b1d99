"""A certification bundle read from disk: its folder, summary.json or .tar.gz, the summary checked field by
field (a field missing or of the wrong type is named, exit 64), and the SHA-256 manifest checked (reports/bundle/
archive.py; a series folder through its runs' bundles). ``results``, ``verify``, ``compare``, ``releases`` and
``judge`` read bundles through here.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from pulsar_conformance.errors import UsageError

from . import archive
from .archive import Integrity

FORMAT = "pulsar-conformance-certification/1"
RUN_VERDICTS = ("pass", "fail", "unknown")
FIX_SUMMARY = "re-run certify for this bundle; a hand-edited or truncated summary.json cannot be compared"
FIX_TAMPERED = ("the bundle was changed after certify wrote it (or the download is incomplete): fetch the "
                "original archive again, or re-run certify; 'pulsar-conformance verify' lists every difference")


@dataclass(frozen=True)
class Bundle:
    path: Path
    summary: dict
    # what its manifest said: "verified", "not verified: ..." (no manifest), None (not checked: a series'
    # own runs, built in this process)
    integrity: str | None = None

    @property
    def label(self) -> str:
        versions = self.summary.get("versions") or {}
        java = f" / java client {versions['pulsar_client_java']}" if versions.get("pulsar_client_java") else ""
        return (f"pulsar {versions.get('pulsar') or '?'} / client {versions.get('pulsar_client_python') or '?'}{java}"
                f" ({self.summary.get('run_id', self.path.name)})")

    def verdicts(self) -> dict[str, dict]:
        return {r["id"]: r for r in self.summary.get("requirements", []) if "id" in r}


def load(path: str | Path) -> Bundle:
    where = Path(path)
    summary_file = where / "summary.json" if where.is_dir() else where
    if not summary_file.is_file():
        raise UsageError(f"{path}: no certification bundle here (no summary.json)",
                         "pass the directory certify wrote (its --out), or its summary.json")
    try:
        summary = json.loads(summary_file.read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, RecursionError) as error:
        raise UsageError(f"{summary_file}: not a readable summary.json ({error})", FIX_SUMMARY) from error
    if not isinstance(summary, dict) or summary.get("format") != FORMAT:
        raise UsageError(f"{summary_file}: not a {FORMAT} summary (field format)",
                         "pass bundles written by pulsar-conformance certify")
    check_summary(summary, summary_file)
    return Bundle(summary_file.parent, summary)


def check_summary(summary: dict, where) -> None:
    """Every field compare reads, present and of its type; the first that is not is named."""
    def bad(name: str, value, expected: str):
        got = "missing" if value is _MISSING else f"{type(value).__name__} {json.dumps(value, default=str)[:60]}"
        return UsageError(f"{where}: field {name} is {got}, expected {expected}", FIX_SUMMARY)

    def need(doc: dict, name: str, types, expected: str, prefix: str = "", optional: bool = False):
        value = doc.get(name, _MISSING)
        if value is _MISSING and optional:
            return None
        if value is _MISSING or not isinstance(value, types):
            raise bad(prefix + name, value, expected)
        return value

    verdict = need(summary, "verdict", str, "one of " + ", ".join(RUN_VERDICTS))
    if verdict not in RUN_VERDICTS:
        raise bad("verdict", verdict, "one of " + ", ".join(RUN_VERDICTS))
    need(summary, "profile", str, "a profile name")
    need(summary, "run_id", str, "a string", optional=True)
    need(summary, "versions", (dict, type(None)), "an object", optional=True)
    need(summary, "narrowed", (dict, type(None)), "an object or null", optional=True)
    need(summary, "interrupted", bool, "true or false", optional=True)
    rows = need(summary, "requirements", list, "a list of requirement rows")
    for i, row in enumerate(rows):
        at = f"requirements[{i}]."
        if not isinstance(row, dict):
            raise bad(f"requirements[{i}]", row, "an object")
        need(row, "id", str, "a requirement id", at)
        need(row, "verdict", str, "a verdict", at)
        need(row, "strength", (str, type(None)), "MUST, SHOULD or MAY", at, optional=True)
        need(row, "text", (str, type(None)), "a string", at, optional=True)
        evidence = need(row, "evidence", list, "a list of strings", at, optional=True)
        for j, item in enumerate(evidence or ()):
            if not isinstance(item, str):
                raise bad(f"{at}evidence[{j}]", item, "a string")


_MISSING = object()


def load_verified(path: str | Path) -> Bundle:
    """The bundle at ``path`` (a folder, its summary.json or its .tar.gz) once its manifest checks: a bundle
    changed after certify wrote it is refused (exit 64), as ``results`` refuses it; ``compare`` once read
    a hand-edited summary.json without a look at the manifest."""
    where = Path(path)
    if not where.exists():
        raise UsageError(f"{path}: no certification bundle here (no such file or folder)",
                         "pass the directory certify wrote (its --out), its summary.json or its .tar.gz")
    summary, integrity = load_checked(where)
    if where.is_file() and where.name == "summary.json":
        where = where.parent
    return Bundle(where, summary, "verified" if integrity.ok else integrity.text())


def load_checked(path: str | Path) -> tuple[dict, Integrity]:
    """The summary of the bundle at ``path`` (a folder, its summary.json or its archive) and its integrity."""
    where = Path(path)
    if where.is_file() and where.name == "summary.json":
        where = where.parent
    if not where.exists():
        raise UsageError(f"{path}: no such file or folder",
                         "pass the folder certify wrote (its --out) or the .tar.gz beside it")
    integrity = verify(where)
    if integrity.manifest and integrity.problems:
        raise UsageError(f"{path}: {integrity.text()}", FIX_TAMPERED)
    if where.is_dir():
        return load(where).summary, integrity
    data = archive.read_member(where, "summary.json")
    if data is None:
        raise UsageError(f"{path}: no summary.json in the archive", "pass an archive certify wrote")
    try:
        summary = json.loads(data)
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as error:
        raise UsageError(f"{path}: its summary.json is not readable JSON ({type(error).__name__})",
                         FIX_TAMPERED) from None
    if not isinstance(summary, dict) or summary.get("format") != FORMAT:
        raise UsageError(f"{path}: its summary.json is not a {FORMAT} summary", "pass an archive certify wrote")
    check_summary(summary, f"{path}:summary.json")
    return summary, integrity


def verify(where: Path) -> Integrity:
    """A folder or an archive checked against its manifest; a series folder through each run's bundle."""
    integrity = archive.verify(where)
    if integrity.manifest or not where.is_dir() or not (where / "summary.json").is_file():
        return integrity
    try:
        runs = (json.loads((where / "summary.json").read_text()).get("series") or {}).get("runs") or []
    except (OSError, UnicodeDecodeError, ValueError, RecursionError, AttributeError):  # bounded: untrusted input
        return integrity
    folders = [where / r["bundle"] for r in runs if isinstance(r, dict) and isinstance(r.get("bundle"), str)]
    if not folders or not all(f.is_dir() for f in folders):
        return integrity
    # one run with a manifest makes the series checkable: a run without one among them is a problem
    series = Integrity(str(where), "series")
    for folder in folders:
        one = archive.verify(folder)
        series.manifest = series.manifest or one.manifest
        series.files += one.files
        series.bytes += one.bytes
        series.problems += [f"{folder.name}/{p}" if one.manifest else f"{folder.name}: {p}" for p in one.problems]
    return series
