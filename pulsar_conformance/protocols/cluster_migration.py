from . import MutantBudget, Protocol, SpecBudget

PROTOCOL = Protocol(
    area="cluster-migration",
    title="PIP-188 blue-green cluster migration",
    source="https://github.com/apache/pulsar/blob/master/pip/pip-188.md",
    marker="cluster_migration",
    profile="PIP-188 blue-green migration on real blue/green clusters with live traffic (namespace and cluster "
            "level, four subscription types), plus the spec's variants and mutants",
    spec="pulsar_conformance.spec.protocols.cluster_migration:ClusterMigration",
    checks="pulsar_conformance.conformance.protocols.cluster_migration.checks:CHECKS",
    ci=(SpecBudget("auto-create", depth=10, examples=150, steps=25),
        SpecBudget("no-auto-create", depth=10, examples=150, steps=25),
        SpecBudget("restart-strands", depth=10, examples=150, steps=25)),
    mutants=MutantBudget(depth=10, examples=150, steps=25),
    profile_options={"mutant_depth": 10, "mutant_examples": 150},
    # the module's first scenario (blue and green, 8 s of traffic after the trigger): namespace-level
    # migration redirects the moving namespace and leaves the one beside it (R06)
    smoke_tests=("test_cluster_migration.py::test_namespace_level_migration",),
    smoke_requirements=("PIP188-R06",),
    roles=("blue", "green", "remote"),
    faults=("restart", "pause", "resume"),
    # 0 (the default) never migrates a live topic (docs/findings.md)
    broker_settings=("clusterMigrationCheckDurationSeconds!=0",),
    # a cluster-level migration (migrated=true on blue) cannot be undone on a real cluster
    irreversible=("test_cluster_migration.py::test_cluster_migration_with_live_traffic",
                  "test_cluster_migration_regions.py::test_migration_with_geo_replication"),
)
