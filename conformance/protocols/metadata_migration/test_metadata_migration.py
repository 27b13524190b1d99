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

from pulsar_conformance.fixtures.deploy import ports
from pulsar_conformance.fixtures.deploy.versions import parse_version

from ...harness.recorder import Recorder
from . import judge, observe, scenario, trace
from .checks import CHECKS

pytestmark = [pytest.mark.metadata_migration, pytest.mark.pulsar, pytest.mark.spark]

# PIP-454's implementation first shipped in Pulsar 4.2.0 (its release notes list apache/pulsar#25219;
# 4.2.4's broker has MigrationCoordinator, DualMetadataStore and /admin/v2/metadata/migration); with
# no --pulsar-version the profile runs 5.0.0-M1 (5.0.1 does not resolve from Maven Central here)
FIRST_RELEASE = (4, 2)
DEFAULT_RELEASE = "5.0.0-M1"
CLUSTER = "zeta"


def _release() -> str:
    return os.environ.get("PULSAR_CONFORMANCE_PULSAR_VERSION") or DEFAULT_RELEASE


@pytest.fixture
def migrating(pulsar_deployment_factory, certify_run, request):  # noqa: F811 - a fixture argument
    """A fresh standalone on ZooKeeper with an Oxia server, or the reason the run cannot have one."""
    release = _release()
    problem = None
    if os.environ.get("PULSAR_CONFORMANCE_EXTERNAL"):
        problem = "an external deployment: the scenarios start, kill and compare the metadata stores themselves"
    elif (parse_version(release).major, parse_version(release).minor) < FIRST_RELEASE:
        problem = f"PIP-454 is in Pulsar 4.2.0 and later; this run is on {release}"
    if problem:
        yield None, problem
        return
    deployment = pulsar_deployment_factory([CLUSTER], name=f"metadata-migration-{os.getpid()}-{uuid.uuid4().hex[:4]}",
                                           pulsar_version=release, metadata="zk", oxia_server=True)
    yield deployment, None
    collect = getattr(deployment, "collect_logs", None)
    if collect is not None:
        collect(certify_run.directory("logs", f"metadata-migration-{request.node.name}"))


def _run(migrating, certify_run, request, name: str, checks: list[str], plan: scenario.Plan):
    deployment, problem = migrating
    out = None
    if not problem:
        out = scenario.run(deployment, certify_run.directory("captures", name), name, plan)
        problem = out.target_broken
    if problem:
        rec = Recorder(certify_run, request, out or _Nothing(certify_run.directory("captures", name)), CHECKS)
        for check in checks:
            rec(f"metadata-migration/{name}/{check}", None, problem)
        rec.finish()  # raises VerdictUnknown: every row is unknown
    return out.to_json(), out, Recorder(certify_run, request, out, CHECKS)


def _phases(rec, doc: dict, name: str) -> None:
    """R01: the phases in the PIP's order, and the observed trace (faults included) a behaviour of
    the spec as proposed (trace.py); what 5.0.0-M1's model says of it is in the evidence too."""
    ok, said = judge.phases(doc)
    behaves, trace_said = trace.evidence(doc)
    if ok is not None and behaves is not None:
        ok = ok and behaves
    rec(f"metadata-migration/{name}/phases", ok, f"{said}; {trace_said}")


class _Nothing:
    def __init__(self, run_dir):
        self.run_dir = run_dir


def test_migration_with_traffic(migrating, certify_run, request):
    """The migration run to its end under traffic and metadata writes, both stores compared after,
    a conditional write on the new store, and the broker restarted on oxia://."""
    checks = ["phases", "writes-refused", "ephemerals-recreated", "participants-waited", "versions-preserved",
              "data-plane", "after-cutover", "rest", "read-only-window"]
    doc, out, rec = _run(migrating, certify_run, request, "migrate", checks, scenario.Plan(nodes=50))
    _phases(rec, doc, "migrate")
    for check, fn in (("writes-refused", judge.writes_refused),
                      ("ephemerals-recreated", judge.ephemerals), ("participants-waited", judge.participants),
                      ("versions-preserved", judge.versions), ("after-cutover", judge.after_cutover),
                      ("rest", judge.rest)):
        rec.verdict(f"metadata-migration/migrate/{check}", fn, doc)
    rec.verdict("metadata-migration/migrate/data-plane", judge.data_plane, doc, out.verdict)
    ok, said, figures = judge.window(doc)
    rec("metadata-migration/migrate/read-only-window", ok, said, figures=figures)
    rec.finish()


def test_oxia_killed_during_the_copy(migrating, certify_run, request):
    """Oxia killed as soon as COPYING shows: FAILED, writes back on ZooKeeper, nothing accepted lost;
    then Oxia back and the migration started again (whom does the coordinator wait for now?)."""
    doc, out, rec = _run(migrating, certify_run, request, "oxia-killed",
                         ["phases", "rollback", "participants-waited", "data-plane"], scenario.Plan(fault="oxia", nodes=50))
    _phases(rec, doc, "oxia-killed")
    rec.verdict("metadata-migration/oxia-killed/rollback", judge.rollback, doc)
    rec.verdict("metadata-migration/oxia-killed/participants-waited", judge.participants, doc)
    rec.verdict("metadata-migration/oxia-killed/data-plane", judge.data_plane, doc, out.verdict)
    rec.finish()


def test_coordinator_killed_during_preparation(migrating, certify_run, request):
    """The broker (coordinator and participant) killed as soon as PREPARATION shows, then started
    again: the PIP has the migration end FAILED and the cluster writable on ZooKeeper."""
    doc, out, rec = _run(migrating, certify_run, request, "coordinator-killed", ["phases", "rollback"],
                         scenario.Plan(fault="coordinator", nodes=20, rate=0, timeout_s=90))
    _phases(rec, doc, "coordinator-killed")
    rec.verdict("metadata-migration/coordinator-killed/rollback", judge.rollback, doc)
    rec.finish()


def test_a_target_other_than_oxia(migrating, pulsar_deployment_factory, certify_run, request):
    """The PIP's framework migrates any source to any target: a ZooKeeper target (another chroot),
    and a source other than ZooKeeper (a standalone on its RocksDB store, to the same Oxia)."""
    deployment, _ = migrating
    target = f"{deployment.service_url('zookeeper')}/migrated" if deployment else None
    doc, out, rec = _run(migrating, certify_run, request, "other-target", ["other-target"],
                         scenario.Plan(nodes=5, rate=0, target=target, timeout_s=60))
    rocksdb = pulsar_deployment_factory(["rho"], name=f"metadata-migration-rocksdb-{os.getpid()}", pulsar_version=_release())
    other_source = observe.start(rocksdb.clusters["rho"].admin(), deployment.service_url("oxia"))
    ok, said = judge.other_target(doc, other_source.__dict__ | {"ok": other_source.ok})
    # bad input, what Pulsar answers (evidence, not a verdict): an Oxia target nobody listens on
    closed = ports.free_port()
    unreachable = observe.start(deployment.clusters[CLUSTER].admin(), f"oxia://127.0.0.1:{closed}/default")
    time.sleep(3.0)
    status_after = observe.call(deployment.clusters[CLUSTER].admin(), "GET", observe.STATUS)
    rec("metadata-migration/other-target/other-target", ok, said,
        unreachable_target={"start": unreachable.status, "body": unreachable.body,
                            "status_3s_after": status_after.body if status_after.ok else status_after.status})
    rec.finish()
