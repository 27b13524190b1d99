"""What the two live suites of PIP-121 share (test_client_failover.py with the Python client,
test_java_client_failover.py with the Java one): a scenario run into a recorder, the rows every
scenario with switches records (its trace, switches apart, no needless reconnect, nothing
acknowledged lost), a switch's figures, and the paused-primary scenario both clients meet.

The verdicts themselves come from the pure judges (judge.py, trace.py, java_client's
``needless_reconnects``); this module runs and records. Tests never import tests: both suites
import this."""
from __future__ import annotations

import uuid

from ...harness import evidence as captured
from ...harness import switchover
from ...harness.recorder import Recorder
from ...run import VerdictUnknown
from . import judge, scenario, trace
from .checks import CHECKS
from .client import CLUSTERS, FailoverConfig
from .java_client import needless_reconnects
from .trace import evidence

# the Python client's scenarios: check every 200 ms, thresholds of 3 probes
CONFIG = FailoverConfig("primary", ("s1", "s2"), interval_ms=200, failover_threshold=3, switch_back_threshold=3)

_secs = switchover.seconds


def topic_for(deployment, name: str) -> str:
    ns = deployment.replicated_namespace("pf", f"{name}-{uuid.uuid4().hex[:6]}", list(CLUSTERS))
    return f"persistent://{ns}/orders"


def run_scenario(deployment, certify_run, request, name, steps, *, config: FailoverConfig = CONFIG,
                 runner=scenario.run, **options) -> tuple[scenario.Outcome, Recorder]:
    """Run the scenario (``runner``: the Python client's, or ``scenario.run_java``); its outcome and
    the recorder of its checks."""
    try:
        out = runner(deployment, certify_run.directory("captures", name), name, config,
                     topic_for(deployment, name), steps, seed=certify_run.seed, **options)
    except NotImplementedError as error:  # a deployment that cannot inject the fault
        raise VerdictUnknown(f"{name}: {error}") from error
    # the rows name the client they judge: a requirement taken from one client's code is no failure of another
    return out, Recorder(certify_run, request, out, CHECKS, client="java" if runner is scenario.run_java else "cpp")


def after(out, kind: str, cluster: str, since_ns: int, origin: str | None = None):
    return next((e for e in out.events if e.kind == kind and e.cluster == cluster and e.at_ns >= since_ns
                 and (origin is None or e.origin == origin)), None)


def record_common(rec, out, prefix: str, requirements: list[str]) -> None:
    """A scenario with switches: the trace is a behaviour of the spec; nothing acknowledged was lost."""
    v = out.validation
    rec(f"{prefix}/trace", v.ok, evidence(v, out.events, out.start_ns, out.config.variant), requirements=requirements,
        hidden_checks=v.hidden_steps, switches=len(out.switches()))
    apart = trace.switches_apart(out.events, out.config)
    if apart is not None:  # a scenario with one switch says nothing about two
        rec(f"{prefix}/switches-apart", *apart)
    # the Java client logs every switch it makes, from and to; the Python API shows none of that
    logged = (out.java or {}).get("switch_log") or []
    if any(origin is not None for _, origin, _ in logged):
        rec(f"{prefix}/no-needless-reconnect", *needless_reconnects(logged))
    record_lost(rec, out, prefix)


def record_lost(rec, out, prefix: str) -> None:
    """PIP121-R11 from the capture and the clusters' backlogs after the client ended (judge.py)."""
    found = {k: v["count"] for k, v in out.verdict["anomalies"].items() if v.get("count")}
    switches = out.switches()
    if out.verdict.get("valid") is None or not switches:
        rec(f"{prefix}/nothing-acknowledged-lost", None,
            f"not judged: {'Spark could not judge the capture' if switches else 'no switch'}", anomalies=found)
        return
    ok, said, figures = judge.acknowledged_lost(out.columns, out.backlogs, switches[-1].cluster,
                                                drain_complete=out.drain_complete)
    drained = (out.java or {}).get("drained")
    rec(f"{prefix}/nothing-acknowledged-lost", ok,
        f"{said}; Spark over {out.verdict['events']} captured events ({out.sends_ok} acknowledged sends) across "
        f"{len(switches)} switch(es): {found or 'no anomaly'}" + (f"; Java harness: {drained}" if drained else ""),
        anomalies=found, **figures)


def switch_figures(out, fault, switch, earliest_s: float, need: str) -> tuple[str, dict]:
    """How long ``switch`` took after ``fault`` against the earliest the client's policy allows
    (``need`` says why), and what it cost the traffic; for either client."""
    took = _secs(fault.at_ns, switch.at_ns)
    sends = [t for t, k in zip(out.columns["ts_ns"], out.columns["kind"], strict=True) if k == "send_ok"]
    receives = captured.rows(out.columns, kind="receive")
    figures = {"switch_s": took, "first_send_after_switch_s": switchover.after(switch.at_ns, switchover.first_after(sends, switch.at_ns)),
               "earliest_s": round(earliest_s, 3),
               # the same switch-over figures as a migration's: silence and what was read again
               "longest_send_gap_s": switchover.longest_gap_s(sends),
               "duplicates_after_switch": switchover.duplicates_after(receives, switch.at_ns)}
    return (f"{fault.kind} {fault.cluster} at +{_secs(out.start_ns, fault.at_ns)} s; client {switch.origin} -> "
            f"{switch.cluster} {took} s later ({need}: not before {figures['earliest_s']} s at the "
            f"{out.config.interval_ms} ms interval); first acknowledged send after it "
            f"{figures['first_send_after_switch_s']} s after the switch; longest gap between acknowledged sends "
            f"{figures['longest_send_gap_s']} s; {figures['duplicates_after_switch']} deliveries read again after it"), figures


def paused_primary(clusters, certify_run, request, name: str, would_have: str, **options):
    """The primary paused 4 s (SIGSTOP: its port open, nothing served), for either client; the
    outcome and recorder, the blind spot recorded (``would_have``: what a dead one would have caused)."""
    out, rec = run_scenario(clusters, certify_run, request, name, [
        (2.0, lambda f: f.pause("primary")),
        (4.0, lambda f: f.resume("primary")),
        (3.0, lambda f: None)], **options)
    pause = next(m for m in out.markers if "paused" in m["label"])
    resume = next(m for m in out.markers if "resumed" in m["label"])
    during = [e for e in out.switches() if pause["ts_ns"] <= e.at_ns <= resume["ts_ns"]]
    stalled = [t for t, k in zip(out.columns["ts_ns"], out.columns["kind"], strict=True)
               if k == "send_ok" and pause["ts_ns"] < t < resume["ts_ns"]]
    rec(f"client-failover/{name}/tcp-probe-blind-spot", not during,
        f"primary paused {_secs(pause['ts_ns'], resume['ts_ns'])} s (its port open, nothing served): the client "
        f"{'stayed' if not during else 'switched ' + str([vars(e) for e in during])}; {len(stalled)} sends were "
        f"acknowledged during the pause ({would_have})",
        acknowledged_during_pause=len(stalled), pause_s=_secs(pause["ts_ns"], resume["ts_ns"]))
    return out, rec
