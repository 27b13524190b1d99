"""Tenant migration over geo-replication on real clusters (blue = A, green = B): a replicated
subscription with ack holes, the consumer switched to B, the duplicates measured and split by
cause against the spec's markdelete-only model (docs/tenant-migration.md)."""
from __future__ import annotations

import os
import uuid

import pytest

from ...harness.recorder import Recorder
from . import judge, scenario
from .checks import CHECKS

pytestmark = [pytest.mark.tenant_migration, pytest.mark.pulsar, pytest.mark.spark]


def _run(deployment, certify_run, request, name: str, plan: scenario.Plan):
    ns = deployment.replicated_namespace(f"tm-{uuid.uuid4().hex[:6]}", "moving", ["blue", "green"])
    out = scenario.run(deployment, certify_run.directory("captures", name), name, f"persistent://{ns}/orders", plan,
                       seed=certify_run.seed)
    rec = Recorder(certify_run, request, out, CHECKS)
    for suffix, ok, said in judge.judge(out.figures, out.verdict):
        rec(f"tenant-migration/{name}/{suffix}", ok, said, **vars(out.figures))
    return rec


# the suite's own tests break a run on purpose (tests/protocols/tenant_migration): B skips messages
SKIP_ON_B = int(os.environ.get("PULSAR_CONFORMANCE_TEST_TM_SKIP_ON_B", "0"))


@pytest.mark.parametrize("sub_type", ["Shared", "KeyShared"])
def test_switch_with_ack_holes(pulsar_deployment, certify_run, request, sub_type):
    """Holes from the first messages on: A's markDeletePosition stays near the start, so B's cannot
    follow past it and everything acknowledged after the first hole comes again."""
    rec = _run(pulsar_deployment, certify_run, request, f"holes-{sub_type.lower()}",
               scenario.Plan(sub_type=sub_type, skip_on_b=SKIP_ON_B))
    rec.finish()


def test_switch_after_progress_synced(pulsar_deployment, certify_run, request):
    """A clean first half published over three seconds (three cursor snapshots), holes only in the
    second: B's markDeletePosition follows A's to a snapshot, and only what lies past it comes again."""
    rec = _run(pulsar_deployment, certify_run, request, "synced-prefix",
               scenario.Plan(holes_from=151, rate=100.0, skip_on_b=SKIP_ON_B))
    rec.finish()
