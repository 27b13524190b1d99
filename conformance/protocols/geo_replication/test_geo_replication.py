"""Geo-replication blue -> green through a replication outage on real clusters (scenario.py),
recorded by the capture and judged by the Spark checks (docs/spark-checks.md) through judge.py."""
from __future__ import annotations

import pytest

from pulsar_conformance.reports.profiles import get_profile

from ...harness.recorder import Recorder
from . import judge, scenario
from .checks import CHECKS

pytestmark = [pytest.mark.smoke, pytest.mark.geo_replication, pytest.mark.pulsar, pytest.mark.spark]


def test_blue_to_green_through_a_replication_outage(pulsar_deployment, replicated_namespace, certify_run, request):
    out = scenario.run(pulsar_deployment, replicated_namespace, certify_run.directory("captures", "geo-replication"),
                       messages=get_profile(certify_run.profile).messages, seed=certify_run.seed)
    rec = Recorder(certify_run, request, out, CHECKS)
    rec.record(judge.judge(out))
    rec.finish()
