"""Fixtures of the conformance suites: real deployments (fixtures/pytest_plugin.py), the
certification run's settings, and the cluster logs collected into the bundle."""
from __future__ import annotations

import json
import os
import sys

import pytest

from pulsar_conformance.fixtures import pytest_plugin, request_file
from pulsar_conformance.fixtures.deploy.base import FaultUnsupported, SettingUnavailable

# pytest_plugins may only be set in the rootdir's conftest, so the plugin's fixtures and
# hooks are imported here instead.
from pulsar_conformance.fixtures.pytest_plugin import (  # noqa: F401
    pulsar_deployment_factory,
    replicated_namespace,
)
from pulsar_conformance.fixtures.pytest_plugin import pytest_configure as _plugin_configure
from pulsar_conformance.protocols import markers, smoke_scenario
from pulsar_conformance.spark_checks.session import configure, stop_shared

from .explore.settings import ENV as EXPLORE_ENV
from .harness.deadline import ABANDONED
from .run import CertifyRun, VerdictUnknown

# registered from the protocol descriptors (pulsar_conformance/protocols/), not in pyproject.toml,
# because they belong to this suite (--strict-markers)
AREA_MARKERS = markers()


def pytest_configure(config) -> None:
    _read_request()
    for name, doc in AREA_MARKERS.items():
        config.addinivalue_line("markers", f"{name}: {doc}")
    config.addinivalue_line("markers", "explore: a live exploration (explore --live), never part of a certification")
    _plugin_configure(config)
    pytest_plugin.ON_START.append(_record_identity)


def _read_request() -> None:
    """The certify parent's request file, read once before anything runs: a missing, unreadable or altered
    one stops the session here with what is wrong (pytest exits 4, the run is unknown), not a scenario
    minutes in. Its Spark master (certify --spark-master) is where every capture check of the run goes."""
    try:
        master, driver_host = request_file.spark()
    except request_file.RequestFileError as error:
        raise pytest.UsageError(str(error)) from None
    if master:
        configure(master=master, driver_host=driver_host)


def _record_identity(deployment) -> None:
    """Every deployment a certify run starts goes into the bundle's deployment.json (the first
    one's status names the Pulsar release the report shows): the migration scenarios start
    their own, and a bundle without it said "pulsar: null" for a run on 4.2.4."""
    out = request_file.out_dir()
    if out is None:
        return  # not a certify run: nothing to record into
    try:
        status = deployment.status()
    except Exception as error:  # noqa: BLE001 - identity is context, not a verdict
        status = {"error": f"status unavailable: {type(error).__name__}"}
    path = out / "deployment.json"
    doc = json.loads(path.read_text()) if path.exists() else {}
    entry = {"deployment": deployment.to_json(), "status": status}
    doc.setdefault("deployment", entry["deployment"])  # the first one names the release
    doc.setdefault("status", entry["status"])
    doc.setdefault("all", []).append(entry)
    path.write_text(json.dumps(doc, indent=2, default=str))


@pytest.hookimpl(tryfirst=True)  # before pytest's own -m deselection reads the markers
def pytest_collection_modifyitems(session, config, items) -> None:
    _mark_smoke_scenarios(items)
    _explore_or_certify(config, items)
    _order_by_deployment(items)


def _explore_or_certify(config, items) -> None:
    """An explore run (``explore --live``: its request file named in the environment) runs the explore
    tests alone; a certification never runs them (deselected, not skipped: no skip stands in a report)."""
    exploring = bool(os.environ.get(EXPLORE_ENV))
    keep = [item for item in items if (item.get_closest_marker("explore") is not None) == exploring]
    if len(keep) != len(items):
        config.hook.pytest_deselected(items=[item for item in items if item not in keep])
        items[:] = keep


def _mark_smoke_scenarios(items) -> None:
    """The smoke profile's scenario of each protocol is named by its descriptor (``smoke_tests``),
    not by a marker in its module: one place says what smoke runs, tested against the modules."""
    for item in items:
        marks = {m.name for m in item.iter_markers()}
        if smoke_scenario(marks, item.path.name, item.name, getattr(item, "originalname", item.name)):
            item.add_marker(pytest.mark.smoke)
            item.add_marker(pytest.mark.smoke_local)


# fixtures that hold the session's blue and green until the very end
_SESSION_DEPLOYMENT = {"pulsar_deployment", "replicated_namespace"}


def _order_by_deployment(items) -> None:
    """Whole modules, stably reordered: those that start no cluster first (the spec checks), then
    those whose clusters are their own and stop with them, and last those on the session's blue and
    green, which stay up to the session's end: on two cores no scenario should run beside idle
    clusters it does not use. A module is moved as a whole, so its fixtures are set up once."""
    rank: dict = {}
    for item in items:
        names = set(getattr(item, "fixturenames", ()))
        own = 2 if names & _SESSION_DEPLOYMENT else 0 if "pulsar" not in {m.name for m in item.iter_markers()} else 1
        rank[item.module] = max(rank.get(item.module, 0), own)
    items.sort(key=lambda item: rank[item.module])


_exit = {"status": 0}


def pytest_sessionfinish(session, exitstatus) -> None:
    _exit["status"] = int(exitstatus)


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config) -> None:
    # the run's one Spark session (spark_checks/session.py) ends with the run, Ctrl-C included
    try:
        stop_shared()
    except Exception as error:  # noqa: BLE001 - a JVM that will not stop must not hide the verdicts
        sys.stderr.write(f"conformance: stopping the Spark session failed: {type(error).__name__}: {error}\n")
    # A client call abandoned at its deadline still holds the C++ client's lock (seen: Client.close()
    # stuck in HandlerBase::getCnx); the interpreter's shutdown would destroy that client and wait
    # on the lock forever. Reports are written by now: leave without the destructors.
    if ABANDONED:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(_exit["status"])


@pytest.fixture(scope="session")
def certify_run() -> CertifyRun:
    return CertifyRun.from_env()


@pytest.fixture(scope="session")
def pulsar_deployment(pulsar_deployment_factory, certify_run):  # noqa: F811 - a fixture argument
    """blue + green for the session; on the way out (pass, fail or Ctrl-C) their logs and
    identity go into the bundle, before the plugin stops the processes."""
    deployment = pulsar_deployment_factory(("blue", "green"))  # its identity: _record_identity
    yield deployment
    try:
        deployment.collect_logs(certify_run.out)  # copies into out/logs/<cluster>/
    except Exception as error:  # noqa: BLE001 - missing logs must not hide the verdicts
        (certify_run.directory("logs") / "COLLECTION-FAILED.txt").write_text(f"{type(error).__name__}: {error}\n")


def _unsupported(error: FaultUnsupported) -> VerdictUnknown:
    if isinstance(error, SettingUnavailable):
        return VerdictUnknown(f"the deployment does not run a broker setting this scenario needs: {error}")
    return VerdictUnknown(f"the deployment cannot inject a fault this scenario needs: {error}")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item):
    """A deployment fixture that asks an external deployment for what it cannot give (a broker setting
    its clusters do not run): the scenario was not run, unknown, as below."""
    try:
        return (yield)
    except FaultUnsupported as error:
        raise _unsupported(error) from error


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item):
    """A fault the deployment cannot inject (an external file's ``none``, a missing command) means the
    state the test is about was not reached: unknown, never an error and never a pass. Here, not in
    fixtures/pytest_plugin.py: the fixtures layer does not import the conformance layer."""
    try:
        return (yield)
    except FaultUnsupported as error:
        raise _unsupported(error) from error
