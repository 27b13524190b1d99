"""PIP-121 client cluster failover with the real Java client (``AutoClusterFailover``,
``ControlledClusterFailover`` of pulsar-client-original; java_client.py, Harness.java), on the
deployment the Python client's scenarios use, judged per requirement like them and validated
against the spec's ``java`` (and ``controlled``) variant.

The Java client counts delays, not probes: it checks at a fixed rate every 500 ms, fails over once
``now - first failed probe >= failoverDelay`` on a tick where a secondary answers, switches back
once the primary has answered for ``switchBackDelay``. Its failed probes are read from its own log,
with their times: how many it needed is the figure F-121-3 is about. F-121-1 (a failure seen on a
secondary cuts the next failover short) and F-121-2 (a dead secondary is never left for another)
are set up on purpose in ``java-stale-failure``.
"""
from __future__ import annotations

import math
import time
from dataclasses import replace

import pytest

from ...harness.recorder import Recorder
from . import credentials, scenario, trace
from .checks import CHECKS
from .client import FailoverConfig
from .record import after, paused_primary, record_common, run_scenario, switch_figures

pytestmark = [pytest.mark.client_failover, pytest.mark.pulsar, pytest.mark.spark]

# a delay that is not a whole number of intervals tells "time" from "probe count" apart (F-121-3):
# 2.8 s of failure takes 1 + ceil(2800 / 500) = 7 failed probes, 3.0 s after the first one
JAVA = FailoverConfig("primary", ("s1", "s2"), interval_ms=500, variant="java", failover_delay_ms=2800,
                      switch_back_delay_ms=5000)
CONTROLLED = FailoverConfig("primary", ("s1", "s2"), interval_ms=500, variant="controlled")
S = 1_000_000_000


def probes_for(delay_ms: int, config: FailoverConfig = JAVA) -> int:
    """Failed (or ok) probes a Java delay takes: the first one records the time, then whole intervals."""
    return 1 + math.ceil(delay_ms / config.interval_ms)


def _run(deployment, certify_run, request, name, config, steps, **options):
    # run_scenario's recorder names the Java client on every row (PIP121-R08 is taken from the C++ client)
    return run_scenario(deployment, certify_run, request, name, steps, config=config, runner=scenario.run_java,
                        **options)


def failed_probes(out, cluster: str, since_ns: int, until_ns: int) -> list[int]:
    """Times of the probes of ``cluster`` the Java client logged as failed in [since, until]."""
    return [at for at, c in out.java["failed_probes"] if c == cluster and since_ns <= at <= until_ns]


def _delay_text(out, down, away) -> tuple[str, dict]:
    probes = failed_probes(out, down.cluster, down.at_ns, away.at_ns)
    need = probes_for(JAVA.failover_delay_ms)
    text, figures = switch_figures(out, down, away, JAVA.failover_delay_ms / 1000,
                                   f"failoverDelay {JAVA.failover_delay_ms} ms")
    since_first = (away.at_ns - probes[0]) / S if probes else None
    figures.update(failed_probes=len(probes), probes_the_delay_takes=need,
                   switch_after_first_failed_probe_s=None if since_first is None else round(since_first, 3))
    return (f"{text}; the client logged {len(probes)} failed probe(s) of {down.cluster} before it switched, the "
            f"last {figures['switch_after_first_failed_probe_s']} s after the first (a {JAVA.failover_delay_ms} ms "
            f"delay at {JAVA.interval_ms} ms checks is {need} probes, {(need - 1) * JAVA.interval_ms / 1000} s)"), figures


def _as_probe_counter(out, until) -> str:
    """The same observations up to ``until``, judged as a client that counts consecutive failed
    probes of the cluster it is on (the spec's cpp variant with the Java delays' probe counts):
    a stale failure shows as a failover that client could not have made."""
    counter = replace(JAVA, variant="cpp", failover_threshold=probes_for(JAVA.failover_delay_ms),
                      switch_back_threshold=probes_for(JAVA.switch_back_delay_ms))
    seen = trace.validate_events([e for e in out.events if e.at_ns <= until.at_ns], counter, out.start_ns)
    return ("a client counting consecutive failed probes (" + str(counter.failover_threshold) + ") "
            + ("could have done the same" if seen.ok else f"could not: {seen.problem}"))


def test_java_failover_and_switch_back(clusters, certify_run, request):
    out, rec = _run(clusters, certify_run, request, "java-kill-primary", JAVA, [
        (3.0, lambda f: f.kill("primary")),
        (4.5, lambda f: f.start("primary")),
        (0.0, lambda f: f.await_switch("primary", 20)),
        (2.0, lambda f: None)])
    prefix = "client-failover/java-kill-primary"
    down = after(out, "down", "primary", 0)
    away = after(out, "switch", "s1", down.at_ns, "primary")
    text, figures = _delay_text(out, down, away) if away else ("no switch to s1", {})
    rec(f"{prefix}/failed-over", bool(away and figures["first_send_after_switch_s"] is not None), text, **figures)
    rec(f"{prefix}/waited-for-delay", None if not away else figures["switch_s"] >= JAVA.failover_delay_ms / 1000,
        text, **figures)
    up = after(out, "up", "primary", down.at_ns)
    back = after(out, "switch", "primary", up.at_ns, "s1") if up else None
    text, figures = switch_figures(out, up, back, JAVA.switch_back_delay_ms / 1000,
                                   f"switchBackDelay {JAVA.switch_back_delay_ms} ms") if back else (
        f"no switch back to the primary after it came up ({[vars(e) for e in out.switches()]})", {})
    rec(f"{prefix}/switched-back", None if not up else bool(back) and figures["switch_s"] >= JAVA.switch_back_delay_ms / 1000,
        text, **figures)
    record_common(rec, out, prefix, ["PIP121-R01", "PIP121-R02", "PIP121-R04"])
    rec.finish()


def test_java_controlled_failover(clusters, certify_run, request):
    out, rec = _run(clusters, certify_run, request, "java-controlled", CONTROLLED, [
        (2.0, lambda f: f.point_to("s1")),
        (3.0, lambda f: f.point_to("primary")),
        (2.0, lambda f: None)], controlled=True)
    prefix = "client-failover/java-controlled"
    followed, ok = [], True
    for point in (e for e in out.events if e.kind == "point"):
        switch = after(out, "switch", point.cluster, point.at_ns)
        ok = ok and switch is not None
        followed.append(f"to {point.cluster}: " + (f"{(switch.at_ns - point.at_ns) / S:.3f} s" if switch else "never"))
    rec(f"{prefix}/follows-provider", ok and len(followed) == 2,
        f"the HTTP URL provider on loopback answered {out.java['provider_polls']} polls (every {CONTROLLED.interval_ms} ms) "
        f"and changed its answer {len(followed)} times; ControlledClusterFailover followed {', '.join(followed)}")
    record_common(rec, out, prefix, ["PIP121-R05"])
    rec.finish()


def test_java_target_credentials_applied_on_switch(token_clusters, certify_run, request):
    """PIP121-R06 on the Java client: the URL provider moves it to s1 with s1's token (the primary's
    is refused there); conformance/protocols/client_failover/credentials.py."""
    out, topic = credentials.run_java(token_clusters, certify_run.directory("captures", "java-credentials-on-switch"),
                                      seed=certify_run.seed)
    rec = Recorder(certify_run, request, out, CHECKS, client="java")
    ok, said = credentials.java_verdict(token_clusters, out, topic)
    rec("client-failover/java-credentials-on-switch/target-credentials", ok, said)
    rec.finish()


def test_java_paused_primary_is_not_seen_by_the_probe(clusters, certify_run, request):
    out, rec = paused_primary(clusters, certify_run, request, "java-paused-primary",
                              f"failoverDelay {JAVA.failover_delay_ms} ms would have failed over from a dead one in "
                              f"{(probes_for(JAVA.failover_delay_ms) - 1) * JAVA.interval_ms / 1000} s",
                              config=JAVA, runner=scenario.run_java)
    # nothing the probe sees happened: a switch here would be a failover without a failure
    v = out.validation
    rec("client-failover/java-paused-primary/trace", v.ok, trace.evidence(v, out.events, out.start_ns, "java"),
        requirements=["PIP121-R04"], hidden_checks=v.hidden_steps, switches=len(out.switches()))
    rec.finish()


def test_java_stale_failure_and_dead_secondary(clusters, certify_run, request):
    """F-121-1 then F-121-2 on one deployment: the client fails over to s1; the primary comes back;
    s1 dies shortly before the switch-back is due, so s1's failed probes set failedTs, which the
    switch-back leaves behind; the primary dies right after the switch-back, and the client fails
    over again (to s2, s1 being down) on that stale time. Then s1 returns, s2 dies: the client
    stays on the dead s2 although s1 answers, until the primary is back."""
    marks: dict[str, int] = {}

    def kill_s1_before_switch_back(f):
        # the switch-back is due switchBackDelay after the first ok probe (<= 0.5 s after the port
        # opened); s1 must have failed by then, for less than failoverDelay, or part 1 switches
        # instead. start() returned 2.3 s after the port opened here: 3.8 s leaves a margin.
        due = f.events[-1].at_ns + (JAVA.switch_back_delay_ms - 1200) * 1_000_000
        time.sleep(max(0.0, (due - time.time_ns()) / S))
        f.kill("s1")

    def kill_primary_on_switch_back(f):
        marks["back"] = f.await_switch("primary", 20) or 0
        f.kill("primary")

    out, rec = _run(clusters, certify_run, request, "java-stale-failure", JAVA, [
        (2.0, lambda f: f.kill("primary")),
        (4.5, lambda f: f.start("primary")),
        (0.0, kill_s1_before_switch_back),
        (0.0, kill_primary_on_switch_back),
        (0.0, lambda f: f.await_switch("s2", 15)),
        (0.5, lambda f: f.start("s1")),
        (0.0, lambda f: f.kill("s2")),
        ((JAVA.failover_delay_ms + 2500) / 1000, lambda f: f.start("primary")),
        (0.0, lambda f: f.await_switch("primary", 10)),
        (0.0, lambda f: f.start("s2")),
        (2.0, lambda f: None)])
    prefix = "client-failover/java-stale-failure"
    back = next((e for e in out.switches() if e.cluster == "primary" and e.at_ns == marks.get("back")), None)
    s1_down = after(out, "down", "s1", 0)
    second_down = after(out, "down", "primary", back.at_ns) if back else None
    again = after(out, "switch", "s2", second_down.at_ns, "primary") if second_down else None
    # the set-up F-121-1 needs: s1's failed probes began less than failoverDelay before the switch-back
    s1_failed = failed_probes(out, "s1", s1_down.at_ns, back.at_ns) if back else []
    staged = bool(s1_failed) and back.at_ns - s1_failed[0] < JAVA.failover_delay_ms * 1_000_000
    if not (staged and again):
        why = ("no switch-back observed" if not back else
               f"s1's failed probes before the switch-back: {[round((t - s1_down.at_ns) / S, 3) for t in s1_failed]} "
               "s after its kill (a failedTs younger than failoverDelay is needed)" if not staged else
               "no failover after the primary died again")
        rec(f"{prefix}/waited-for-delay", None, f"the stale-failure set-up was not reached: {why}")
    else:
        text, figures = _delay_text(out, second_down, again)
        text += "; " + _as_probe_counter(out, again)
        text = (f"s1 died {round((back.at_ns - s1_down.at_ns) / S, 3)} s before the switch-back (its first failed "
                f"probe {round((back.at_ns - s1_failed[0]) / S, 3)} s before it); the primary died "
                f"{round((second_down.at_ns - back.at_ns) / S, 3)} s after the switch-back; {text}")
        rec(f"{prefix}/waited-for-delay", figures["switch_s"] >= JAVA.failover_delay_ms / 1000, text, **figures)
    rec(f"{prefix}/probed-in-order", None if not again else again.cluster == "s2",
        f"s1 (first in the list) was down when the primary died again; the client went to "
        f"{again.cluster if again else 'nowhere'}")
    s2_down = after(out, "down", "s2", 0)
    primary_up = after(out, "up", "primary", s2_down.at_ns) if s2_down else None
    on_s2 = s2_down and again and not any(e.at_ns < s2_down.at_ns for e in out.switches() if e.at_ns > again.at_ns)
    if not (on_s2 and primary_up):
        rec(f"{prefix}/left-dead-secondary", None, "the client was not on s2 when s2 died")
    else:
        left = next((e for e in out.switches() if s2_down.at_ns <= e.at_ns < primary_up.at_ns), None)
        stuck = failed_probes(out, "s2", s2_down.at_ns, primary_up.at_ns)
        rec(f"{prefix}/left-dead-secondary", left is not None,
            "s2 (in use) killed with the primary down and s1 up; "
            + (f"the client left for {left.cluster} {(left.at_ns - s2_down.at_ns) / S:.3f} s later" if left else
               f"the client stayed on the dead s2 for {(primary_up.at_ns - s2_down.at_ns) / S:.3f} s until the primary "
               f"came back, logging {len(stuck)} failed probes of s2, while s1 answered (failoverDelay "
               f"{JAVA.failover_delay_ms} ms)"),
            failed_probes=len(stuck), stuck_s=round((primary_up.at_ns - s2_down.at_ns) / S, 3))
    record_common(rec, out, prefix, ["PIP121-R03", "PIP121-R04", "PIP121-R08"])
    rec.finish()
