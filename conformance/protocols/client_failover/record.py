"""What the two live suites of PIP-121 share (test_client_failover.py with the Python client,
test_java_client_failover.py with the Java one), and the step between a scenario and its judge: the
topic of a scenario; ``recorded``, what is judged after the scenario from what it saved (Spark's verdict
over the capture by harness/afterwards.py, the spec's validation of the events by trace.py), saved with
the outcome again; and ``record``, its rows from the pure judges (judge.py) recorded, each naming the
client it judged. Tests never import tests: both suites import this."""
from __future__ import annotations

import uuid

from ...harness import afterwards
from ...harness.recorder import Recorder
from ...run import VerdictUnknown
from . import judge, scenario, trace
from .checks import CHECKS
from .client import CLUSTERS
from .outcome import FailoverConfig, Outcome

# the Python client's scenarios: check every 200 ms, thresholds of 3 probes
CONFIG = FailoverConfig("primary", ("s1", "s2"), interval_ms=200, failover_threshold=3, switch_back_threshold=3)


def topic_for(deployment, name: str) -> str:
    ns = deployment.replicated_namespace("pf", f"{name}-{uuid.uuid4().hex[:6]}", list(CLUSTERS))
    return f"persistent://{ns}/orders"


def run_scenario(deployment, certify_run, name, steps, *, config: FailoverConfig = CONFIG,
                 runner=scenario.run, **options) -> Outcome:
    """Run the scenario (``runner``: the Python client's, or ``scenario.run_java``): its outcome, not judged yet."""
    try:
        return runner(deployment, certify_run.directory("captures", name), name, config,
                      topic_for(deployment, name), steps, seed=certify_run.seed, **options)
    except NotImplementedError as error:  # a deployment that cannot inject the fault
        raise VerdictUnknown(f"{name}: {error}") from error


def recorded(out: Outcome) -> Outcome:
    """What the judges read that the scenario left to be derived, derived from what it saved: Spark's
    verdict over the capture (``verdict.json`` beside it) and the spec's validation of the events; the
    outcome, failover.json and markers.json saved again with them (the report reads them there). A run
    without a capture (credentials.run: its verdict is {}, not None) has nothing for Spark, and nothing of
    its own file changes: its validation is kept for the judge only (outcome.json does not hold it)."""
    captured = out.verdict is None
    if captured:
        out.verdict = afterwards.spark_verdict(out.run_dir, out.columns, name=out.name)
    out.validation = trace.validation(out)
    if captured:
        scenario.save(out)
    return out


def record(certify_run, request, out: Outcome, *, client: str) -> Outcome:
    """``recorded``, then every row judge.judge gives the outcome recorded (``client``: the client the rows
    judge, a requirement taken from one client's code being no failure of another), and the test finished."""
    out = recorded(out)
    rec = Recorder(certify_run, request, out, CHECKS, client=client)
    rec.record(judge.judge(out))
    rec.finish()
    return out


def judged(deployment, certify_run, request, name, steps, *, runner=scenario.run, **options) -> Outcome:
    """Run the scenario, record every row judge.judge gives its outcome, and finish the test."""
    out = run_scenario(deployment, certify_run, name, steps, runner=runner, **options)
    # the rows name the client they judge: the Java runner's are the Java client's, the Python client's the C++ one's
    return record(certify_run, request, out, client="java" if runner is scenario.run_java else "cpp")


# the primary paused 4 s (SIGSTOP: its port open, nothing served), for either client
PAUSE_PRIMARY = [(2.0, lambda f: f.pause("primary")), (4.0, lambda f: f.resume("primary")), (3.0, lambda f: None)]
