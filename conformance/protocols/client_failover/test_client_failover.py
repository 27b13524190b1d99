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

from ...harness import switchover
from ...harness.recorder import Recorder
from . import credentials, trace
from .checks import CHECKS
from .record import CONFIG, after, paused_primary, record_common, record_lost, run_scenario, switch_figures
from .trace import evidence

pytestmark = [pytest.mark.client_failover, pytest.mark.pulsar, pytest.mark.spark]


_secs = switchover.seconds


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
