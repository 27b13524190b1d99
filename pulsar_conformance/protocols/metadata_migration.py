from . import MutantBudget, Protocol, SpecBudget

PROTOCOL = Protocol(
    area="metadata-migration",
    title="PIP-454 metadata store migration",
    source="https://github.com/apache/pulsar/blob/master/pip/pip-454.md",
    marker="metadata_migration",
    profile="PIP-454 metadata store migration (ZooKeeper to Oxia): the spec's variants and mutants "
            "(the live scenarios on 5.0.0-M1 are not built yet)",
    spec="pulsar_conformance.spec.protocols.metadata_migration:MetadataMigration",
    ci=(SpecBudget("as-proposed", depth=12, examples=150, max_states=300_000),
        SpecBudget("as-implemented", depth=12, examples=150, max_states=300_000)),
    # Hypothesis needs 600 examples to reach the copy-phase mutants (300 leave two alive; measured)
    mutants=MutantBudget(depth=12, examples=600, steps=40),
)
