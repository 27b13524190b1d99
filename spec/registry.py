"""The specs the suite ships, by name."""
from __future__ import annotations

from .core.model import Spec
from .protocols.client_failover import ClientFailover
from .protocols.cluster_migration import ClusterMigration
from .protocols.policy_sync import PolicySync

SPECS: dict[str, type[Spec]] = {cls.name: cls for cls in (ClientFailover, PolicySync, ClusterMigration)}


def spec_class(name: str) -> type[Spec]:
    from pulsar_conformance.errors import UsageError

    if name not in SPECS:
        raise UsageError(f"unknown spec {name!r}", f"choose one of: {', '.join(sorted(SPECS))} (see 'spec list')")
    return SPECS[name]
