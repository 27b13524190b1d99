"""PIP-121 client cluster failover on real clusters, with the real Python client (pulsar-client's
``AutoClusterFailover`` and a ``ServiceInfoProvider``), judged per requirement.

One deployment for the module: a primary and two secondaries, a namespace replicated among all
three so that what was written before a switch is where the client goes. Each scenario runs a
producer and an Exclusive consumer through one failover client (check every 200 ms, thresholds
of 3 probes), injects faults, puts the clusters back, and is judged from the capture (Spark),
from where the client was attached over time, and by validating what was observed against the
client-failover spec (cpp variant; conformance/protocols/client_failover/trace.py). Pulsar-facts §7 has the
client's rules; the seed is https://github.com/apache/pulsar/blob/master/pip/pip-121.md.
"""
from __future__ import annotations

import pytest

from . import credentials
from .record import PAUSE_PRIMARY, judged, record

pytestmark = [pytest.mark.client_failover, pytest.mark.pulsar, pytest.mark.spark]


def test_failover_and_switch_back(clusters, certify_run, request):
    judged(clusters, certify_run, request, "failover-switch-back", [
        (3.0, lambda f: f.kill("primary")),
        (5.0, lambda f: f.start("primary")),
        (5.0, lambda f: None)])


def test_first_secondary_down(clusters, certify_run, request):
    judged(clusters, certify_run, request, "first-secondary-down", [
        (2.0, lambda f: f.kill("s1")),
        (1.0, lambda f: f.kill("primary")),
        (4.0, lambda f: f.start("primary")),
        (4.0, lambda f: f.start("s1")),
        (2.0, lambda f: None)])


def test_secondary_dies_in_use(clusters, certify_run, request):
    judged(clusters, certify_run, request, "secondary-dies", [
        (2.0, lambda f: f.kill("primary")),
        (3.0, lambda f: f.kill("s1")),
        (3.0, lambda f: f.start("primary")),
        (3.0, lambda f: f.start("s1")),
        (2.0, lambda f: None)])


def test_paused_primary_is_not_seen_by_the_probe(clusters, certify_run, request):
    judged(clusters, certify_run, request, "paused-primary", PAUSE_PRIMARY)


def test_provider_moves_the_client(clusters, certify_run, request):
    judged(clusters, certify_run, request, "provider", [
        (2.0, lambda f: f.point_to("s1")),
        (3.0, lambda f: f.point_to("primary")),
        (2.0, lambda f: None)], controlled=True)


def test_target_credentials_applied_on_switch(token_clusters, certify_run, request):
    """PIP121-R06: a primary and a secondary with different token secrets; after the primary dies the
    client must reach s1 with s1's token (conformance/protocols/client_failover/credentials.py)."""
    record(certify_run, request, credentials.run(token_clusters, certify_run.directory("captures", credentials.NAME)),
           client="cpp")
