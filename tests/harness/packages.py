"""The protocol packages of conformance/protocols/, from the descriptors (pulsar_conformance/protocols/:
a descriptor's ``checks`` lives in its package), not a list kept by hand."""
from __future__ import annotations

from pathlib import Path

from pulsar_conformance.protocols import PROTOCOLS

ROOT = Path(__file__).resolve().parents[2]
PREFIX = "pulsar_conformance.conformance.protocols."


def packages() -> list[str]:
    found = []
    for p in PROTOCOLS:
        assert p.checks and p.checks.startswith(PREFIX), (
            f"{p.area}'s descriptor names no checks in a package of conformance/protocols/ ({p.checks!r})")
        found.append(p.checks.split(":")[0].removeprefix(PREFIX).split(".")[0])
    return sorted(set(found))


PACKAGES = packages()
