from . import Protocol

PROTOCOL = Protocol(
    area="geo-replication",
    title="geo-replication",
    source="https://pulsar.apache.org/docs/next/concepts-replication/",
    marker="geo_replication",
    profile="geo-replication blue -> green with a replication outage, capture + Spark",
    checks="pulsar_conformance.conformance.protocols.geo_replication.checks:CHECKS",
    live_smoke=True,
    profile_options={"messages": 6000},
    roles=("blue", "green"),
    faults=("cut", "heal"),
)
