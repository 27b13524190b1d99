from . import MutantBudget, Protocol, SpecBudget

PROTOCOL = Protocol(
    area="policy-sync",
    title="PIP-136 policy sync",
    source="https://github.com/apache/pulsar/blob/master/pip/pip-136.md",
    marker="policy_sync",
    profile="PIP-136 policy sync on three real clusters (concurrent writes, held links, frozen and skewed "
            "clocks, redelivery, the spec's counterexample replayed); plus the spec's variants and mutants",
    spec="pulsar_conformance.spec.protocols.policy_sync:PolicySync",
    checks="pulsar_conformance.conformance.protocols.policy_sync.checks:CHECKS",
    external_check="pulsar_conformance.fixtures.deploy.metadata_sync:verify_external",
    ci=(SpecBudget("as-proposed", depth=8, examples=100, max_states=200_000),
        SpecBudget("as-proposed-raw-clock", depth=8, examples=100, max_states=200_000),
        SpecBudget("as-implemented", depth=8, examples=100, max_states=200_000)),
    mutants=MutantBudget(depth=10, examples=150),
    smoke=SpecBudget("as-proposed", depth=5, examples=40, max_states=100_000),
    smoke_mutant="winner-is-oldest",
    # the module's three clusters switched to sync by the setting, and nothing more (R07)
    smoke_tests=("test_policy_sync.py::test_enabled_by_the_setting",),
    smoke_requirements=("PIP136-R07",),
    roles=("alpha", "bravo", "charlie"),
    # held links, alpha restarted after its sync topic is terminated, skewed and frozen broker clocks
    faults=("cut_one_way", "heal_one_way", "restart", "clock_freeze", "clock_offset"),
    broker_settings=("configurationMetadataSyncEventTopic",),
    # terminates alpha's copy of the sync topic: alpha's configuration sync ends for good (a terminated topic
    # takes no event again); on the local backend the clusters are thrown away
    irreversible=("test_policy_sync.py::test_no_local_write_without_its_event",),
    irreversible_change="the termination of {alpha}'s copy of the metadata sync topic (its configuration sync ends "
                        "for good)",
    # the enable scenario writes a tenant before the setting and one after: an operator's sync is on already
    external_gaps={"PIP136-R07": "the sync is on before the run (the file's metadata_sync:): switching it on by the "
                                 "setting, which R07 judges, is seen on the suite's own clusters only"},
)
