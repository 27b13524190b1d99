from . import MutantBudget, Protocol, SpecBudget

PROTOCOL = Protocol(
    area="tenant-migration",
    title="tenant migration over geo-replication",
    source="https://streamnative.io/blog/migrating-tenants-across-clusters-with-pulsars-geo-replication",
    marker="tenant_migration",
    profile="tenant migration over geo-replication: a replicated subscription with ack holes on A, the consumer "
            "switched to B, duplicates measured; the seed's steps 2 (replication over existing data, replicationStartAt), "
            "4 (unloads or restarts at the switch; a message TTL while B is unreachable) and 5 (clean-up of A); plus "
            "the spec's variants and mutants",
    spec="pulsar_conformance.spec.protocols.tenant_migration:TenantMigration",
    checks="pulsar_conformance.conformance.protocols.tenant_migration.checks:CHECKS",
    ci=(SpecBudget("markdelete-only", depth=12, examples=150),
        SpecBudget("with-individual-acks", depth=12, examples=150)),
    # Hypothesis needs 600 examples to reach copy-acks-up-to-markdelete (150 and 300 leave it alive at
    # seed 0; 600 kills it at seeds 0-3, measured 2026-11-24)
    mutants=MutantBudget(depth=12, examples=600),
    # its mutants need 6 steps and more (publish, replicate, sync, publish, switch, retire)
    # on the session's blue and green (the geo-replication scenario's): 300 messages with ack holes
    # on a Shared subscription, the consumer switched to B (R01, R02; R04 is a SHOULD)
    smoke_tests=("test_tenant_migration.py::test_switch_with_ack_holes[Shared]",),
    smoke_requirements=("TM-R01", "TM-R02"),
    roles=("blue", "green"),
    faults=("cut_one_way", "heal_one_way", "restart"),
)
