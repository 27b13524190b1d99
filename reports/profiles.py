"""Certification profiles: which conformance tests run, and with which spec budgets.

A profile is a pytest marker expression over ``conformance/`` plus the budgets the spec
tests use. ``smoke`` is short (minutes on two shared cores); ``full`` runs everything with
the budgets CI uses for ``tox -e spec``; every area also has a profile of its own, so a
vendor can certify one feature.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from pulsar_conformance.errors import UsageError


@dataclass(frozen=True)
class SpecRun:
    """One ``spec check`` run as a certification test (budgets as in ``spec check``)."""

    spec: str
    variant: str
    depth: int
    examples: int
    max_states: int

    @property
    def id(self) -> str:
        return f"{self.spec}[{self.variant}]"


@dataclass(frozen=True)
class Profile:
    name: str
    description: str
    markers: str  # pytest -m expression over conformance/
    spec_runs: tuple[SpecRun, ...] = ()
    # (spec, mutant or None for all of them): every listed mutant must be killed
    mutants: tuple[tuple[str, str | None], ...] = ()
    mutant_depth: int = 4
    mutant_examples: int = 40
    messages: int = 1500  # geo-replication scenario size
    # A scenario (its deployment's start included) still running after this is stopped and has no
    # verdict (pytest-timeout): nothing may hang a certification. The slowest today takes ~4 min.
    scenario_timeout_s: int = 1200
    # Catalog areas this profile certifies on the deployment: every requirement of these areas
    # that has a conformance check must get a verdict, or the run is not PASS (docs/certify.md).
    areas: tuple[str, ...] = ()
    # the oldest pulsar-client its scenarios can run with, and why (checked before anything starts)
    min_client: str | None = None
    min_client_why: str = ""
    extra: dict = field(default_factory=dict)

    def declared(self, requirements) -> list[str]:
        """The ids this profile certifies: its areas' requirements that a conformance check judges."""
        return [r.id for r in requirements if r.area in self.areas and r.conformance and not r.uncovered]


# Budgets were measured on the 2-core machine (docs/certify.md): the smoke ones take about
# 10 s (client-failover cpp) and 20 s (policy-sync as-proposed); the variants with documented
# violations (java, as-implemented) take 1-4 minutes because every engine must find the
# counterexample, and all client-failover mutants take almost 3 minutes, so smoke runs one
# mutant per spec and leaves the rest to `full` and the area profiles.
_SMOKE_SPECS = (
    SpecRun("client-failover", "cpp", depth=8, examples=60, max_states=50_000),
    SpecRun("policy-sync", "as-proposed", depth=5, examples=40, max_states=100_000),
)
_FULL_SPECS = (
    SpecRun("client-failover", "cpp", depth=12, examples=150, max_states=1_000_000),
    SpecRun("client-failover", "java", depth=12, examples=150, max_states=1_000_000),
    SpecRun("client-failover", "controlled", depth=12, examples=150, max_states=1_000_000),
    SpecRun("policy-sync", "as-proposed", depth=8, examples=100, max_states=200_000),
    SpecRun("policy-sync", "as-proposed-raw-clock", depth=8, examples=100, max_states=200_000),
    SpecRun("policy-sync", "as-implemented", depth=8, examples=100, max_states=200_000),
    SpecRun("cluster-migration", "auto-create", depth=10, examples=150, max_states=1_000_000),
    SpecRun("cluster-migration", "no-auto-create", depth=10, examples=150, max_states=1_000_000),
    SpecRun("cluster-migration", "restart-strands", depth=10, examples=150, max_states=1_000_000),
)


# AutoClusterFailover and ServiceInfoProvider came with pulsar-client 3.11.0 (C++ 4.1.0; pulsar-facts §7)
FAILOVER_CLIENT = "3.11.0"
FAILOVER_WHY = "the client-failover scenarios use AutoClusterFailover and ServiceInfoProvider, new in 3.11.0"


def _area(spec: str) -> tuple[SpecRun, ...]:
    return tuple(r for r in _FULL_SPECS if r.spec == spec)


PROFILES: dict[str, Profile] = {p.name: p for p in (
    Profile("smoke", "a short scenario per area: spec checks with small budgets, geo-replication with capture + Spark",
            markers="smoke", spec_runs=_SMOKE_SPECS,
            mutants=(("client-failover", "threshold-off-by-one"), ("policy-sync", "winner-is-oldest")), messages=1500,
            areas=("geo-replication",)),
    Profile("full", "every conformance test, every spec variant with CI budgets, every mutant",
            markers="", spec_runs=_FULL_SPECS, mutants=(("client-failover", None), ("policy-sync", None), ("cluster-migration", None)),
            mutant_depth=10, mutant_examples=150, messages=6000,
            areas=("geo-replication", "client-failover", "policy-sync", "cluster-migration"),
            min_client=FAILOVER_CLIENT, min_client_why=FAILOVER_WHY),
    Profile("geo-replication", "geo-replication blue -> green with a replication outage, capture + Spark",
            markers="geo_replication", messages=6000, areas=("geo-replication",)),
    Profile("client-failover", "PIP-121 client cluster failover on a primary and two secondaries with the Python "
            "client (kill, restart, pause, a secondary dying, a provider), plus the spec's variants and mutants",
            markers="client_failover", spec_runs=_area("client-failover"), mutants=(("client-failover", None),),
            areas=("client-failover",), min_client=FAILOVER_CLIENT, min_client_why=FAILOVER_WHY),
    Profile("policy-sync", "PIP-136 policy sync: spec variants and mutants",
            markers="policy_sync", spec_runs=_area("policy-sync"), mutants=(("policy-sync", None),),
            areas=("policy-sync",)),
    Profile("cluster-migration", "PIP-188 blue-green migration on real blue/green clusters with live traffic "
            "(namespace and cluster level, four subscription types), plus the spec's variants and mutants",
            markers="cluster_migration", spec_runs=_area("cluster-migration"), mutants=(("cluster-migration", None),),
            mutant_depth=10, mutant_examples=150, areas=("cluster-migration",)),
)}


def get_profile(name: str) -> Profile:
    try:
        return PROFILES[name]
    except KeyError:
        raise UsageError(f"unknown profile {name!r}",
                         f"choose one of: {', '.join(PROFILES)} (see docs/certify.md)") from None
