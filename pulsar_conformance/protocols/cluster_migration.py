from pulsar_conformance.errors import UsageError

from . import MutantBudget, Protocol, ProtocolOption, SpecBudget


def check_tls_mode(value: str, option: str):
    """The TLS mode named (conformance/protocols/cluster_migration/tls_modes.py lists them)."""
    # lazy: layering, the descriptors sit below the areas (spec and reports import them); the suite's code loads
    # only when the option is checked
    from pulsar_conformance.conformance.protocols.cluster_migration import tls_modes

    return tls_modes.check(value)


def tls_fits_deployment(value: str, deployment) -> None:
    """A mode with TLS brokers starts them on the local backend; an external deployment's TLS is its own."""
    mode = check_tls_mode(value, "--migration-tls")
    if mode.brokers_tls and deployment.backend != "local":
        raise UsageError(f"--migration-tls {mode.name} starts TLS brokers of the local backend; "
                         f"this run's deployment is {deployment.backend}",
                         "for an external deployment, describe its TLS URLs and CA in the deployment file "
                         "(docs/deployments.md) and leave --migration-tls out")


# certify --migration-tls: the TLS configuration the scenarios' local clusters start in (tls_modes.ENV)
MIGRATION_TLS = ProtocolOption(
    field="migration_tls", flag="--migration-tls", env="PULSAR_CONFORMANCE_MIGRATION_TLS", metavar="MODE",
    help="TLS configuration of the PIP-188 scenarios: off (default), advertised (TLS brokers, green advertised "
         "with its TLS URL, plain clients), on (TLS clients too) or on-no-tls-url (TLS clients, green advertised "
         "without a TLS URL); docs/cluster-migration.md",
    axis="migration-tls", example="off,advertised,on",
    check="pulsar_conformance.protocols.cluster_migration:check_tls_mode",
    prepare="pulsar_conformance.protocols.cluster_migration:tls_fits_deployment",
    configuration_default="off")

def check_migration_client(value: str, option: str):
    """python, java or all (conformance/protocols/cluster_migration/clients.py)."""
    from pulsar_conformance.conformance.protocols.cluster_migration import clients  # lazy: layering, as above

    clients.check(value)
    return value


# certify --migration-client: which client drives the PIP-188 scenarios (clients.ENV); the Java client's
# starts a blue and green of its own, so it runs only when asked for (CI's selections stay the Python client's)
MIGRATION_CLIENT = ProtocolOption(
    field="migration_client", flag="--migration-client", env="PULSAR_CONFORMANCE_MIGRATION_CLIENT", metavar="CLIENT",
    help="which client drives the PIP-188 scenarios: python (the Python client, default), java (the Java client "
         "through the namespace- and cluster-level scenarios, its release from --java-client-version) or all; "
         "docs/cluster-migration.md",
    # one bundle per client (--matrix migration-client=python,java): which client is the question a
    # column answers, like a release; the bundle's command and each row's details.client say it
    axis="migration-client", example="python,java",
    check="pulsar_conformance.protocols.cluster_migration:check_migration_client")

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
    # the module's first scenario (blue and green, 8 s of traffic after the trigger): namespace-level
    # migration redirects the moving namespace and leaves the one beside it (R06)
    smoke_tests=("test_cluster_migration.py::test_namespace_level_migration",),
    smoke_requirements=("PIP188-R06",),
    roles=("blue", "green", "remote"),
    faults=("restart", "pause", "resume"),
    # 0 (the default) never migrates a live topic (docs/findings.md)
    # on blue alone: its migration task moves the topics; green and a third region keep the default 0
    broker_settings=("blue:clusterMigrationCheckDurationSeconds!=0",),
    # a cluster-level migration (migrated=true on blue) cannot be undone on a real cluster
    irreversible=("test_cluster_migration.py::test_cluster_migration_with_live_traffic",
                  "test_cluster_migration_regions.py::test_migration_with_geo_replication",
                  "test_java_cluster_migration.py::test_java_client_through_a_cluster_level_migration"),
    irreversible_change="a cluster-level migration of {blue} to {green}",
    options=(MIGRATION_TLS, MIGRATION_CLIENT),
)
