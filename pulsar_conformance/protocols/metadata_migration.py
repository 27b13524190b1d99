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
    # same_release): a target other than Oxia asked for over REST, answered at once (R11), and one small
    # migration to COMPLETED judged by the MUSTs a completed migration shows (R01, R03, R04, R06); the
    # writes through it and the cluster after the cutover are the profile's own scenario
    smoke_tests=("test_metadata_migration.py::test_a_target_other_than_oxia",
                 "test_metadata_migration.py::test_migration_reaches_completed"),
    smoke_requirements=("PIP454-R11", "PIP454-R01", "PIP454-R03", "PIP454-R04", "PIP454-R06"),
    # on an external deployment: the operator's cluster playing zeta, its stores named by the file's
    # metadata_migration: section (fixtures/deploy/external_migration.py); the other-target scenario's second
    # cluster (rho) and the participant scenario are the local backend's only (unknown there, saying so)
    roles=("zeta",),
    external_check="pulsar_conformance.conformance.protocols.metadata_migration.site:verify_external",
    # the coordinator killed and started, the target Oxia killed and started ("component.action"), the brokers
    # restarted on the target after COMPLETED
    faults=("kill", "start", "oxia.kill", "oxia.start", "cutover"),
    # a migration moves the cluster's metadata for good: each scenario that starts one
    irreversible=("test_explore_live.py::test_explore_metadata_migration",
                  "test_metadata_migration.py::test_migration_with_traffic",
                  "test_metadata_migration.py::test_migration_reaches_completed",
                  "test_metadata_migration.py::test_oxia_killed_during_the_copy",
                  "test_metadata_migration.py::test_coordinator_killed_during_preparation",
                  "test_metadata_migration.py::test_participant_killed_during_preparation",
                  "test_metadata_migration.py::test_a_target_other_than_oxia"),
    irreversible_change="a metadata store migration of {zeta} from its ZooKeeper to the file's Oxia target",
    external_gaps={
        "*": "a migrated cluster cannot be migrated again from scratch: one certification judges one migration "
             "scenario (certify --select), the others find the cluster migrated and are unknown",
        "PIP454-R11": "the other-target scenario starts a second cluster (a RocksDB standalone): not built for an "
                      "external deployment"},
)
