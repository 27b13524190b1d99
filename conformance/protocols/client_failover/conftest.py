"""One deployment for the package: a primary and two secondaries, shared by the Python and the
Java client's scenarios (a second set of three standalones would cost a minute and two cores)."""
from __future__ import annotations

import os

import pytest

from .client import CLUSTERS


@pytest.fixture(scope="package")
def clusters(pulsar_deployment_factory, certify_run):  # noqa: F811 - a fixture argument
    deployment = pulsar_deployment_factory(CLUSTERS, name=f"failover-{os.getpid()}")
    yield deployment
    deployment.collect_logs(certify_run.directory("logs", "client-failover"))
    deployment.close()


@pytest.fixture(scope="package")
def token_clusters(pulsar_deployment_factory, certify_run):  # noqa: F811 - a fixture argument
    """A primary and one secondary that trust different token secrets (PIP121-R06)."""
    deployment = pulsar_deployment_factory(("primary", "s1"), name=f"failover-tokens-{os.getpid()}",
                                           auth="token-per-cluster", heap_mb=384)
    yield deployment
    deployment.collect_logs(certify_run.directory("logs", "client-failover-tokens"))
    deployment.close()
