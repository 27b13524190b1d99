"""The checkout a new protocol goes into: what it already has, and writing the new files all or none.

Nothing is imported from the target tree (it may be another checkout than the one running): its
protocols and requirement ids are read from its files."""
from __future__ import annotations

import os
import re
import shutil
import tempfile
from pathlib import Path

import yaml

from pulsar_conformance.errors import UsageError

from .names import Names

# what a checkout has; the new files go into these folders
FOLDERS = ("spec/catalog", "spec/protocols", "pulsar_conformance/protocols", "conformance/protocols", "tests/protocols")
CATALOGS = ("spec/catalog", "conformance/catalog")
_AREA = re.compile(r"""^\s*area\s*=\s*["']([^"']+)["']""", re.MULTILINE)


def check_root(root: Path) -> Path:
    root = Path(root)
    missing = [f for f in FOLDERS if not (root / f).is_dir()]
    if not root.is_dir() or missing:
        raise UsageError(f"new-protocol: {root} is not a pulsar-conformance checkout (it lacks {', '.join(missing)})",
                         "run it from the checkout's top folder, or pass --root with that folder")
    return root.resolve()


def targets(n: Names) -> dict[str, str]:
    """What each new path is (relative to the checkout; a folder ends with '/')."""
    return {f"spec/catalog/{n.name}.yaml": "catalog", f"spec/protocols/{n.module}.py": "spec",
            f"pulsar_conformance/protocols/{n.module}.py": "descriptor",
            f"conformance/protocols/{n.module}/": "package", f"tests/protocols/{n.module}/": "offline tests"}


def known_areas(root: Path) -> set[str]:
    """The areas the checkout's descriptors and catalogs name."""
    areas = set()
    for path in (root / "pulsar_conformance/protocols").glob("*.py"):
        areas.update(_AREA.findall(path.read_text(errors="replace")))
    for doc in _catalogs(root):
        if isinstance(doc, dict) and isinstance(doc.get("area"), str):
            areas.add(doc["area"])
    return areas


def used_prefixes(root: Path) -> set[str]:
    """The requirement id prefixes (PIP188, TM...) the checkout's catalogs use."""
    used = set()
    for doc in _catalogs(root):
        for req in (doc.get("requirements") or []) if isinstance(doc, dict) else []:
            if isinstance(req, dict) and isinstance(req.get("id"), str):
                used.add(req["id"].rsplit("-R", 1)[0])
    return used


def _catalogs(root: Path):
    for folder in CATALOGS:
        for path in sorted((root / folder).glob("*.yaml")):
            try:
                yield yaml.safe_load(path.read_text())
            except yaml.YAMLError as error:
                raise UsageError(f"new-protocol: {path} is not valid YAML ({error})",
                                 "fix that catalog first (`pulsar-conformance spec catalog` reads them all)") from error


def check_new(root: Path, n: Names) -> None:
    """Refuse a protocol the checkout has, in part or whole, and a requirement prefix it uses."""
    if n.name in known_areas(root):
        raise UsageError(f"new-protocol: the checkout already has a protocol {n.name!r}",
                         "choose another NAME; to change that protocol, edit its files")
    present = [rel for rel in targets(n) if (root / rel.rstrip("/")).exists()]
    if present:
        raise UsageError(f"new-protocol: {', '.join(present)} already exist{'s' if len(present) == 1 else ''} in {root}",
                         "choose another NAME, or remove what is left of an earlier attempt")
    if n.prefix in used_prefixes(root):
        raise UsageError(f"new-protocol: requirement ids {n.prefix}-R.. are taken by another catalog",
                         "pass --prefix with capital letters no catalog uses (`pulsar-conformance spec catalog` "
                         "lists the ids)")
    for folder in FOLDERS:
        if not os.access(root / folder, os.W_OK | os.X_OK):
            raise UsageError(f"new-protocol: cannot write into {root / folder}",
                             "run it as a user who may write the checkout, or pass --root with a writable copy")


def write_all(root: Path, files: dict[str, str], tops: list[str]) -> list[str]:
    """Write ``files`` (relative path -> text) into ``root``: first into a staging folder inside
    it, then each of ``tops`` (the new files and folders) moved into place; if any step fails,
    what was moved is taken back, so the checkout ends as it was or with every file."""
    staging = Path(tempfile.mkdtemp(prefix=".new-protocol-", dir=root))
    moved: list[Path] = []
    try:
        for rel, text in files.items():
            path = staging / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
        for top in tops:
            rel = top.rstrip("/")
            target = root / rel
            if target.exists():  # appeared since the check: never overwrite
                raise FileExistsError(f"{target} appeared while writing")
            os.rename(staging / rel, target)
            moved.append(target)
    except OSError as error:
        for target in reversed(moved):
            shutil.rmtree(target) if target.is_dir() else target.unlink()
        what = f"{error.filename}: {error.strerror}" if error.filename else str(error)
        raise UsageError(f"new-protocol: could not write {what}; nothing was written",
                         "free space or fix permissions, then run it again") from error
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return list(tops)
