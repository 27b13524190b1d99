from . import MutantBudget, Protocol, ProtocolOption, SpecBudget


def resolve_java_client(value: str, deployment) -> None:
    """pulsar-client-original ``value`` resolved from Maven Central (cached) before any broker or JVM starts."""
    # lazy: layering, the descriptors sit below the areas (spec and reports import them); the suite's code loads
    # only when the option is checked
    from pulsar_conformance.conformance.harness.java_release import resolve

    resolve(value)


# certify --java-client-version: the Java client release of the Java scenarios (java_release.VERSION_ENV)
JAVA_CLIENT_VERSION = ProtocolOption(
    field="java_client_version", flag="--java-client-version", env="PULSAR_CONFORMANCE_JAVA_CLIENT_VERSION",
    help="pulsar-client-original release the Java client scenarios run (default: the deployment's Pulsar "
         "release), resolved from Maven Central before anything starts",
    axis="java-client", example="3.0.7,4.2.4",
    # the Java client is released with Pulsar, numbered alike
    check="pulsar_conformance.fixtures.deploy.versions:check_release",
    prepare="pulsar_conformance.protocols.client_failover:resolve_java_client",
    # a release, not a configuration: the bundle's versions say which one ran (pulsar_client_java);
    # accepted by every profile as it always was (the other scenarios ignore it)
    only_its_profiles=False)

PROTOCOL = Protocol(
    area="client-failover",
    title="PIP-121 client cluster failover",
    source="https://github.com/apache/pulsar/blob/master/pip/pip-121.md",
    marker="client_failover",
    profile="PIP-121 client cluster failover on a primary and two secondaries with the Python client (kill, "
            "restart, pause, a secondary dying, a provider) and the Java client (AutoClusterFailover: kill and "
            "switch-back, a stale failure, a dead secondary; ControlledClusterFailover with an HTTP URL provider), "
            "plus the spec's variants and mutants",
    spec="pulsar_conformance.spec.protocols.client_failover:ClientFailover",
    checks="pulsar_conformance.conformance.protocols.client_failover.checks:CHECKS",
    ci=(SpecBudget("cpp", depth=12, examples=150), SpecBudget("java", depth=12, examples=150),
        SpecBudget("controlled", depth=12, examples=150)),
    mutants=MutantBudget(depth=10, examples=150),
    smoke=SpecBudget("cpp", depth=8, examples=60, max_states=50_000),
    smoke_mutant="threshold-off-by-one",
    # 7 s of traffic on the package's three standalones, no broker killed: the provider points the
    # client at s1 and back (R05), nothing acknowledged is lost on the way (R11, Spark)
    smoke_tests=("test_client_failover.py::test_provider_moves_the_client",),
    smoke_requirements=("PIP121-R05", "PIP121-R11"),
    # AutoClusterFailover and ServiceInfoProvider came with pulsar-client 3.11.0 (C++ 4.1.0)
    min_client="3.11.0",
    min_client_why="the client-failover scenarios use AutoClusterFailover and ServiceInfoProvider, new in 3.11.0",
    roles=("primary", "s1", "s2"),
    faults=("kill", "start", "pause", "resume"),
    options=(JAVA_CLIENT_VERSION,),
)
