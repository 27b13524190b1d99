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

import uuid

import pytest

from ...harness import evidence as captured
from ...harness import switchover
from ...harness.recorder import Recorder
from ...run import VerdictUnknown
from . import credentials, judge, scenario, trace
from .checks import CHECKS
from .client import CLUSTERS, FailoverConfig
from .java_client import needless_reconnects
from .trace import evidence

pytestmark = [pytest.mark.client_failover, pytest.mark.pulsar, pytest.mark.spark]

CONFIG = FailoverConfig("primary", ("s1", "s2"), interval_ms=200, failover_threshold=3, switch_back_threshold=3)
TRACE_REQUIREMENTS = ["PIP121-R01", "PIP121-R02", "PIP121-R03", "PIP121-R04", "PIP121-R08"]


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


_secs = switchover.seconds


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
    if out.verdict.get("valid") is None or not out.switches():
        rec(f"{prefix}/nothing-acknowledged-lost", None,
            f"not judged: {'no switch' if out.switches() == [] else 'Spark could not judge the capture'}",
            anomalies=found)
        return
    final = out.switches()[-1].cluster
    ok, said, figures = judge.acknowledged_lost(out.columns, out.backlogs, final, drain_complete=out.drain_complete)
    drained = (out.java or {}).get("drained")
    rec(f"{prefix}/nothing-acknowledged-lost", ok,
        f"{said}; Spark over {out.verdict['events']} captured events ({out.sends_ok} acknowledged sends) across "
        f"{len(out.switches())} switch(es): {found or 'no anomaly'}" + (f"; Java harness: {drained}" if drained else ""),
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


def _switch_figures(out, fault, switch, bound_checks: int) -> tuple[str, dict]:
    return switch_figures(out, fault, switch, (bound_checks - 1) * CONFIG.interval_ms / 1000,
                          f"the spec needs {bound_checks} checks")


def test_failover_and_switch_back(clusters, certify_run, request):
    out, rec = run_scenario(clusters, certify_run, request, "failover-switch-back", [
        (3.0, lambda f: f.kill("primary")),
        (5.0, lambda f: f.start("primary")),
        (5.0, lambda f: None)])
    prefix = "client-failover/kill-primary"
    down = after(out, "down", "primary", 0)
    away = after(out, "switch", "s1", down.at_ns, "primary")
    text, figures = _switch_figures(out, down, away, CONFIG.failover_threshold) if away else ("no switch to s1", {})
    rec(f"{prefix}/failed-over", bool(away and figures["first_send_after_switch_s"] is not None), text, **figures)
    rec(f"{prefix}/waited-for-threshold", None if not away else figures["switch_s"] >= (CONFIG.failover_threshold - 1) * CONFIG.interval_ms / 1000, text)
    up = after(out, "up", "primary", down.at_ns)
    back = after(out, "switch", "primary", up.at_ns, "s1") if up else None
    text, figures = _switch_figures(out, up, back, CONFIG.switch_back_threshold) if back else (
        f"no switch back to the primary after it came up ({[vars(e) for e in out.switches()]})", {})
    rec(f"{prefix}/switched-back", None if not up else bool(back) and figures["switch_s"] >= (CONFIG.switch_back_threshold - 1) * CONFIG.interval_ms / 1000,
        text, **figures)
    record_common(rec, out, prefix, ["PIP121-R01", "PIP121-R02", "PIP121-R04"])
    rec.finish()


def test_first_secondary_down(clusters, certify_run, request):
    out, rec = run_scenario(clusters, certify_run, request, "first-secondary-down", [
        (2.0, lambda f: f.kill("s1")),
        (1.0, lambda f: f.kill("primary")),
        (4.0, lambda f: f.start("primary")),
        (4.0, lambda f: f.start("s1")),
        (2.0, lambda f: None)])
    prefix = "client-failover/first-secondary-down"
    down = after(out, "down", "primary", 0)
    first = next((e for e in out.switches() if e.at_ns >= down.at_ns), None)
    text, figures = _switch_figures(out, down, first, CONFIG.failover_threshold) if first else ("no switch", {})
    rec(f"{prefix}/probed-in-order", None if not first else first.cluster == "s2",
        f"s1 (first in the list) was down; {text}", **figures)
    record_common(rec, out, prefix, ["PIP121-R03"])
    rec.finish()


def test_secondary_dies_in_use(clusters, certify_run, request):
    out, rec = run_scenario(clusters, certify_run, request, "secondary-dies", [
        (2.0, lambda f: f.kill("primary")),
        (3.0, lambda f: f.kill("s1")),
        (3.0, lambda f: f.start("primary")),
        (3.0, lambda f: f.start("s1")),
        (2.0, lambda f: None)])
    prefix = "client-failover/secondary-dies"
    s1_down = after(out, "down", "s1", 0)
    on_s1 = [e for e in out.switches() if e.cluster == "s1" and e.at_ns < s1_down.at_ns]
    escape = next((e for e in out.switches() if e.at_ns >= s1_down.at_ns), None)
    if not on_s1:
        rec(f"{prefix}/left-dead-secondary", None, "the client was not on s1 when s1 died")
    else:
        text, figures = _switch_figures(out, s1_down, escape, CONFIG.failover_threshold) if escape else (
            "the client stayed on the dead s1", {})
        # the primary was down too: the only place to go was s2
        rec(f"{prefix}/left-dead-secondary", bool(escape) and escape.cluster == "s2", text, **figures)
    record_common(rec, out, prefix, ["PIP121-R08"])
    rec.finish()


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


def test_paused_primary_is_not_seen_by_the_probe(clusters, certify_run, request):
    _, rec = paused_primary(clusters, certify_run, request, "paused-primary",
                            f"{CONFIG.failover_threshold} failed checks of {CONFIG.interval_ms} ms would have failed "
                            "over from a dead one")
    rec.finish()


def test_provider_moves_the_client(clusters, certify_run, request):
    out, rec = run_scenario(clusters, certify_run, request, "provider", [
        (2.0, lambda f: f.point_to("s1")),
        (3.0, lambda f: f.point_to("primary")),
        (2.0, lambda f: None)], controlled=True)
    prefix = "client-failover/provider"
    told = [m for m in out.markers if "provider points" in m["label"]]
    followed = []
    for marker, target in zip(told, ("s1", "primary"), strict=True):
        switch = after(out, "switch", target, marker["ts_ns"])
        followed.append(f"to {target}: " + (f"{_secs(marker['ts_ns'], switch.at_ns)} s" if switch else "never"))
    ok = all("never" not in f for f in followed)
    rec(f"{prefix}/follows-provider", ok,
        f"a ServiceInfoProvider (the Python client's ControlledClusterFailover) pointed the client {len(told)} times; "
        f"it followed {', '.join(followed)}")
    record_lost(rec, out, prefix)
    rec.finish()


def test_target_credentials_applied_on_switch(token_clusters, certify_run, request):
    """PIP121-R06: a primary and a secondary with different token secrets; after the primary dies the
    client must reach s1 with s1's token (conformance/protocols/client_failover/credentials.py)."""
    out = credentials.run(token_clusters, certify_run.directory("captures", "credentials-on-switch"))
    rec = Recorder(certify_run, request, out, CHECKS, client="cpp")
    ok, said = out.verdict()
    rec("client-failover/credentials-on-switch/target-credentials", ok, said, ok_after_switch=out.ok_after_switch,
        errors_after_switch=out.errors_after_switch, stored_on_s1=out.stored_on_s1)
    v = trace.validate_events(out.events, credentials.CONFIG, out.start_ns)
    rec("client-failover/credentials-on-switch/trace", v.ok, evidence(v, out.events, out.start_ns),
        requirements=["PIP121-R01", "PIP121-R04"], hidden_checks=v.hidden_steps)
    rec.finish()
