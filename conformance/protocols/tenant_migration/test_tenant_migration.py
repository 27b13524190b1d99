"""Tenant migration over geo-replication on real clusters (blue = A, green = B): a replicated
subscription with ack holes, the consumer switched to B, the duplicates measured and split by
cause against the spec's markdelete-only model (docs/tenant-migration.md)."""
from __future__ import annotations

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


@pytest.mark.parametrize("sub_type", ["Shared", "KeyShared"])
def test_switch_with_ack_holes(pulsar_deployment, certify_run, request, sub_type):
    rec = _run(pulsar_deployment, certify_run, request, f"holes-{sub_type.lower()}", scenario.Plan(sub_type=sub_type))
    rec.finish()
