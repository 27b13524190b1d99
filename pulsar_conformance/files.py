"""Files other processes read while we write them (records, pid files, bundles, traces), and the
check of an output path before the work that fills it starts."""
from __future__ import annotations

import errno
import os
import tempfile
from pathlib import Path
from typing import Literal

from .errors import UsageError


def write_atomic(path: Path, text: str) -> None:
    """Write beside ``path`` and rename over it: a reader sees the old file or the new one, never half.

    A failed write or rename (disk full, ``path`` a directory) removes the partial file: a
    ``*.tmp`` left behind would be mistaken for output by the next reader of the folder. A ``*.tmp``
    that is a folder is nobody's partial file: it is left alone and the write's own error raised
    (the cleanup must not replace it with an IsADirectoryError of its own).
    """
    tmp = tmp_sibling(path)
    try:
        tmp.write_text(text)
        tmp.replace(path)
    except BaseException:
        if not tmp.is_dir():
            try:
                tmp.unlink(missing_ok=True)
            except OSError:
                pass  # the write's error says more than the cleanup's
        raise


def tmp_sibling(path: Path) -> Path:
    """Where ``write_atomic`` writes before the rename."""
    return path.with_name(path.name + ".tmp")


def check_output_path(path: str | Path, *, kind: Literal["file", "dir"] = "file", option: str = "--out",
                      empty: bool = False) -> Path:
    """``path`` resolved, once it is known that the run can write there; a ``UsageError`` (exit 64) otherwise.

    Called before the work that fills it starts, so a typo costs nothing: ``kind='file'`` wants a
    file (an existing one is replaced) in a directory this process can write; ``kind='dir'`` a
    directory (created later, by the caller, along with any missing parents), ``empty=True`` one
    that is new or empty. Writability is probed by creating and removing a file, not read from
    mode bits: root writes into a mode-0555 folder, and nobody writes into a read-only mount.
    Nothing is left on disk either way.
    """
    target = Path(path).expanduser()
    try:
        target = target.resolve()
    except (OSError, RuntimeError) as error:  # a symlink loop
        raise UsageError(f"{option} {path}: cannot resolve the path ({error})", f"pass another {option}") from None
    if kind == "file":
        if target.is_dir():
            raise UsageError(f"{option} {path} is a directory; a file is written there",
                             f"pass the path of a file, e.g. {option} {Path(path) / 'out.html'}")
        if target.exists() and not target.is_file():
            raise UsageError(f"{option} {path} exists and is not a regular file", f"pass a new path to {option}")
        tmp = tmp_sibling(target)
        if tmp.exists() and not tmp.is_file():  # write_atomic writes there first: a folder there fails the write
            raise UsageError(f"{option} {path}: {tmp} exists and is not a regular file; the output is written "
                             f"there first and renamed", f"remove {tmp} or pass another {option}")
        folder = target.parent
        if not folder.is_dir():
            raise UsageError(f"{option} {path}: directory {folder} does not exist",
                             f"create it (mkdir -p {folder}) or pass a path in an existing directory")
        _probe_writable(folder, option, path)
        return target
    if target.exists() and not target.is_dir():
        raise UsageError(f"{option} {path} is a file; a directory is written there",
                         f"pass the path of a new or empty directory to {option}, or remove the file")
    if target.is_dir():
        if empty and any(target.iterdir()):
            raise UsageError(f"{option} {path}: directory {target} is not empty",
                             f"pass {option} with a new or empty directory")
        _probe_writable(target, option, path)
        return target
    existing = target.parent
    while not existing.exists():  # the folders the caller will create: the nearest existing one decides
        existing = existing.parent
    if not existing.is_dir():
        raise UsageError(f"{option} {path}: {existing} is a file, so no directory can be made under it",
                         f"pass a path whose parents are directories to {option}")
    _probe_writable(existing, option, path)
    return target


def _probe_writable(folder: Path, option: str, given: str | Path) -> None:
    try:
        fd, probe = tempfile.mkstemp(prefix=".write-probe-", dir=folder)
    except OSError as error:
        why = {errno.EACCES: "permission denied", errno.EPERM: "permission denied",
               errno.EROFS: "read-only file system", errno.ENOSPC: "no space left"}.get(error.errno, str(error))
        raise UsageError(f"{option} {given}: cannot write in {folder} ({why})",
                         f"pass a path in a directory you can write to {option}") from None
    os.close(fd)
    os.unlink(probe)


CACHE_ENV = "PULSAR_CONFORMANCE_CACHE"


def cache_dir() -> Path:
    """The suite's cache (Maven classpaths, Oxia builds, pulsar-client installs, Hypothesis' own files):
    ``$PULSAR_CONFORMANCE_CACHE``, else ``~/.cache/pulsar-conformance`` (fixtures/deploy/maven.cache_dir reads
    the same)."""
    return Path(os.environ.get(CACHE_ENV) or Path.home() / ".cache" / "pulsar-conformance")


def check_cache_dir() -> Path:
    """``cache_dir()`` once it is known that a folder can be made and written there; a ``UsageError`` (exit
    64) naming the variable and the fix otherwise (a file there used to surface as a NotADirectoryError deep in
    a Maven resolution: exit 70). Nothing is created."""
    where = cache_dir()
    option = f"${CACHE_ENV}" if os.environ.get(CACHE_ENV) else "the cache folder (~/.cache/pulsar-conformance)"
    try:
        return check_output_path(where, kind="dir", option=option)
    except UsageError as error:
        raise UsageError(f"{error.problem}; the suite keeps its cache (Maven classpaths, Oxia builds, pulsar-client "
                         "installs, Hypothesis' files) in a folder there",
                         f"point {CACHE_ENV} at a folder you can write (created if missing), or unset it for "
                         "~/.cache/pulsar-conformance") from None
