"""Every path of the two metadata stores, with its value and version, and what differs between them.

After a PIP-454 copy every persistent ZooKeeper node must be in Oxia with the same value, and with
its version kept: the coordinator puts it with ``versionId`` and ``modificationsCount`` overridden
by ZooKeeper's version, so a broker's conditional write (expected version from its cache) keeps
working after the cutover. ZooKeeper is read with kazoo, Oxia with the suite's ``oxiadump``
(fixtures/deploy/native/oxiadump), both outside Pulsar, so a broker's view cannot hide a difference.
"""
from __future__ import annotations

import base64
import hashlib
import json
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

# Not metadata of the cluster: ZooKeeper's own tree, and the migration's coordination state
# (which the coordinator leaves out of the copy on purpose: it is meaningful only in the source).
SKIP = ("/zookeeper", "/pulsar/migration-coordinator")


@dataclass(frozen=True)
class Node:
    digest: str  # sha256 of the value, 16 hex digits: snapshots stay small for 100k nodes
    version: int  # ZooKeeper's stat version; in Oxia, the record's versionId
    modifications: int  # ZooKeeper: the version again; Oxia: modificationsCount
    ephemeral: bool
    size: int = 0  # bytes of the value


def _digest(value: bytes | None) -> str:
    return hashlib.sha256(value or b"").hexdigest()[:16]


def _skipped(path: str) -> bool:
    return any(path == s or path.startswith(s + "/") for s in SKIP)


@contextmanager
def zookeeper_client(hosts: str, timeout: float = 30.0) -> Iterator:
    """A kazoo client on the source ZooKeeper (``host:port``, site.py), stopped on the way out."""
    from kazoo.client import KazooClient

    zk = KazooClient(hosts=hosts, timeout=timeout)
    try:
        zk.start(timeout=timeout)
        yield zk
    finally:
        zk.stop()
        zk.close()


def zookeeper(hosts: str, timeout: float = 30.0) -> dict[str, Node]:
    with zookeeper_client(hosts, timeout) as zk:
        found: dict[str, Node] = {}
        pending = ["/"]
        while pending:
            parent = pending.pop()
            for child in zk.get_children(parent):
                path = f"{parent.rstrip('/')}/{child}"
                if _skipped(path):
                    continue
                try:
                    value, stat = zk.get(path)
                except Exception:  # noqa: BLE001, S112 - deleted between the listing and the read
                    continue
                found[path] = Node(_digest(value), stat.version, stat.version, stat.ephemeralOwner != 0, len(value or b""))
                pending.append(path)
        return found


def oxia(dump_tool: Path, address: str, timeout: float = 120.0) -> dict[str, Node]:
    """Every record of the Oxia server at ``address`` (``host:port``), read with the suite's oxiadump."""
    done = subprocess.run([str(dump_tool), "-a", address], capture_output=True, text=True,
                          timeout=timeout, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"oxiadump failed ({done.returncode}): {done.stderr.strip()[-400:]}")
    found: dict[str, Node] = {}
    for line in done.stdout.splitlines():
        record = json.loads(line)
        if _skipped(record["path"]):
            continue
        value = base64.b64decode(record["value"]) if record.get("value") else b""
        found[record["path"]] = Node(_digest(value), record["version_id"], record["modifications_count"],
                                     record["ephemeral"], len(value))
    return found


@dataclass
class Comparison:
    """ZooKeeper's persistent nodes against Oxia's records, taken together right after COMPLETED."""

    compared: int = 0
    same: int = 0  # value, version and modification count equal
    missing: list[str] = field(default_factory=list)  # in ZooKeeper, not in Oxia
    version_changed: list[dict] = field(default_factory=list)  # same value, another version
    rewritten: list[str] = field(default_factory=list)  # modified in Oxia since (after the cutover): not a finding
    value_differs: list[dict] = field(default_factory=list)  # another value, no modification since the copy

    def to_json(self, limit: int = 20) -> dict:
        return {"compared": self.compared, "same": self.same, "missing": len(self.missing),
                "version_changed": len(self.version_changed), "rewritten_after_cutover": len(self.rewritten),
                "value_differs": len(self.value_differs), "examples": {
                    "missing": self.missing[:limit], "version_changed": self.version_changed[:limit],
                    "rewritten_after_cutover": self.rewritten[:limit], "value_differs": self.value_differs[:limit]}}


def compare(source: dict[str, Node], target: dict[str, Node]) -> Comparison:
    out = Comparison()
    for path, node in sorted(source.items()):
        if node.ephemeral:  # not copied: each participant recreates its own
            continue
        out.compared += 1
        copy = target.get(path)
        if copy is None:
            out.missing.append(path)
        elif copy.modifications > node.modifications:
            out.rewritten.append(path)
        elif copy.digest != node.digest:
            out.value_differs.append({"path": path, "zookeeper": node.version, "oxia": copy.modifications})
        elif (copy.version, copy.modifications) == (node.version, node.modifications):
            out.same += 1
        else:
            out.version_changed.append({"path": path, "zookeeper": node.version,
                                        "oxia": [copy.version, copy.modifications]})
    return out


def ephemerals(nodes: dict[str, Node]) -> list[str]:
    return sorted(p for p, n in nodes.items() if n.ephemeral)
