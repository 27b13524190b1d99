"""The bundle as one file that can be checked: a SHA-256 manifest and a ``.tar.gz`` beside the folder.

certify's bundle drops the files describing processes that are gone (``prune``:
``logs/proxy/control.port``, ``pid.json``: a port and a pid another process may hold by now) and
ends with ``seal(out)``: ``bundle-manifest.json`` lists every other file with its SHA-256 and size,
and ``<out>.tar.gz`` beside the folder holds it, manifest first. ``verify`` checks a folder or an archive against its manifest
without unpacking anything: a changed, missing or added file, a link, or a path leaving the
bundle is a problem it names.

A bundle is untrusted input (a download, a CI artifact): the folder and the archive are checked by one rule.
Every entry that is not a regular file listed in the manifest is a difference, links and special files
included, in a folder as in an archive (a symlink added into a bundle folder used to "verify": links were
skipped there and refused in archives), and no link is followed. The manifest is read bounded (its size,
and its nesting: JSON 100,000 levels deep used to escape as a RecursionError, exit 70); a manifest that is
there but cannot be read as one is a difference too (exit 1: it is not the manifest certify wrote), where
no manifest at all is "not verified" (exit 2).
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import stat
import tarfile
import zlib
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from pulsar_conformance.errors import UsageError
from pulsar_conformance.files import write_atomic

MANIFEST = "bundle-manifest.json"
FORMAT = "pulsar-conformance-manifest/1"
SUFFIX = ".tar.gz"
LEFT_OUT = ("control.port", "pid.json", "*.pid")
MAX_MEMBER_READ = 256 << 20  # summary.json of a full run is a few MB; more is not a bundle's
_CHUNK = 1 << 20


@dataclass
class Integrity:
    """What ``verify`` found: ``ok`` only when a manifest exists and every file matches it."""

    path: str
    kind: str  # "directory" or "archive"
    manifest: bool = False
    files: int = 0
    bytes: int = 0
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.manifest and not self.problems

    def to_json(self) -> dict:
        return {"path": self.path, "kind": self.kind, "manifest": self.manifest, "ok": self.ok,
                "files": self.files, "bytes": self.bytes, "problems": self.problems}

    def text(self) -> str:
        if self.ok:
            return f"verified: {self.files} files ({self.bytes} bytes) match {MANIFEST}"
        if not self.manifest:
            return f"not verified: {self.problems[0] if self.problems else 'no ' + MANIFEST}"
        return f"DOES NOT MATCH {MANIFEST}: " + "; ".join(self.problems[:10]) + (
            f"; and {len(self.problems) - 10} more" if len(self.problems) > 10 else "")


def seal(out: Path) -> dict:
    """Write the manifest and the archive of bundle ``out`` (pruned before: ``prune``); what was done."""
    manifest = write_manifest(out)
    archive = write_archive(out)
    return {"archive": str(archive), "files": len(manifest["files"]),
            "bytes": sum(f["size"] for f in manifest["files"])}


def archive_path(out: Path) -> Path:
    return out.with_name(out.name + SUFFIX)


def prune(out: Path) -> list[str]:
    dropped = []
    for pattern in LEFT_OUT:
        for path in sorted(out.rglob(pattern)):
            if path.is_file() and not path.is_symlink():
                path.unlink()
                dropped.append(path.relative_to(out).as_posix())
    return dropped


def bundle_files(out: Path) -> list[str]:
    """Every regular file of the bundle but the manifest, as sorted POSIX paths (links are not followed)."""
    found = []
    for root, dirs, names in os.walk(out):
        dirs.sort()
        for name in names:
            path = Path(root) / name
            if path.is_file() and not path.is_symlink():
                found.append(path.relative_to(out).as_posix())
    return sorted(f for f in found if f != MANIFEST)


def write_manifest(out: Path) -> dict:
    entries = []
    for rel in bundle_files(out):
        with (out / rel).open("rb") as stream:
            digest, size = _digest(stream)
        entries.append({"path": rel, "sha256": digest, "size": size})
    manifest = {"format": FORMAT, "algorithm": "sha256", "files": entries}
    write_atomic(out / MANIFEST, json.dumps(manifest, indent=1))
    return manifest


def write_archive(out: Path) -> Path:
    """``<out>.tar.gz``: one top folder named like the bundle, the manifest first, owners not recorded."""
    target = archive_path(out)
    tmp = target.with_name(target.name + f".tmp-{os.getpid()}")

    def anonymous(info: tarfile.TarInfo) -> tarfile.TarInfo:
        info.uid = info.gid = 0
        info.uname = info.gname = ""
        return info

    try:
        with tarfile.open(tmp, "w:gz", compresslevel=6) as tar:
            for rel in [MANIFEST, *bundle_files(out)]:
                tar.add(out / rel, arcname=f"{out.name}/{rel}", recursive=False, filter=anonymous)
        tmp.replace(target)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return target


def _digest(stream) -> tuple[str, int]:
    sha, size = hashlib.sha256(), 0
    while chunk := stream.read(_CHUNK):
        sha.update(chunk)
        size += len(chunk)
    return sha.hexdigest(), size


def is_archive(path: Path) -> bool:
    return path.is_file() and path.name.endswith((SUFFIX, ".tgz"))


def verify(path: str | Path) -> Integrity:
    """``path`` (a bundle folder or its archive) checked against its manifest."""
    where = Path(path)
    if where.is_dir():
        return _verify_dir(where)
    if is_archive(where):
        with open_archive(where) as tar:
            return _verify_tar(where, tar)
    raise UsageError(f"{path}: neither a bundle folder nor a bundle archive ({SUFFIX})",
                     "pass the folder certify wrote (its --out) or the .tar.gz beside it")


def _parse_manifest(data: bytes | None, integrity: Integrity, why: str = ""):
    """The manifest's JSON, or None with the problem recorded (``manifest`` is set: a manifest is there, and
    what it is not is a difference). Bounded: at most MAX_MEMBER_READ bytes, and JSON nested deeper than a
    manifest ever is (two levels: an object, its list of objects) is refused before Python's parser recurses
    into it."""
    integrity.manifest = True
    if data is None:
        integrity.problems.append(f"{MANIFEST} cannot be read ({why})")
        return None
    if len(data) > MAX_MEMBER_READ:
        integrity.problems.append(f"{MANIFEST} is larger than {MAX_MEMBER_READ >> 20} MiB: not the manifest certify wrote")
        return None
    if _nesting(data) > MAX_MANIFEST_DEPTH:
        integrity.problems.append(f"{MANIFEST} nests deeper than {MAX_MANIFEST_DEPTH} levels: not the manifest "
                                  "certify wrote")
        return None
    try:
        return json.loads(data)
    except (UnicodeDecodeError, ValueError, RecursionError) as error:
        integrity.problems.append(f"{MANIFEST} is not JSON ({type(error).__name__}): not the manifest certify wrote")
        return None


MAX_MANIFEST_DEPTH = 8
_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"')
_BRACKET = re.compile(rb"[\[\]{}]")


def _nesting(data: bytes) -> int:
    """How deep ``data``'s brackets nest, counted outside JSON strings (a path may hold a bracket)."""
    depth = deepest = 0
    for match in _BRACKET.finditer(_STRING.sub(b'""', data)):
        depth += 1 if match.group(0) in b"[{" else -1
        if depth > deepest:
            deepest = depth
            if deepest > MAX_MANIFEST_DEPTH:
                break
    return deepest


def _manifest_entries(doc, integrity: Integrity) -> dict[str, dict] | None:
    """The manifest's entries by path; None with the problem recorded when ``doc`` is not a manifest (which,
    present in the bundle, is a difference: ``integrity.manifest`` stays set)."""
    integrity.manifest = True
    if doc is None:
        return None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT or not isinstance(doc.get("files"), list):
        integrity.problems.append(f"{MANIFEST} is not a {FORMAT} manifest")
        return None
    entries = {}
    for entry in doc["files"]:
        if not (isinstance(entry, dict) and isinstance(entry.get("path"), str)
                and isinstance(entry.get("sha256"), str) and isinstance(entry.get("size"), int)):
            integrity.problems.append(f"{MANIFEST} has a malformed entry")
            return None
        entries[entry["path"]] = entry
    return entries


def _compare(entries: dict[str, dict], rel: str, digest: str, size: int, integrity: Integrity) -> None:
    entry = entries.get(rel)
    if entry is None:
        integrity.problems.append(f"{rel}: not in the manifest (added after certify)")
    elif entry["sha256"] != digest or entry["size"] != size:
        integrity.problems.append(f"{rel}: changed (sha256 {digest[:12]}…, {size} bytes; the manifest says "
                                  f"{entry['sha256'][:12]}…, {entry['size']} bytes)")
    integrity.files += 1
    integrity.bytes += size


def _entries(out: Path) -> tuple[list[str], list[str]]:
    """(the regular files, every other entry: links to files or folders, pipes, sockets, devices) of the folder
    ``out``, as sorted POSIX paths; nothing is followed or opened."""
    files, others = [], []
    for root, dirs, names in os.walk(out):  # os.walk lists a link to a folder among dirs and does not enter it
        dirs.sort()
        for name in [*dirs, *names]:
            path = Path(root) / name
            try:
                mode = path.lstat().st_mode
            except OSError:
                continue
            rel = path.relative_to(out).as_posix()
            if stat.S_ISREG(mode):
                files.append(rel)
            elif not stat.S_ISDIR(mode):
                others.append(rel)
    return sorted(files), sorted(others)


def _verify_dir(out: Path) -> Integrity:
    integrity = Integrity(str(out), "directory")
    manifest = out / MANIFEST
    if not manifest.exists() and not manifest.is_symlink():
        integrity.problems.append(f"no {MANIFEST} (a bundle written before manifests, or not by certify)")
        return integrity
    files, others = _entries(out)
    if manifest.is_symlink() or not manifest.is_file():
        integrity.manifest = True
        integrity.problems.append(f"{MANIFEST}: a link or special file, not the manifest certify wrote")
        entries = None
    else:
        try:
            with manifest.open("rb") as stream:
                data, why = stream.read(MAX_MEMBER_READ + 1), ""
        except OSError as error:
            data, why = None, error.strerror or type(error).__name__
        entries = _manifest_entries(_parse_manifest(data, integrity, why), integrity)
    integrity.problems += [f"{rel}: a link or special file, not a bundle file" for rel in others if rel != MANIFEST]
    if entries is None:
        return integrity
    present = [rel for rel in files if rel != MANIFEST]
    for rel in present:
        with (out / rel).open("rb") as stream:
            _compare(entries, rel, *_digest(stream), integrity)
    integrity.problems += [f"{rel}: missing" for rel in sorted(set(entries) - set(present) - set(others))]
    return integrity


def open_archive(path: Path) -> tarfile.TarFile:
    try:
        return tarfile.open(path, "r:gz")
    except (tarfile.TarError, OSError, EOFError, zlib.error) as error:
        raise UsageError(f"{path}: not a readable .tar.gz ({type(error).__name__}: {error})",
                         "pass the archive certify wrote beside the bundle folder, downloaded in full") from None


def _members(path: Path, tar: tarfile.TarFile, integrity: Integrity):
    """(member, path inside the bundle) of each regular file; anything else is a problem, never followed."""
    top = None
    try:
        for member in tar:
            name = PurePosixPath(member.name)
            if name.is_absolute() or ".." in name.parts or not name.parts:
                integrity.problems.append(f"{member.name}: a path outside the bundle")
                continue
            top = top or name.parts[0]
            if name.parts[0] != top:
                integrity.problems.append(f"{member.name}: outside the bundle's folder {top}/")
                continue
            if member.isdir():
                continue
            if not member.isfile():
                integrity.problems.append(f"{member.name}: a link or special file, not a bundle file")
                continue
            if len(name.parts) < 2:
                integrity.problems.append(f"{member.name}: beside the bundle's folder, not in it")
                continue
            yield member, PurePosixPath(*name.parts[1:]).as_posix()
    except (tarfile.TarError, OSError, EOFError, zlib.error) as error:
        integrity.problems.append(f"the archive is truncated or corrupt ({type(error).__name__}: {error})")


def _verify_tar(path: Path, tar: tarfile.TarFile) -> Integrity:
    integrity = Integrity(str(path), "archive")
    digests: dict[str, tuple[str, int]] = {}
    manifest_data = None
    for member, rel in _members(path, tar, integrity):
        stream = tar.extractfile(member)
        try:
            if rel == MANIFEST:
                manifest_data = stream.read(MAX_MEMBER_READ + 1)
                continue
            if rel in digests:
                integrity.problems.append(f"{rel}: twice in the archive")
            digests[rel] = _digest(stream)
        except (tarfile.TarError, OSError, EOFError, zlib.error) as error:
            integrity.problems.append(f"{rel}: cannot be read ({type(error).__name__})")
    if manifest_data is None:
        integrity.problems.insert(0, f"no {MANIFEST} in the archive")
        return integrity
    entries = _manifest_entries(_parse_manifest(manifest_data, integrity), integrity)
    if entries is None:
        return integrity
    for rel, (digest, size) in sorted(digests.items()):
        _compare(entries, rel, digest, size, integrity)
    integrity.problems += [f"{rel}: missing" for rel in sorted(set(entries) - set(digests))]
    return integrity


def read_member(path: Path, rel: str) -> bytes | None:
    """The bytes of ``rel`` (e.g. summary.json) in the bundle archive ``path``, or None without it."""
    with open_archive(path) as tar:
        scratch = Integrity(str(path), "archive")
        for member, name in _members(path, tar, scratch):
            if name == rel:
                if member.size > MAX_MEMBER_READ:
                    raise UsageError(f"{path}: {rel} is {member.size} bytes, too large for a bundle's {rel}",
                                     "pass an archive certify wrote")
                return tar.extractfile(member).read()
    return None

