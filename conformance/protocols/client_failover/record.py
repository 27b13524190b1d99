"""What the two live suites of PIP-121 share (test_client_failover.py with the Python client,
test_java_client_failover.py with the Java one): the topic of a scenario, and a scenario run with
the recorder of its checks, which names the client its rows judge. The verdicts come from the pure
judges (judge.py); tests never import tests: both suites import this."""
from __future__ import annotations

import uuid

from ...harness.recorder import Recorder
from ...run import VerdictUnknown
from . import judge, scenario
from .checks import CHECKS
from .client import CLUSTERS
from .outcome import FailoverConfig, Outcome

# the Python client's scenarios: check every 200 ms, thresholds of 3 probes
CONFIG = FailoverConfig("primary", ("s1", "s2"), interval_ms=200, failover_threshold=3, switch_back_threshold=3)


def topic_for(deployment, name: str) -> str:
    ns = deployment.replicated_namespace("pf", f"{name}-{uuid.uuid4().hex[:6]}", list(CLUSTERS))
    return f"persistent://{ns}/orders"


def run_scenario(deployment, certify_run, request, name, steps, *, config: FailoverConfig = CONFIG,
                 runner=scenario.run, **options) -> tuple[Outcome, Recorder]:
    """Run the scenario (``runner``: the Python client's, or ``scenario.run_java``); its outcome and
    the recorder of its checks."""
    try:
        out = runner(deployment, certify_run.directory("captures", name), name, config,
                     topic_for(deployment, name), steps, seed=certify_run.seed, **options)
    except NotImplementedError as error:  # a deployment that cannot inject the fault
        raise VerdictUnknown(f"{name}: {error}") from error
    # the rows name the client they judge: a requirement taken from one client's code is no failure of another
    return out, Recorder(certify_run, request, out, CHECKS, client="java" if runner is scenario.run_java else "cpp")


def judged(deployment, certify_run, request, name, steps, **options) -> Outcome:
    """Run the scenario, record every row judge.judge gives its outcome, and finish the test."""
    out, rec = run_scenario(deployment, certify_run, request, name, steps, **options)
    rec.record(judge.judge(out))
    rec.finish()
    return out


# the primary paused 4 s (SIGSTOP: its port open, nothing served), for either client
PAUSE_PRIMARY = [(2.0, lambda f: f.pause("primary")), (4.0, lambda f: f.resume("primary")), (3.0, lambda f: None)]
