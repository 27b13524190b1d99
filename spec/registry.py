"""The specs the suite ships, by name: those the protocol descriptors name
(pulsar_conformance/protocols/)."""
from __future__ import annotations

from pulsar_conformance.errors import UsageError
from pulsar_conformance.protocols import PROTOCOLS

from .core.model import Spec

SPECS: dict[str, type[Spec]] = {cls.name: cls for cls in (p.load_spec() for p in PROTOCOLS if p.spec)}
for _p in PROTOCOLS:
    if _p.spec and _p.area not in SPECS:
        raise ValueError(f"{_p.spec} is named {_p.load_spec().name!r}; a protocol's spec is named after its area {_p.area!r}")


def spec_class(name: str) -> type[Spec]:
    if name not in SPECS:
        raise UsageError(f"unknown spec {name!r}", f"choose one of: {', '.join(sorted(SPECS))} (see 'spec list')")
    return SPECS[name]
