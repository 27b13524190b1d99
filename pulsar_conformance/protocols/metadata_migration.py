from . import MutantBudget, Protocol, SpecBudget

PROTOCOL = Protocol(
    area="metadata-migration",
    title="PIP-454 metadata store migration",
    source="https://github.com/apache/pulsar/blob/master/pip/pip-454.md",
    marker="metadata_migration",
    profile="PIP-454 metadata store migration, ZooKeeper to Oxia, on a Pulsar 4.2+ standalone (5.0.0-M1 unless "
            "--pulsar-version says otherwise; 4.2.x too): under traffic and metadata writes, with Oxia or the coordinator "
            "killed, and to a non-Oxia target; plus the spec's variants and mutants",
    spec="pulsar_conformance.spec.protocols.metadata_migration:MetadataMigration",
    checks="pulsar_conformance.conformance.protocols.metadata_migration.checks:CHECKS",
    ci=(SpecBudget("as-proposed", depth=12, examples=150, max_states=300_000),
        SpecBudget("as-implemented", depth=12, examples=150, max_states=300_000)),
    # Hypothesis needs 600 examples to reach the copy-phase mutants (300 leave two alive; measured)
    mutants=MutantBudget(depth=12, examples=600, steps=40),
    # on the run's release when it has PIP-454 (4.2.4 by default; see the smoke profile's
    # same_release): a target other than Oxia asked for over REST, answered at once (R11) where the
    # migration scenarios wait through PREPARATION (about 180 s on 4.2.4, docs/releases.md)
    smoke_tests=("test_metadata_migration.py::test_a_target_other_than_oxia",),
    smoke_requirements=("PIP454-R11",),
    roles=("zeta", "rho"),
    local_only="its scenarios start a ZooKeeper and an Oxia server beside their standalone and migrate between them",
)
