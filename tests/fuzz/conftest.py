"""The fuzz tests' session: one folder for every case, and the count of cases run, printed at the end."""
from __future__ import annotations

import pytest

from . import cases, sandbox

PRELOAD = (
    "pulsar_conformance.reports.runner.request", "pulsar_conformance.reports.runner.certify", "pulsar_conformance.reports.bundle.compare",
    "pulsar_conformance.reports.bundle.verdicts", "pulsar_conformance.fixtures.deploy.external",
    "pulsar_conformance.fixtures.deploy.local", "pulsar_conformance.fixtures.client_versions",
    "pulsar_conformance.spec.registry", "pulsar_conformance.spec.core.expression", "pulsar_conformance.spec.core.view",
    "pulsar_conformance.spec.core.explorer", "pulsar_conformance.spec.core.itf", "pulsar_conformance.spec.core.simulate",
    "pulsar_conformance.spec.core.graph", "pulsar_conformance.spec.core.check", "pulsar_conformance.spec.core.bmc",
    "pulsar_conformance.spark_checks.check", "pulsar_conformance.spark_checks.capture_input",
    "pulsar_conformance.spark_checks.engine_python", "pulsar_conformance.spark_checks.synth",
    "pulsar_conformance.conformance.protocols.cluster_migration.tls_modes", "_pytest.mark.expression",
    "pulsar_conformance.reports.runner.plan", "pulsar_conformance.reports.bundle.results", "pulsar_conformance.reports.bundle.archive",
    "pulsar_conformance.fixtures.deploy.tls", "pulsar_conformance.fixtures.deploy.oauth2",
    "pulsar_conformance.spec.core.itf", "requests",
)


@pytest.fixture(scope="session", autouse=True)
def _fuzz_session():
    # Imported once here, so each forked case pays nothing for them.
    import importlib

    from pulsar_conformance import cli

    cli.build_parser()
    for name in PRELOAD:
        try:
            importlib.import_module(name)
        except ImportError:  # an area whose extra is not installed: its cases say so themselves
            pass
    from pulsar_conformance.reports.bundle.verdicts import load_requirements

    load_requirements()  # the catalog, read once (cached): plan's cases would each read it again
    # Every case forks this process: with its objects moved out of the collector's reach, a child's collections
    # no longer walk (and so copy, page by page) the whole inherited heap
    import gc

    gc.collect()
    gc.freeze()
    yield
    gc.unfreeze()
    cases.cleanup_root()


NOT_FUZZ = ("control", "sandbox-self-test")  # valid inputs and the judge's own tests: counted apart


def pytest_terminal_summary(terminalreporter):
    if not sandbox.COUNTS:
        return
    fuzz = {s: n for s, n in sandbox.COUNTS.items() if s not in NOT_FUZZ}
    seconds = sum(t for s, t in sandbox.SECONDS.items() if s not in NOT_FUZZ)
    per = ", ".join(f"{surface} {n} ({sandbox.SECONDS[surface]:.1f} s)" for surface, n in sorted(fuzz.items()))
    others = ", ".join(f"{s} {sandbox.COUNTS[s]}" for s in NOT_FUZZ if sandbox.COUNTS.get(s))
    terminalreporter.write_line(f"fuzz: {sum(fuzz.values())} bad-input cases run through the CLI in {seconds:.1f} s "
                                f"({per}){'; besides: ' + others if others else ''}")
