from . import MutantBudget, Protocol, SpecBudget

PROTOCOL = Protocol(
    area="tenant-migration",
    title="tenant migration over geo-replication",
    source="https://streamnative.io/blog/migrating-tenants-across-clusters-with-pulsars-geo-replication",
    marker="tenant_migration",
    profile="tenant migration over geo-replication: consumption progress through replicated subscriptions "
            "(spec variants and mutants; the live scenarios are not built yet)",
    spec="pulsar_conformance.spec.protocols.tenant_migration:TenantMigration",
    ci=(SpecBudget("markdelete-only", depth=12, examples=150),
        SpecBudget("with-individual-acks", depth=12, examples=150)),
    mutants=MutantBudget(depth=12, examples=150),
)
