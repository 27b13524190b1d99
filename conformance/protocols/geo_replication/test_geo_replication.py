"""Geo-replication blue -> green through a replication outage on real clusters (scenario.py),
recorded by the capture, then judged after it (record.py): the Spark checks (docs/spark-checks.md)
and judge.py."""
from __future__ import annotations

import pytest

from pulsar_conformance.conformance.profiles import get_profile

from . import scenario
from .record import judged

pytestmark = [pytest.mark.smoke, pytest.mark.geo_replication, pytest.mark.pulsar, pytest.mark.spark]


def test_blue_to_green_through_a_replication_outage(pulsar_deployment, replicated_namespace, certify_run, request):
    out = scenario.run(pulsar_deployment, replicated_namespace, certify_run.directory("captures", "geo-replication"),
                       messages=get_profile(certify_run.profile).messages, seed=certify_run.seed)
    judged(certify_run, request, out)
