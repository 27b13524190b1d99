"""The TLS configurations the PIP-188 profile runs in (``certify --migration-tls MODE``).

Releases and clients differ in how a redirect meets TLS: the Migrated-Topic command carries a
plain and a TLS broker URL, and a client picks one by how it speaks to blue. So the profile
runs under each of these, the same scenarios and checks, with the mode in the bundle:
"""
from __future__ import annotations

from dataclasses import dataclass

from pulsar_conformance.errors import UsageError
from pulsar_conformance.fixtures import request_file

from ...harness.hazards import Hazard

ENV = "PULSAR_CONFORMANCE_MIGRATION_TLS"


@dataclass(frozen=True)
class Mode:
    name: str
    brokers_tls: bool  # every broker also serves TLS, with the suite's throw-away CA
    clients_tls: bool  # clients speak pulsar+ssl to blue (and must to green)
    advertise_tls: bool  # blue's migration target names green's TLS URLs too
    meaning: str
    # the operator's mistake the mode reproduces: the requirements it makes unobservable are
    # unknown in that mode, never failed (docs/findings.md F-188-12)
    hazard: Hazard | None = None


MODES = {m.name: m for m in (
    Mode("off", False, False, False, "no TLS anywhere; green advertised without a TLS broker URL (the default)"),
    Mode("advertised", True, False, True,
         "TLS served by every broker and green advertised with its TLS broker URL; clients plain, so they must "
         "follow the plain URL"),
    Mode("on", True, True, True,
         "TLS served by every broker, clients on pulsar+ssl verifying the suite's CA, green advertised with its "
         "TLS URL: a TLS client must follow it"),
    Mode("on-no-tls-url", True, True, False,
         "TLS clients, but green advertised without a TLS broker URL: a redirect gives a TLS client no URL to "
         "follow (an operator's mistake the migration API accepts; what each client then does is recorded)",
         Hazard("--migration-tls on-no-tls-url", ("PIP188-R03", "PIP188-R05", "PIP188-R16"),
                "blue was migrated to a green advertised without its TLS broker URL while its clients speak TLS: "
                "Migrated-Topic gives them only the plain URL, which a TLS client rightly refuses, so they stay "
                "on blue and no send reaches green (docs/findings.md F-188-12); what the producers and the "
                "clients created through blue then do is the operator's configuration, not the release's",
                "advertise green's brokerServiceUrlTls (and serviceUrlTls) in the migrate call "
                "(POST /admin/v2/clusters/blue/migrate, ClusterUrl) whenever any client speaks TLS",
                # before 4.0 blue cannot even build the command without a TLS URL (F-188-13): the
                # release's own failure, whatever the clients speak
                keeps=("migrated-command-sent",))),
)}


def check(name: str | None) -> Mode:
    """The mode named (exit 2 with the choices for an unknown one)."""
    mode = MODES.get(name or "off")
    if mode is None:
        raise UsageError(f"unknown --migration-tls mode '{name}'",
                         "use one of: " + "; ".join(f"{m.name} ({m.meaning})" for m in MODES.values()))
    return mode


def current() -> Mode:
    """The mode this run was started in (certify's request file, else the variable: fixtures/request_file.option)."""
    return check(request_file.option("migration_tls", ENV))


def hazards() -> tuple[Hazard, ...]:
    """The configuration hazards of the run's mode (``Checks.hazards`` of PIP-188)."""
    mode = current()
    return (mode.hazard,) if mode.hazard else ()


def deploy(factory, names, **options):
    """A deployment from ``factory`` (the pytest plugin's) in the run's TLS mode: TLS brokers where
    the mode serves TLS, seen through TLS clients where its clients speak it."""
    from pulsar_conformance.fixtures.deploy.base import TlsClients

    mode = current()
    deployment = factory(names, **options, **({"tls": True} if mode.brokers_tls else {}))
    return TlsClients(deployment) if mode.clients_tls else deployment


def evidence() -> str:
    """The run's TLS configuration, for a check's evidence ("" in the default mode)."""
    mode = current()
    if mode.name == "off":
        return ""
    return (f" (TLS mode {mode.name}: clients {'on pulsar+ssl' if mode.clients_tls else 'plain'}, green advertised "
            f"{'with' if mode.advertise_tls else 'without'} its TLS broker URL)")
