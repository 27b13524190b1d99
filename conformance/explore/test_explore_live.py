"""The live test an explore request runs in certify's child (``explore --live PROFILE``): one per
protocol with an adapter, on the deployment its certification uses, shared by every schedule.

Run, then judge: while searching, each schedule's rows come from the protocol's judge with the capture
checked in-process (the search needs its answer before the next schedule), through the recorder's rules
with nothing written; once the search is over, Spark checks every schedule's capture in the run's one
Spark session, each saved outcome is judged again with Spark's verdict, and those rows are the ones
recorded (checks.jsonl). A schedule the two engines judge differently is said in explore.json (a defect
of one engine: the suite's, never Pulsar's)."""
from __future__ import annotations

import dataclasses
import threading

import pytest

from pulsar_conformance.output import progress
from pulsar_conformance.spark_checks.session import shared_session

from ..harness import afterwards, sources
from ..harness import outcome as saved
from ..harness.recorder import Recorder
from ..protocols.policy_sync.clusters import policy_sync_clusters  # noqa: F401 - a fixture: its three clusters
from ..run import VerdictUnknown, catalog_requirements
from . import results, settings
from .machine import Explorer
from .schedule import Step

pytestmark = [pytest.mark.explore, pytest.mark.pulsar, pytest.mark.spark]


def failing(recorded: list[dict]) -> list[str]:
    """Each recorded row that fails a requirement, by the recorder's rules (``sources.verdict_for``: an
    observation's failure is ``differs``, never a failure)."""
    by_id = {req.id: req for req in catalog_requirements()}
    return [f"{r['check']} ({q}): {r['evidence'][:160]}" for r in recorded for q in sources.failed(r, by_id)]


def explore(adapter_module, deployment, certify_run, request) -> None:
    asked = settings.read()
    checks = adapter_module.CHECKS
    # the run's one Spark session, warmed while the first schedules run (its start takes most of a minute), for the
    # protocols whose outcome has a capture (``SPARK``; policy-sync's judge reads the clusters' values alone)
    if adapter_module.SPARK:
        threading.Thread(target=shared_session, name="spark-warm-up", daemon=True).start()

    def provisional(outcome, rows) -> list[str]:
        return failing(Recorder(certify_run, request, outcome, checks, dry=True).record(rows))

    capabilities = deployment.capabilities()
    adapter = adapter_module.Adapter(deployment, certify_run.directory("captures"), capabilities)
    missing = adapter_module.VOCABULARY.missing(capabilities)
    if missing:
        progress(f"explore: the deployment cannot perform {', '.join(missing)}: those faults are not generated")
    explorer = Explorer(adapter, asked.settings, provisional, say=lambda text: progress(f"explore: {text}"))
    try:
        if asked.replay is not None:
            explorer.replay([Step.from_json(s) for s in asked.replay["steps"]], asked.repeat)
            found = []
        else:
            found = explorer.explore()
            for smallest in found:
                smallest.replays = explorer.replay(smallest.schedule.steps, asked.settings.replays)
    finally:
        adapter.close()
    recorded, disagree = judge_with_spark(explorer, adapter_module, certify_run, request)
    results.write(certify_run.out, explorer, found, missing, asked, disagree)
    if not recorded:
        raise VerdictUnknown("no schedule was judged: " + "; ".join(r.error for r in explorer.runs if r.error)[:500])
    # the test ends as any live test does over what it recorded (Recorder.finish: failed on a failed MUST, broken
    # on an unknown), so `judge BUNDLE` gives it the same outcome again
    finish = Recorder(certify_run, request, None, adapter_module.CHECKS, dry=True)
    finish.rows = recorded
    finish.finish()


def judge_with_spark(explorer: Explorer, adapter_module, certify_run, request) -> tuple[list[dict], list[str]]:
    """Every judged schedule's capture checked by Spark, its outcome judged again with that verdict and
    the rows recorded; (the recorded rows, the schedules on which Spark and the in-process engine disagree)."""
    disagree, every = [], []
    progress(f"explore: Spark checks the captures of {sum(r.outcome is not None for r in explorer.runs)} schedules")
    for run in explorer.runs:
        run.recorded_failures = []
        if run.outcome is None:
            continue
        out = run.outcome
        if adapter_module.SPARK:  # the protocol's outcome has a capture: Spark's verdict is the recorded one
            verdict = afterwards.spark_verdict(out.run_dir, out.columns)  # and verdict.json, as a scenario's record step
            out = dataclasses.replace(out, verdict=verdict)
            saved.save(out, out.run_dir)
        recorded = Recorder(certify_run, request, out, adapter_module.CHECKS).record(adapter_module.JUDGE(out))
        every += recorded
        run.recorded_failures = failing(recorded)
        if sorted(run.recorded_failures) != sorted(run.failures):
            disagree.append(f"{run.schedule.name}: in-process {run.failures or 'no failure'}, "
                            f"Spark {run.recorded_failures or 'no failure'}")
    return every, disagree


@pytest.mark.tenant_migration
def test_explore_tenant_migration(pulsar_deployment, certify_run, request):
    from ..protocols.tenant_migration import explore as adapter_module

    explore(adapter_module, pulsar_deployment, certify_run, request)


@pytest.mark.geo_replication
def test_explore_geo_replication(pulsar_deployment, certify_run, request):
    # blue and green as the geo-replication scenario has them, shared by every schedule (a namespace each)
    from ..protocols.geo_replication import explore as adapter_module

    explore(adapter_module, pulsar_deployment, certify_run, request)


@pytest.mark.policy_sync
def test_explore_policy_sync(policy_sync_clusters, certify_run, request):  # noqa: F811 - a fixture argument
    from ..protocols.policy_sync import explore as adapter_module

    explore(adapter_module, policy_sync_clusters, certify_run, request)


@pytest.mark.client_failover
def test_explore_client_failover(pulsar_deployment_factory, certify_run, request):
    # the client-failover suites' primary and two secondaries (their package fixture is not seen from here)
    from ..protocols.client_failover import explore as adapter_module

    with adapter_module.deployment(pulsar_deployment_factory, certify_run) as clusters:
        explore(adapter_module, clusters, certify_run, request)


@pytest.mark.cluster_migration
def test_explore_cluster_migration(pulsar_deployment_factory, certify_run, request):
    # PIP-188's blue and green as its scenarios start them (the package's module fixture is not seen from here),
    # shared by every schedule; each schedule migrates a namespace of its own, never the cluster
    from ..protocols.cluster_migration import explore as adapter_module

    with adapter_module.deployment(pulsar_deployment_factory, certify_run) as clusters:
        if adapter_module.lacking(certify_run, request, clusters):
            return  # a release without namespace-level migration: recorded not applicable
        explore(adapter_module, clusters, certify_run, request)


@pytest.mark.metadata_migration
def test_explore_metadata_migration(pulsar_deployment_factory, certify_run, request):
    # a migrated cluster cannot be migrated again: a fresh standalone on ZooKeeper with Oxia per schedule
    # (each costs a deployment start, ~20 s), stopped with its logs kept at the schedule's end
    from ..protocols.metadata_migration import explore as adapter_module

    if adapter_module.lacking(certify_run, request):
        return  # a release without PIP-454: recorded not applicable, nothing started
    with adapter_module.deployment(pulsar_deployment_factory, certify_run) as deployments:
        explore(adapter_module, deployments, certify_run, request)
