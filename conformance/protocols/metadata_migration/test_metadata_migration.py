"""PIP-454 metadata store migration on a real Pulsar 4.2+ standalone: its metadata on a ZooKeeper
server, an Oxia server beside it as the target, traffic and metadata writes through the whole
migration (scenario.py), judged by judge.py. Each scenario starts its own deployment: a migrated
(or failed) cluster cannot be migrated again from scratch.

The seed is https://github.com/apache/pulsar/blob/master/pip/pip-454.md; the code read is
5.0.0-M1's MigrationCoordinator and DualMetadataStore (spec/protocols/metadata_migration.py).
"""
from __future__ import annotations

import os
import time
import uuid

import pytest

from pulsar_conformance.fixtures import request_file
from pulsar_conformance.fixtures.deploy import ports, topology
from pulsar_conformance.fixtures.deploy.versions import parse_version

from ...harness.recorder import Recorder
from ...harness.rows import not_applicable, row
from . import observe, record, scenario, site
from .checks import CHECKS

pytestmark = [pytest.mark.metadata_migration, pytest.mark.pulsar, pytest.mark.spark]

# PIP-454's implementation first shipped in Pulsar 4.2.0 (its release notes list apache/pulsar#25219;
# 4.2.4's broker has MigrationCoordinator, DualMetadataStore and /admin/v2/metadata/migration); with
# no --pulsar-version the profile runs 5.0.0-M1 (5.0.1 does not resolve from Maven Central here)
FIRST_RELEASE = (4, 2)
DEFAULT_RELEASE = "5.0.0-M1"
CLUSTER = "zeta"


def _release() -> str:
    return request_file.pulsar_version() or DEFAULT_RELEASE


@pytest.fixture
def migrating(pulsar_deployment_factory, certify_run, request):  # noqa: F811 - a fixture argument
    """A fresh standalone on ZooKeeper with an Oxia server, or the reason the run cannot have one. On an
    external deployment: the operator's cluster playing ``zeta``, while its migration flag says NOT_STARTED
    (the release is the brokers': one without PIP-454 refuses the start call, which the judge reads)."""
    if request_file.external():
        deployment = pulsar_deployment_factory([CLUSTER])
        yield deployment, site.unmigrated(site.of(deployment, CLUSTER))
        return
    release = _release()
    if (parse_version(release).major, parse_version(release).minor) < FIRST_RELEASE:
        # the release lacks the feature: its checks do not apply (issue 33), rather than unknown
        yield None, Inapplicable(f"PIP-454 is in Pulsar 4.2.0 and later; this run is on {release}")
        return
    deployment = pulsar_deployment_factory([CLUSTER], name=f"metadata-migration-{os.getpid()}-{uuid.uuid4().hex[:4]}",
                                           pulsar_version=release, metadata="zk", oxia_server=True)
    yield deployment, None
    deployment.collect_logs(certify_run.directory("logs", f"metadata-migration-{request.node.name}"))


class Inapplicable(str):
    """Why no scenario of this run applies (a release without PIP-454)."""


def _certify(migrating, certify_run, request, name: str, checks: tuple[str, ...], plan: scenario.Plan) -> None:
    """Run the scenario, then Spark's verdict and its judged rows (record.judged); nothing more where the
    release lacks PIP-454."""
    out = _run(migrating, certify_run, request, name, checks, plan)
    if out:
        record.judged(certify_run, request, out).finish()


def _run(migrating, certify_run, request, name: str, checks: tuple[str, ...], plan: scenario.Plan):
    """Run the scenario and return its outcome, not judged yet; a run that cannot judge (no deployment, the
    target server broken by itself) leaves every check unknown and breaks the test here. None where the
    release lacks PIP-454: every check is recorded not applicable and nothing is started."""
    deployment, problem = migrating
    if isinstance(problem, Inapplicable):
        _not_judged(certify_run, request, name, checks, problem, make=not_applicable)
        return None
    if problem:
        _not_judged(certify_run, request, name, checks, problem)  # raises VerdictUnknown: every row is unknown
    out = scenario.run(deployment, certify_run.directory("captures", name), name, plan, judged=checks)
    if not out.target_broken:
        return out
    record.judged(certify_run, request, out).finish()  # raises VerdictUnknown: every row is unknown


def _not_judged(certify_run, request, name: str, checks, reason: str, make=None) -> None:
    """Each of scenario ``name``'s checks without a verdict, for ``reason``: unknown (``row``), or ``make`` (e.g.
    ``not_applicable``); finish() raises VerdictUnknown when they are unknown."""
    rec = Recorder(certify_run, request, _Nothing(certify_run.directory("captures", name)), CHECKS)
    rec.record((make(f"metadata-migration/{name}/{check}", reason) if make else
                row(f"metadata-migration/{name}/{check}", None, reason)) for check in checks)
    rec.finish()


class _Nothing:
    def __init__(self, run_dir):
        self.run_dir = run_dir


def test_migration_with_traffic(migrating, certify_run, request):
    """The migration run to its end under traffic and metadata writes, both stores compared after,
    a conditional write on the new store, and the broker restarted on oxia://."""
    _certify(migrating, certify_run, request, "migrate",
             ("phases", "writes-refused", "ephemerals-recreated", "participants-waited", "versions-preserved",
              "after-cutover", "rest", "data-plane", "read-only-window"), scenario.Plan(nodes=50))


def test_migration_reaches_completed(migrating, certify_run, request):
    """The smoke profile's migration: a small cluster (10 namespaces) with light traffic migrated to its end,
    judged by what a migration that completes must show: the phases in order to COMPLETED (R01), every
    participant waited for (R04), their ephemerals in the target (R03), the traffic unharmed (R06). The
    writes through the migration and the cluster after the cutover (R02, R08: test_migration_with_traffic)
    are left to the metadata-migration profile: the smoke profile says what it certifies."""
    _certify(migrating, certify_run, request, "completes",
             ("phases", "participants-waited", "ephemerals-recreated", "data-plane"), scenario.Plan(nodes=10, rate=20))


def test_oxia_killed_during_the_copy(migrating, certify_run, request):
    """Oxia killed as soon as COPYING shows: FAILED, writes back on ZooKeeper, nothing accepted lost;
    then Oxia back and the migration started again (whom does the coordinator wait for now?)."""
    _certify(migrating, certify_run, request, "oxia-killed",
             ("phases", "rollback", "participants-waited", "data-plane"), scenario.Plan(fault="oxia", nodes=50))


def test_coordinator_killed_during_preparation(migrating, certify_run, request):
    """The broker (coordinator and participant) killed as soon as PREPARATION shows, then started
    again: the PIP has the migration end FAILED and the cluster writable on ZooKeeper."""
    _certify(migrating, certify_run, request, "coordinator-killed", ("phases", "rollback"),
             scenario.Plan(fault="coordinator", nodes=20, rate=0, timeout_s=90))


# not after-cutover: with the killed bookie out (it cannot register again during the migration, F-454-13) an
# ensemble of every bookie creates no ledger in either store, whatever the cutover did; `migrate` judges it
PARTICIPANT_CHECKS = ("phases", "participants-waited", "ephemerals-recreated")


def test_participant_killed_during_preparation(certify_run, request):
    """A bookie, a participant that is not the coordinator, paused from before the start (PREPARATION must
    wait for it), then killed and started again as a supervisor would: the coordinator waited for it, and
    once COMPLETED every broker and bookie registered in the source is live in the target. Only a cluster topology has a
    participant apart from the coordinator: on a standalone the one process is both (the coordinator-killed
    scenario), so the checks are not applicable there and no deployment is started."""
    shape = topology.from_environment()
    if request_file.external():
        _not_judged(certify_run, request, "participant-killed", PARTICIPANT_CHECKS,
                    "not built for an external deployment: the scenario pauses one bookie of the suite's own topology "
                    "and reads its registration by the port the suite gave it")
        return  # finish() raised VerdictUnknown already: every row is unknown
    if shape is None or shape.bookies < 2:
        _not_judged(certify_run, request, "participant-killed", PARTICIPANT_CHECKS,
                    "a participant apart from the coordinator needs a cluster topology of 2 bookies or more "
                    "(certify --topology cluster); a standalone's one process is participant and coordinator",
                    make=not_applicable)
        return
    migrating = request.getfixturevalue("migrating")
    _certify(migrating, certify_run, request, "participant-killed", PARTICIPANT_CHECKS,
             scenario.Plan(fault="participant", nodes=20, rate=0, timeout_s=120))


def test_a_target_other_than_oxia(migrating, pulsar_deployment_factory, certify_run, request):
    """The PIP's framework migrates any source to any target: a ZooKeeper target (another chroot),
    and a source other than ZooKeeper (a standalone on its RocksDB store, to the same Oxia)."""
    deployment, _ = migrating
    if request_file.external():
        _not_judged(certify_run, request, "other-target", ("other-target",),
                    "not built for an external deployment: the scenario starts a second cluster (a RocksDB standalone)")
        return
    where = site.of(deployment, CLUSTER) if deployment else None
    ran = _run(migrating, certify_run, request, "other-target", ("other-target",),
               scenario.Plan(nodes=5, rate=0, target=where and f"{where.zookeeper_url()}/migrated", timeout_s=60))
    if not ran:
        return  # the release lacks PIP-454: recorded not applicable
    out = ran
    rocksdb = pulsar_deployment_factory(["rho"], name=f"metadata-migration-rocksdb-{os.getpid()}", pulsar_version=_release())
    other_source = observe.start(rocksdb.clusters["rho"].admin(), where.target_url)
    out.other_source = other_source.__dict__ | {"ok": other_source.ok}
    # bad input, what Pulsar answers (evidence, not a verdict): an Oxia target nobody listens on
    closed = ports.free_port()
    unreachable = observe.start(deployment.clusters[CLUSTER].admin(), f"oxia://127.0.0.1:{closed}/default")
    time.sleep(3.0)
    status_after = observe.call(deployment.clusters[CLUSTER].admin(), "GET", observe.STATUS)
    out.unreachable_target = {"start": unreachable.status, "body": unreachable.body,
                              "status_3s_after": status_after.body if status_after.ok else status_after.status}
    record.judged(certify_run, request, out).finish()  # saves the outcome with what was added here
