"""The step between a policy-sync scenario and its judge (the role client_failover/record.py has there): the
scenario run on the suite's clusters, then every row judge.judge gives its outcome recorded. A policy-sync
run has no capture, so nothing is derived after it (no Spark verdict; the replayed spec counterexample is
compared with what the clusters hold by the judge itself, judge.replayed): the outcome the scenario saved is
all the judge reads, and ``judge BUNDLE`` judges the same file again (rejudge.py)."""
from __future__ import annotations

from ...harness.recorder import Recorder
from ...run import VerdictUnknown
from . import judge, scenario
from .checks import CHECKS
from .clusters import CLUSTERS
from .outcome import Outcome


def run_scenario(deployment, certify_run, name, steps, **options) -> Outcome:
    """scenario.run on the three clusters, in the run's captures/<name>: its outcome, not judged."""
    try:
        return scenario.run(deployment, certify_run.directory("captures", name), name, CLUSTERS, steps, **options)
    except NotImplementedError as error:  # a backend that cannot hold a link
        raise VerdictUnknown(f"{name}: {error}") from error


def record(certify_run, request, out: Outcome) -> Outcome:
    """Every row judge.judge gives the outcome recorded, and the test finished."""
    rec = Recorder(certify_run, request, out, CHECKS)
    rec.record(judge.judge(out))
    rec.finish()
    return out


def judged(deployment, certify_run, request, name, steps, **options) -> Outcome:
    """Run the scenario, record judge.judge's rows of its outcome, finish."""
    return record(certify_run, request, run_scenario(deployment, certify_run, name, steps, **options))
