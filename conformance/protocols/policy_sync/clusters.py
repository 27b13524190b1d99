"""The three clusters the policy-sync live tests share: alpha, bravo and charlie, started with each
cluster's configuration store apart from its local one (``metadata_sync="prepared"``) and the suite's
broker clock shim (``clock_control``), then switched to sync by the setting, with PIP136-R07's probe
before and after (``Enabling``). A deployment whose clocks cannot be moved still starts, without them
(``Deployment.unavailable['clock']`` says why): the scenarios and faults that move a clock are then unknown or not generated.

A fixture module, not a test module (tests never import tests: tests/harness/test_layers.py): the
explore test (conformance/explore/test_explore_live.py) takes ``policy_sync_clusters`` from here, and
test_policy_sync.py's ``clusters`` is the same start (``three_clusters``)."""
from __future__ import annotations

import os
import time
import uuid
from pathlib import Path

import pytest

from pulsar_conformance.fixtures.deploy import metadata_sync
from pulsar_conformance.fixtures.deploy.admin import AdminError
from pulsar_conformance.fixtures.deploy.clocks import ClocksUnavailable

from ...harness import outcome as saved
from .outcome import Enabling

CLUSTERS = ["alpha", "bravo", "charlie"]
A = CLUSTERS[0]


def _sees(admin, tenant: str) -> bool:
    try:
        return tenant in (admin.tenants(timeout=5) or [])
    except AdminError:
        return False


def enable(deployment, run_dir: Path) -> Enabling:
    """A tenant written at alpha before the setting reaches no one; one written after reaches all. What
    was seen is saved in ``run_dir`` (outcome.json) and judged afterwards (judge.judge_enabling)."""
    if deployment.backend == "external":  # someone else's clusters: the sync must already be on
        metadata_sync.verify_external(deployment)
        return _saved(Enabling({}, {}, {}, run_dir, writer=A))
    first = f"before-{uuid.uuid4().hex[:6]}"
    names = [deployment.clusters[c].name for c in CLUSTERS]  # roles here; Pulsar's names in the tenant
    deployment.admin(A).put_tenant(first, names)
    time.sleep(3)
    before = {c: _sees(deployment.admin(c), first) for c in CLUSTERS[1:]}
    how = metadata_sync.enable(deployment, CLUSTERS, restart=deployment.faults.restart)
    second = f"after-{uuid.uuid4().hex[:6]}"
    deployment.admin(A).put_tenant(second, names)
    deadline = time.monotonic() + 15
    after = {}
    while time.monotonic() < deadline:
        after = {c: _sees(deployment.admin(c), second) for c in CLUSTERS[1:]}
        if all(after.values()):
            break
        time.sleep(0.2)
    return _saved(Enabling(before, after, how, run_dir, writer=A))


def _saved(e: Enabling) -> Enabling:
    e.run_dir.mkdir(parents=True, exist_ok=True)
    saved.save(e, e.run_dir)
    return e


def three_clusters(pulsar_deployment_factory, certify_run):
    """The deployment (a generator, as a fixture's body): started, synced, and its logs collected after."""
    name = f"policy-sync-{os.getpid()}"
    try:
        deployment = pulsar_deployment_factory(CLUSTERS, name=name, metadata_sync="prepared", clock_control=True)
    except ClocksUnavailable as error:  # what needs a clock is then unknown, the rest still runs
        deployment = pulsar_deployment_factory(CLUSTERS, name=name, metadata_sync="prepared")
        deployment.unavailable["clock"] = str(error)
    deployment.enabling = enable(deployment, certify_run.directory("captures", "enable"))
    yield deployment
    deployment.collect_logs(certify_run.directory("logs", "policy-sync"))


@pytest.fixture(scope="module")
def policy_sync_clusters(pulsar_deployment_factory, certify_run):
    yield from three_clusters(pulsar_deployment_factory, certify_run)
