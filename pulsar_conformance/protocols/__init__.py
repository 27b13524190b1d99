"""One descriptor per protocol: the single place a protocol is added.

Each module of this package describes one protocol (its catalog area, PIP, spec, checks, pytest
marker, certification profile, CI budgets and the certify options only its scenarios read) as
``PROTOCOL``. The spec registry, the pytest
markers of conformance/, the certify profiles and the spec runs of CI (``spec ci``) are derived
from these descriptors; docs/adding-a-protocol.md walks through adding one.
"""
from __future__ import annotations

import importlib
import pkgutil
from dataclasses import dataclass, field


@dataclass(frozen=True)
class SpecBudget:
    """One ``spec check`` run: a variant at the budgets it needs (measured on 2 cores)."""

    variant: str
    depth: int
    examples: int
    max_states: int = 1_000_000
    steps: int | None = None  # Hypothesis steps per example (None: the command's default)


@dataclass(frozen=True)
class MutantBudget:
    depth: int
    examples: int
    steps: int | None = None


@dataclass(frozen=True)
class ProtocolOption:
    """A ``certify`` option only this protocol's scenarios read (``--migration-tls``).

    reports/ derives everything about it from here: the command-line option and its help, the
    environment variable certify hands the tests' process (read there, the scenarios' side), the
    ``--matrix`` axis, which profiles accept it (those whose areas include a protocol declaring it),
    the bundle's ``configuration`` and reproduce command, and its checks before anything starts.
    """

    field: str  # its key in the request and in the bundle's configuration: "migration_tls"
    flag: str  # "--migration-tls"
    env: str  # the variable certify sets for the tests' process, which its scenarios read
    help: str  # certify --help (the profiles that accept it are added)
    metavar: str = "V"
    axis: str | None = None  # ``--matrix AXIS=V1,V2``: one bundle per value (None: no matrix over it)
    example: str = ""  # the matrix values shown in --help and in a refusal's fix: "off,advertised,on"
    # "module:function" called with (value, option) for the option's value, each matrix value and
    # the environment's, whatever the profile: the text alone, offline (a UsageError refuses it)
    check: str | None = None
    # "module:function" called with (value, deployment) for each value a run of a profile that
    # accepts it uses, once the deployment is known: what may look outside (Maven) or depends on
    # the deployment (a UsageError refuses it)
    prepare: str | None = None
    # a configuration of the run (not a release): the bundle's ``configuration`` records it, its
    # value or this default, for the profiles that accept it; None: not recorded there
    configuration_default: str | None = None
    # False: accepted by every profile (the other scenarios ignore it); True: refused by a profile
    # that runs none of the declaring protocols, and its environment value checked but not taken
    only_its_profiles: bool = True

    def run_check(self, value: str, option: str | None = None):
        return _load(self.check)(value, option or self.flag) if self.check else value

    def run_prepare(self, value: str, deployment) -> None:
        if self.prepare:
            _load(self.prepare)(value, deployment)


@dataclass(frozen=True)
class Protocol:
    area: str  # catalog area, check prefix, profile name and spec name
    title: str
    source: str  # the PIP or the docs it is judged against (a public URL)
    marker: str  # pytest marker of its live scenarios in conformance/
    profile: str  # the certify profile's description
    spec: str | None = None  # "module:Class" of its executable spec
    checks: str | None = None  # "module:CHECKS" of its declared live checks
    ci: tuple[SpecBudget, ...] = ()  # the spec runs of CI and of the full profile
    mutants: MutantBudget | None = None
    smoke: SpecBudget | None = None  # its spec run in the smoke profile
    smoke_mutant: str | None = None
    live_smoke: bool = False  # its live scenarios are part of smoke
    # The smoke profile's live part of a protocol whose own scenarios take minutes: its shortest
    # scenario that certifies a live requirement, as "test_module.py::test_name" ("...::test_name[id]"
    # for one parameter) in its package. conformance/conftest.py marks them ``smoke`` (and
    # ``smoke_local``: they start clusters of their own shape, which only the local backend gives).
    smoke_tests: tuple[str, ...] = ()
    smoke_requirements: tuple[str, ...] = ()  # the live requirements those scenarios certify
    min_client: str | None = None  # the oldest pulsar-client its scenarios run with
    min_client_why: str = ""
    profile_options: dict = field(default_factory=dict)  # further Profile fields (messages, ...)
    # "module:function": called with an external deployment before a certification starts, to stop
    # with exit 2 when the file lacks what the protocol's scenarios need (a UsageError)
    external_check: str | None = None
    # The cluster names its scenarios use (the keys of deployment.clusters): on an external deployment
    # each is a role the deployment file maps to one of its clusters (roles:), checked before the run.
    roles: tuple[str, ...] = ()
    # What its scenarios ask of a deployment's fault hooks (deployment.faults.kill, cut, ...): on an external
    # deployment, an action without a command in the file leaves the scenarios that need it unknown.
    faults: tuple[str, ...] = ()
    # Broker settings its verdicts depend on ("key", "key=value" or "key!=value" wanted; "role:..." on that role's
    # cluster alone), read by ``plan`` from the clusters' runtime configuration (an allow-list: reports/runner/plan.py
    # never prints other settings).
    broker_settings: tuple[str, ...] = ()
    # Scenarios ("test_module.py::test_name") that change a cluster for good (a cluster-level migration):
    # run on an external deployment only with certify --allow-irreversible.
    irreversible: tuple[str, ...] = ()
    # what those scenarios change for good, for the plan: a format string over the roles ("{blue}" is the
    # cluster playing blue)
    irreversible_change: str = ""
    # what an external deployment leaves unjudged, for the plan: requirement id -> why (not judged there), or
    # "*" -> why every requirement of the protocol is judged only in part there
    external_gaps: dict = field(default_factory=dict)
    # certify options only its scenarios read (ProtocolOption): reports/ knows them from here only
    options: tuple[ProtocolOption, ...] = ()

    def load_spec(self):
        return _load(self.spec) if self.spec else None

    def load_checks(self):
        return _load(self.checks) if self.checks else None

    def check_external(self, deployment) -> None:
        if self.external_check:
            _load(self.external_check)(deployment)


def _load(path: str):
    module, _, name = path.partition(":")
    return getattr(importlib.import_module(module), name)


def _discover() -> tuple[Protocol, ...]:
    found = []
    for info in pkgutil.iter_modules(__path__):
        module = importlib.import_module(f"{__name__}.{info.name}")
        protocol = getattr(module, "PROTOCOL", None)
        if not isinstance(protocol, Protocol):
            raise TypeError(f"{module.__name__} has no PROTOCOL = Protocol(...); every module of "
                            "pulsar_conformance/protocols/ describes one protocol")
        found.append(protocol)
    areas = [p.area for p in found]
    if len(set(areas)) != len(areas):
        raise ValueError(f"two protocol descriptors share an area: {sorted(areas)}")
    _check_options(found)
    return tuple(found)


def _check_options(found) -> None:
    """Two protocols may declare one option (the same declaration); two options may not share a
    field, a flag, a variable or an axis (one would shadow the other on the command line)."""
    distinct = list(dict.fromkeys(o for p in found for o in p.options))
    for attribute in ("field", "flag", "env", "axis"):
        values = [getattr(o, attribute) for o in distinct if getattr(o, attribute)]
        shared = sorted({v for v in values if values.count(v) > 1})
        if shared:
            raise ValueError(f"two different protocol options share a {attribute}: {', '.join(shared)}; a protocol "
                             "that reads another's option declares the very same ProtocolOption")


PROTOCOLS: tuple[Protocol, ...] = _discover()


def markers() -> dict[str, str]:
    """The pytest markers of conformance/: ``smoke`` and one per protocol."""
    return {"smoke": "part of the smoke profile",
            "smoke_local": "part of the smoke profile on the local backend only (a descriptor's smoke_tests)",
            **{p.marker: f"area: {p.title}" for p in PROTOCOLS}}


def smoke_scenario(item_marks: set[str], module: str, name: str, originalname: str) -> Protocol | None:
    """The protocol whose ``smoke_tests`` name this test (``module`` its file name, ``name`` with its
    parameter id, ``originalname`` without), among the protocols whose marker it carries."""
    for p in PROTOCOLS:
        if p.marker in item_marks and ({f"{module}::{name}", f"{module}::{originalname}"} & set(p.smoke_tests)):
            return p
    return None


def protocol_options(protocols=None) -> tuple[ProtocolOption, ...]:
    """Every certify option the protocols declare, each once, in the descriptors' order."""
    return tuple(dict.fromkeys(o for p in (PROTOCOLS if protocols is None else protocols) for o in p.options))


def declaring(option: ProtocolOption, protocols=None) -> tuple[Protocol, ...]:
    """The protocols that declare ``option``: the profiles whose areas include one accept it."""
    return tuple(p for p in (PROTOCOLS if protocols is None else protocols) if option in p.options)


def protocol(area: str) -> Protocol:
    for p in PROTOCOLS:
        if p.area == area:
            return p
    raise KeyError(area)
