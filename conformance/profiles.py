"""Certification profiles: which conformance tests run, and with which spec budgets.

A profile is a pytest marker expression over ``conformance/`` plus the budgets the spec
tests use. ``smoke`` is short (minutes on two shared cores); ``full`` runs everything with
the budgets CI uses for ``tox -e spec``; every area also has a profile of its own, so a
vendor can certify one feature.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from packaging.version import Version

from pulsar_conformance.errors import UsageError
from pulsar_conformance.protocols import PROTOCOLS, MutantBudget, SpecBudget


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
class MutantRun:
    """One ``spec mutants`` run as a certification test: every mutant of ``spec`` (or the one
    named ``only``) must be killed by z3 and Hypothesis at this budget."""

    spec: str
    only: str | None
    depth: int
    examples: int
    steps: int | None = None


def _mutants(area: str, budget: MutantBudget, only: str | None = None) -> MutantRun:
    return MutantRun(area, only, budget.depth, budget.examples, budget.steps)


# The smoke profile's one mutant per spec: its descriptor names a mutant both engines kill shallowly.
_SMOKE_MUTANT_BUDGET = MutantBudget(depth=4, examples=40)


@dataclass(frozen=True)
class Profile:
    name: str
    description: str
    markers: str  # pytest -m expression over conformance/
    spec_runs: tuple[SpecRun, ...] = ()
    # every listed mutant must be killed. A profile runs a spec's mutants at the budget its
    # descriptor gives them (``spec ci`` proves both engines kill every one there): per-protocol
    # profiles once ran them at depth 4, where z3 cannot reach a switch-back, and 3 of
    # client-failover's survived
    mutants: tuple[MutantRun, ...] = ()
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
    # Requirements of other areas this profile certifies too (the smoke profile: one short scenario
    # per protocol, so a few requirements of each, from the descriptors' smoke_requirements).
    requirements: tuple[str, ...] = ()
    # The local backend's default release for every deployment of the run when --pulsar-version is
    # not given, the metadata-migration scenarios' included (they run 5.0.0-M1 otherwise): smoke runs
    # PIP-454 on 4.2.4, beside the rest, with no second release to download.
    same_release: bool = False
    # What runs on a deployment other than the local backend's (an external file, containers): the
    # smoke scenarios of the protocols start clusters of their own shapes, with faults, which only
    # the local backend gives (and must not touch a vendor's clusters); None: the profile as it is.
    elsewhere: Profile | None = None

    def declared(self, requirements) -> list[str]:
        """The ids this profile certifies: its areas' requirements that a conformance check judges,
        and its own ``requirements``."""
        mine = set(self.requirements)
        return [r.id for r in requirements
                if (r.area in self.areas or r.id in mine) and r.conformance and not r.uncovered]

    def protocols(self) -> list:
        """The protocols whose live scenarios this profile runs (its areas', and those its own
        ``requirements`` come from)."""
        mine = set(self.requirements)
        return [p for p in PROTOCOLS if p.area in self.areas or mine & set(p.smoke_requirements)]

    def roles(self) -> tuple[str, ...]:
        """The cluster names its scenarios use: on an external deployment, roles the deployment file
        must map to clusters."""
        seen: list[str] = []
        for p in self.protocols():
            seen += [r for r in p.roles if r not in seen]
        return tuple(seen)

    def on(self, backend: str) -> Profile:
        """This profile as it runs on ``backend`` (local, containers or external)."""
        return self if backend == "local" or self.elsewhere is None else self.elsewhere


# --- the system tools a profile runs (pulsar_conformance/debian.py features) --------------------------------
# Each backend's own, and each protocol's beyond it on the local backend, where the suite starts those
# servers itself: PIP-454 builds its Oxia server with Go, PIP-136 freezes broker clocks through a shim gcc
# compiles. certify checks them before anything starts (reports/runner/cli.py): the smoke run without Go once
# ended UNKNOWN minutes in, when PIP-454's scenario came to build Oxia (issue 51).
BACKEND_TOOLS: dict[str, tuple[str, ...]] = {"local": ("local",), "containers": ("containers",), "external": ()}
PROTOCOL_TOOLS: dict[str, tuple[str, ...]] = {"metadata-migration": ("oxia",), "policy-sync": ("clocks",)}
# what a protocol's smoke scenario does not run (policy-sync's sets the sync switch, no clock)
SMOKE_LACKS: dict[str, tuple[str, ...]] = {"policy-sync": ("clocks",)}
# PIP-454 is in Pulsar 4.2.0 and later: before it the scenarios are not applicable and start nothing
_OXIA_FROM = Version("4.2.0")


def tools(profile: Profile, backend: str, releases: tuple[str, ...] = (), select: str | None = None) -> tuple[str, ...]:
    """The debian.py features ``profile`` runs on ``backend`` (``local``, ``containers``, ``external``);
    ``releases``: the Pulsar releases named (--pulsar-version, --matrix pulsar=), none for the default;
    ``select``: certify's -k expression, which leaves out the protocols whose names it does not match."""
    found = list(BACKEND_TOOLS.get(backend, ()))
    if backend == "local":
        for protocol in profile.on(backend).protocols():
            if select and not _selects(select, protocol):
                continue
            for name in PROTOCOL_TOOLS.get(protocol.area, ()):
                if profile.name == "smoke" and name in SMOKE_LACKS.get(protocol.area, ()):
                    continue
                if name == "oxia" and releases and all(_older(r, _OXIA_FROM) for r in releases):
                    continue
                found.append(name)
    return tuple(dict.fromkeys(found))


def _selects(select: str, protocol) -> bool:
    """Whether pytest's ``-k select`` can match a test of ``protocol``: evaluated as pytest does, each
    name a case-insensitive substring of the tests' keywords, here the names a protocol's tests carry
    (its area, marker, test module, smoke tests). Unsure (no pytest, a bad expression): True."""
    area = protocol.area.replace("-", "_")
    keywords = [protocol.area, area, f"test_{area}", getattr(protocol, "marker", "") or "",
                *(getattr(protocol, "smoke_tests", ()) or ())]
    words = [k.lower() for k in keywords if k]
    try:
        from _pytest.mark.expression import Expression

        compiled = Expression.compile(select)
    except Exception:  # noqa: BLE001 - no pytest, or an expression request.py refuses with its own fix
        return True

    def matcher(name: str, **_kwargs) -> bool:
        return any(name.lower() in word for word in words)

    try:
        return bool(compiled.evaluate(matcher))
    except Exception:  # noqa: BLE001 - a matcher signature of another pytest: check the tools anyway
        return True


def _older(release: str, than: Version) -> bool:
    try:
        return Version(release) < than
    except ValueError:
        return False  # not a release number: request.py refuses it; here it needs what a release would


def _run(area: str, budget: SpecBudget) -> SpecRun:
    return SpecRun(area, budget.variant, depth=budget.depth, examples=budget.examples, max_states=budget.max_states)


def _profiles() -> dict[str, Profile]:
    """smoke, full and one profile per protocol, from the descriptors (pulsar_conformance/protocols/).

    Budgets were measured on the 2-core machine (docs/certify.md): smoke runs each spec's small
    budget and one mutant per spec (all client-failover mutants take almost 3 minutes); full runs
    every variant at the budgets CI uses and every mutant."""
    with_spec = [p for p in PROTOCOLS if p.spec]
    clients = [p for p in PROTOCOLS if p.min_client]
    oldest = max(clients, key=lambda p: Version(p.min_client), default=None)
    profiles = [_smoke(with_spec),
        Profile("full", "every conformance test, every spec variant with CI budgets, every mutant",
                markers="", spec_runs=tuple(_run(p.area, b) for p in with_spec for b in p.ci),
                mutants=tuple(_mutants(p.area, p.mutants) for p in with_spec if p.mutants), messages=6000,
                areas=tuple(p.area for p in PROTOCOLS),
                min_client=oldest.min_client if oldest else None,
                min_client_why=oldest.min_client_why if oldest else ""),
    ]
    for p in PROTOCOLS:
        profiles.append(Profile(p.area, p.profile, markers=p.marker, spec_runs=tuple(_run(p.area, b) for b in p.ci),
                                mutants=(_mutants(p.area, p.mutants),) if p.mutants else (), areas=(p.area,),
                                min_client=p.min_client, min_client_why=p.min_client_why, **p.profile_options))
    return {p.name: p for p in profiles}


def _smoke(with_spec) -> Profile:
    """One short live scenario of every protocol (its descriptor's ``smoke_tests``), the
    geo-replication scenario, spec checks with small budgets and one mutant per spec; elsewhere
    than on the local backend, the geo-replication scenario and the spec checks only."""
    live = [p for p in PROTOCOLS if p.live_smoke]
    short = [p for p in PROTOCOLS if p.smoke_tests]
    common = dict(spec_runs=tuple(_run(p.area, p.smoke) for p in with_spec if p.smoke),
                  mutants=tuple(_mutants(p.area, _SMOKE_MUTANT_BUDGET, p.smoke_mutant) for p in with_spec
                                if p.smoke_mutant), messages=1500,
                  areas=tuple(p.area for p in live))
    checks = "spec checks with small budgets and one mutant per spec"
    elsewhere = Profile("smoke", f"{', '.join(f'{p.area} with capture + Spark' for p in live)}; {checks} "
                        "(the other protocols' smoke scenarios start clusters of their own: local backend only)",
                        markers="smoke and not smoke_local", **common)
    clients = [p for p in short if p.min_client]
    oldest = max(clients, key=lambda p: Version(p.min_client), default=None)
    return Profile("smoke", "one short live scenario of every protocol ("
                   + ", ".join(f"{p.area}" for p in short) + "), "
                   + ", ".join(f"{p.area} with capture + Spark" for p in live) + f"; {checks}",
                   markers="smoke", requirements=tuple(r for p in short for r in p.smoke_requirements),
                   same_release=True, elsewhere=elsewhere,
                   min_client=oldest.min_client if oldest else None,
                   min_client_why=oldest.min_client_why if oldest else "", **common)


PROFILES: dict[str, Profile] = _profiles()


def get_profile(name: str) -> Profile:
    try:
        return PROFILES[name]
    except KeyError:
        raise UsageError(f"unknown profile {name!r}",
                         f"choose one of: {', '.join(PROFILES)} (see docs/certify.md)") from None
