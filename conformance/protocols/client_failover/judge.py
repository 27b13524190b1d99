"""Pure judges of a PIP-121 outcome (outcome.py): no cluster access, no recording. ``judge`` gives
every row of a scenario, by its name: the switches against the client's policy (threshold or delay),
its trace against the client-failover spec (trace.py), nothing acknowledged lost, R06's credentials;
the Python client's scenarios and the Java client's (whose own log says how many probes failed).
"""
from __future__ import annotations

import math
from dataclasses import replace

from ...harness import evidence as captured
from ...harness import switchover
from ...harness.itf_traces import attach
from ...harness.rows import Row, charged, judges, row, same_event
from . import trace
from .outcome import Event, FailoverConfig, Outcome

S = 1_000_000_000
_secs = switchover.seconds
# what every scenario with switches judges besides its own (common): R09, R10 (Java), R11
COMMON = ("PIP121-R09", "PIP121-R10", "PIP121-R11")


def judge(out: Outcome) -> list[Row]:
    """Every row of the scenario ``out.name`` ran."""
    fn, prefix = SCENARIOS[out.name]
    return fn(out, prefix)


# ------------------------------------------------------------------ shared by the scenarios


def after(out: Outcome, kind: str, cluster: str, since_ns: int, origin: str | None = None) -> Event | None:
    return next((e for e in out.events if e.kind == kind and e.cluster == cluster and e.at_ns >= since_ns
                 and (origin is None or e.origin == origin)), None)


def validation(out: Outcome):
    """The spec's verdict on the events: the scenario's own, or computed again on a loaded outcome."""
    return out.validation if out.validation is not None else trace.validation(out)


def common(out: Outcome, prefix: str, requirements: list[str]) -> list[Row]:
    """A scenario with switches: the trace is a behaviour of the spec; nothing acknowledged was lost."""
    v = validation(out)
    rows = [attach(row(f"{prefix}/trace", v.ok, trace.evidence(v, out.events, out.start_ns, out.config.variant),
                       requirements=requirements, hidden_checks=v.hidden_steps, switches=len(out.switches())),
                   trace.live_trace(out, v))]
    apart = trace.switches_apart(out.events, out.config)
    if apart is not None:  # a scenario with one switch says nothing about two
        rows.append(row(f"{prefix}/switches-apart", *apart))
    # the Java client logs every switch it makes, from and to; the Python API shows none of that
    logged = (out.java or {}).get("switch_log") or []
    if any(origin is not None for _, origin, _ in logged):
        rows.append(row(f"{prefix}/no-needless-reconnect", *needless_reconnects(logged)))
    return rows + lost(out, prefix)


def lost(out: Outcome, prefix: str) -> list[Row]:
    """PIP121-R11 from the capture and the clusters' backlogs after the client ended."""
    # None: a run saved before Spark judged its capture (record.py never reached it): unknown, never a pass
    verdict = out.verdict or {}
    found = {k: v["count"] for k, v in (verdict.get("anomalies") or {}).items() if v.get("count")}
    switches = out.switches()
    if verdict.get("valid") is None or not switches:
        return [row(f"{prefix}/nothing-acknowledged-lost", None,
                    f"not judged: {'Spark could not judge the capture' if switches else 'no switch'}", anomalies=found)]
    ok, said, figures = acknowledged_lost(out.columns, out.backlogs, switches[-1].cluster,
                                          drain_complete=out.drain_complete)
    drained = (out.java or {}).get("drained")
    return [row(f"{prefix}/nothing-acknowledged-lost", ok,
                f"{said}; Spark over {verdict['events']} captured events ({out.sends_ok} acknowledged sends) across "
                f"{len(switches)} switch(es): {found or 'no anomaly'}" + (f"; Java harness: {drained}" if drained else ""),
                anomalies=found, **figures)]


def switch_figures(out: Outcome, fault: Event, switch: Event, earliest_s: float, need: str) -> tuple[str, dict]:
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


def _switch_figures(out: Outcome, fault: Event, switch: Event, bound_checks: int) -> tuple[str, dict]:
    """The Python client's: it counts probes (the spec needs ``bound_checks`` checks)."""
    return switch_figures(out, fault, switch, (bound_checks - 1) * out.config.interval_ms / 1000,
                          f"the spec needs {bound_checks} checks")


def paused_primary_row(out: Outcome, prefix: str) -> Row:
    """The primary paused 4 s (SIGSTOP: its port open, nothing served): the blind spot, with what a
    dead one would have caused under the client's policy."""
    cfg = out.config
    would_have = (f"failoverDelay {cfg.failover_delay_ms} ms would have failed over from a dead one in "
                  f"{(probes_for(cfg.failover_delay_ms, cfg) - 1) * cfg.interval_ms / 1000} s" if cfg.variant == "java"
                  else f"{cfg.failover_threshold} failed checks of {cfg.interval_ms} ms would have failed over from a "
                       "dead one")
    pause = next(m for m in out.markers if "paused" in m["label"])
    resume = next(m for m in out.markers if "resumed" in m["label"])
    during = [e for e in out.switches() if pause["ts_ns"] <= e.at_ns <= resume["ts_ns"]]
    stalled = [t for t, k in zip(out.columns["ts_ns"], out.columns["kind"], strict=True)
               if k == "send_ok" and pause["ts_ns"] < t < resume["ts_ns"]]
    return row(f"{prefix}/tcp-probe-blind-spot", not during,
               f"primary paused {_secs(pause['ts_ns'], resume['ts_ns'])} s (its port open, nothing served): the client "
               f"{'stayed' if not during else 'switched ' + str([vars(e) for e in during])}; {len(stalled)} sends were "
               f"acknowledged during the pause ({would_have})",
               acknowledged_during_pause=len(stalled), pause_s=_secs(pause["ts_ns"], resume["ts_ns"]))


# ------------------------------------------------------------------ the Python client's scenarios


@judges("PIP121-R01", "PIP121-R02", "PIP121-R04", *COMMON)
def kill_primary(out: Outcome, prefix: str):
    cfg = out.config
    down = after(out, "down", "primary", 0)
    away = after(out, "switch", "s1", down.at_ns, "primary")
    text, figures = _switch_figures(out, down, away, cfg.failover_threshold) if away else ("no switch to s1", {})
    yield row(f"{prefix}/failed-over", bool(away and figures["first_send_after_switch_s"] is not None), text, **figures)
    yield row(f"{prefix}/waited-for-threshold",
              None if not away else figures["switch_s"] >= (cfg.failover_threshold - 1) * cfg.interval_ms / 1000, text)
    up = after(out, "up", "primary", down.at_ns)
    back = after(out, "switch", "primary", up.at_ns, "s1") if up else None
    text, figures = _switch_figures(out, up, back, cfg.switch_back_threshold) if back else (
        f"no switch back to the primary after it came up ({[vars(e) for e in out.switches()]})", {})
    yield row(f"{prefix}/switched-back",
              None if not up else bool(back) and figures["switch_s"] >= (cfg.switch_back_threshold - 1) * cfg.interval_ms / 1000,
              text, **figures)
    yield from common(out, prefix, ["PIP121-R01", "PIP121-R02", "PIP121-R04"])


@judges("PIP121-R03", *COMMON)
def first_secondary_down(out: Outcome, prefix: str):
    down = after(out, "down", "primary", 0)
    first = next((e for e in out.switches() if e.at_ns >= down.at_ns), None)
    text, figures = _switch_figures(out, down, first, out.config.failover_threshold) if first else ("no switch", {})
    yield row(f"{prefix}/probed-in-order", None if not first else first.cluster == "s2",
              f"s1 (first in the list) was down; {text}", **figures)
    yield from common(out, prefix, ["PIP121-R03"])


@judges("PIP121-R08", *COMMON)
def secondary_dies(out: Outcome, prefix: str):
    s1_down = after(out, "down", "s1", 0)
    on_s1 = [e for e in out.switches() if e.cluster == "s1" and e.at_ns < s1_down.at_ns]
    escape = next((e for e in out.switches() if e.at_ns >= s1_down.at_ns), None)
    if not on_s1:
        yield row(f"{prefix}/left-dead-secondary", None, "the client was not on s1 when s1 died")
    else:
        text, figures = _switch_figures(out, s1_down, escape, out.config.failover_threshold) if escape else (
            "the client stayed on the dead s1", {})
        # the primary was down too: the only place to go was s2
        yield row(f"{prefix}/left-dead-secondary", bool(escape) and escape.cluster == "s2", text, **figures)
    yield from common(out, prefix, ["PIP121-R08"])


@judges("PIP121-R07")
def paused_primary(out: Outcome, prefix: str):
    yield paused_primary_row(out, prefix)


@judges("PIP121-R05", "PIP121-R11")
def provider(out: Outcome, prefix: str):
    told = [m for m in out.markers if "provider points" in m["label"]]
    followed = []
    for marker, target in zip(told, ("s1", "primary"), strict=True):
        switch = after(out, "switch", target, marker["ts_ns"])
        followed.append(f"to {target}: " + (f"{_secs(marker['ts_ns'], switch.at_ns)} s" if switch else "never"))
    ok = all("never" not in f for f in followed)
    yield row(f"{prefix}/follows-provider", ok,
              f"a ServiceInfoProvider (the Python client's ControlledClusterFailover) pointed the client {len(told)} "
              f"times; it followed {', '.join(followed)}")
    yield from lost(out, prefix)


@judges("PIP121-R06", "PIP121-R01", "PIP121-R04")
def credentials(out: Outcome, prefix: str):
    """PIP121-R06: after the primary's SIGKILL the client reached s1, which accepts only s1's token."""
    c = out.credentials
    if c.switched_ns is None:
        ok, said = None, f"the client never switched to s1 after the primary was killed ({c.ok_before} sends before)"
    else:
        took = round((c.switched_ns - c.killed_ns) / 1e9, 2)
        said = (f"switched to s1 {took} s after the primary's SIGKILL; {c.ok_before} sends acknowledged by the "
                f"primary before, {c.ok_after_switch} after the switch (s1 stored {c.stored_on_target}); send "
                f"errors after the switch: {c.errors_after_switch or 'none'}")
        ok = c.ok_after_switch > 0 and bool(c.stored_on_target)
    yield row(f"{prefix}/target-credentials", ok, said, ok_after_switch=c.ok_after_switch,
              errors_after_switch=c.errors_after_switch, stored_on_s1=c.stored_on_target)
    v = validation(out)
    yield attach(row(f"{prefix}/trace", v.ok, trace.evidence(v, out.events, out.start_ns),
                     requirements=["PIP121-R01", "PIP121-R04"], hidden_checks=v.hidden_steps), trace.live_trace(out, v))


# ------------------------------------------------------------------ the Java client's scenarios


def probes_for(delay_ms: int, config: FailoverConfig) -> int:
    """Failed (or ok) probes a Java delay takes: the first one records the time, then whole intervals."""
    return 1 + math.ceil(delay_ms / config.interval_ms)


def failed_probes(out: Outcome, cluster: str, since_ns: int, until_ns: int) -> list[int]:
    """Times of the probes of ``cluster`` the Java client logged as failed in [since, until]."""
    return [at for at, c in out.java["failed_probes"] if c == cluster and since_ns <= at <= until_ns]


def _delay_text(out: Outcome, down: Event, away: Event) -> tuple[str, dict]:
    cfg = out.config
    probes = failed_probes(out, down.cluster, down.at_ns, away.at_ns)
    need = probes_for(cfg.failover_delay_ms, cfg)
    text, figures = switch_figures(out, down, away, cfg.failover_delay_ms / 1000,
                                   f"failoverDelay {cfg.failover_delay_ms} ms")
    since_first = (away.at_ns - probes[0]) / S if probes else None
    figures.update(failed_probes=len(probes), probes_the_delay_takes=need,
                   switch_after_first_failed_probe_s=None if since_first is None else round(since_first, 3))
    return (f"{text}; the client logged {len(probes)} failed probe(s) of {down.cluster} before it switched, the "
            f"last {figures['switch_after_first_failed_probe_s']} s after the first (a {cfg.failover_delay_ms} ms "
            f"delay at {cfg.interval_ms} ms checks is {need} probes, {(need - 1) * cfg.interval_ms / 1000} s)"), figures


def _as_probe_counter(out: Outcome, until: Event) -> str:
    """The same observations up to ``until``, judged as a client that counts consecutive failed
    probes of the cluster it is on (the spec's cpp variant with the Java delays' probe counts):
    a stale failure shows as a failover that client could not have made."""
    cfg = out.config
    counter = replace(cfg, variant="cpp", failover_threshold=probes_for(cfg.failover_delay_ms, cfg),
                      switch_back_threshold=probes_for(cfg.switch_back_delay_ms, cfg))
    seen = trace.validate_events([e for e in out.events if e.at_ns <= until.at_ns], counter, out.start_ns)
    return ("a client counting consecutive failed probes (" + str(counter.failover_threshold) + ") "
            + ("could have done the same" if seen.ok else f"could not: {seen.problem}"))


@judges("PIP121-R01", "PIP121-R02", "PIP121-R04", *COMMON)
def java_kill_primary(out: Outcome, prefix: str):
    cfg = out.config
    down = after(out, "down", "primary", 0)
    away = after(out, "switch", "s1", down.at_ns, "primary")
    text, figures = _delay_text(out, down, away) if away else ("no switch to s1", {})
    yield row(f"{prefix}/failed-over", bool(away and figures["first_send_after_switch_s"] is not None), text, **figures)
    yield row(f"{prefix}/waited-for-delay", None if not away else figures["switch_s"] >= cfg.failover_delay_ms / 1000,
              text, **figures)
    up = after(out, "up", "primary", down.at_ns)
    back = after(out, "switch", "primary", up.at_ns, "s1") if up else None
    text, figures = switch_figures(out, up, back, cfg.switch_back_delay_ms / 1000,
                                   f"switchBackDelay {cfg.switch_back_delay_ms} ms") if back else (
        f"no switch back to the primary after it came up ({[vars(e) for e in out.switches()]})", {})
    yield row(f"{prefix}/switched-back",
              None if not up else bool(back) and figures["switch_s"] >= cfg.switch_back_delay_ms / 1000, text, **figures)
    yield from common(out, prefix, ["PIP121-R01", "PIP121-R02", "PIP121-R04"])


@judges("PIP121-R05", *COMMON)
def java_controlled(out: Outcome, prefix: str):
    followed, ok = [], True
    for point in (e for e in out.events if e.kind == "point"):
        switch = after(out, "switch", point.cluster, point.at_ns)
        ok = ok and switch is not None
        followed.append(f"to {point.cluster}: " + (f"{(switch.at_ns - point.at_ns) / S:.3f} s" if switch else "never"))
    yield row(f"{prefix}/follows-provider", ok and len(followed) == 2,
              f"the HTTP URL provider on loopback answered {out.java['provider_polls']} polls (every "
              f"{out.config.interval_ms} ms) and changed its answer {len(followed)} times; ControlledClusterFailover "
              f"followed {', '.join(followed)}")
    yield from common(out, prefix, ["PIP121-R05"])


@judges("PIP121-R06")
def java_credentials(out: Outcome, prefix: str):
    """Sends acknowledged after the Java client's switch to s1, and s1 stored them."""
    switch = next((e for e in out.events if e.kind == "switch" and e.cluster == "s1"), None)
    if switch is None:
        yield row(f"{prefix}/target-credentials", None,
                  "the Java client never switched to s1 (the URL provider pointed it there)")
        return
    kinds = list(zip(out.columns["ts_ns"], out.columns["kind"], strict=True))
    ok_before = sum(1 for t, k in kinds if k == "send_ok" and t < switch.at_ns)
    ok_after = sum(1 for t, k in kinds if k == "send_ok" and t > switch.at_ns)
    failed_after = sum(1 for t, k in kinds if k in ("send_err", "send_unknown") and t > switch.at_ns)
    stored = out.credentials.stored_on_target if out.credentials else None
    yield row(f"{prefix}/target-credentials", ok_after > 0 and bool(stored),
              f"ControlledClusterFailover switched to s1 {(switch.at_ns - out.start_ns) / 1e9:.2f} s after it started, "
              f"handed s1's URL and a token by the URL provider; {ok_before} sends acknowledged by the primary before, "
              f"{ok_after} after the switch, {failed_after} failed after it; s1 stored {stored}")


@judges("PIP121-R07", "PIP121-R04")
def java_paused_primary(out: Outcome, prefix: str):
    yield paused_primary_row(out, prefix)
    # nothing the probe sees happened: a switch here would be a failover without a failure
    v = validation(out)
    yield attach(row(f"{prefix}/trace", v.ok, trace.evidence(v, out.events, out.start_ns, "java"),
                     requirements=["PIP121-R04"], hidden_checks=v.hidden_steps, switches=len(out.switches())),
                 trace.live_trace(out, v))


@judges("PIP121-R03", "PIP121-R04", "PIP121-R08", *COMMON)
def java_stale_failure(out: Outcome, prefix: str):
    """F-121-1 then F-121-2 (test_java_client_failover.py says how the scenario sets them up)."""
    cfg = out.config
    back = next((e for e in out.switches() if e.cluster == "primary" and e.at_ns == out.marks.get("back")), None)
    s1_down = after(out, "down", "s1", 0)
    second_down = after(out, "down", "primary", back.at_ns) if back else None
    again = after(out, "switch", "s2", second_down.at_ns, "primary") if second_down else None
    # the set-up F-121-1 needs: s1's failed probes began less than failoverDelay before the switch-back
    s1_failed = failed_probes(out, "s1", s1_down.at_ns, back.at_ns) if back else []
    staged = bool(s1_failed) and back.at_ns - s1_failed[0] < cfg.failover_delay_ms * 1_000_000
    # ... and the primary died again before the client's next check: a successful probe of the primary in between
    # resets failedTimestamp (AutoClusterFailover#probeAndUpdateServiceUrl), and the trap is gone
    died_after_s = (second_down.at_ns - back.at_ns) / S if second_down else None
    in_time = died_after_s is not None and died_after_s < cfg.interval_ms / 1000
    if not (staged and again):
        why = ("no switch-back observed" if not back else
               f"s1's failed probes before the switch-back: {[round((t - s1_down.at_ns) / S, 3) for t in s1_failed]} "
               "s after its kill (a failedTs younger than failoverDelay is needed)" if not staged else
               "no failover after the primary died again")
        yield row(f"{prefix}/waited-for-delay", None, f"the stale-failure set-up was not reached: {why}")
    else:
        text, figures = _delay_text(out, second_down, again)
        text += "; " + _as_probe_counter(out, again)
        text = (f"s1 died {round((back.at_ns - s1_down.at_ns) / S, 3)} s before the switch-back (its first failed "
                f"probe {round((back.at_ns - s1_failed[0]) / S, 3)} s before it); the primary died "
                f"{round(died_after_s, 3)} s after the switch-back; {text}")
        waited = figures["switch_s"] >= cfg.failover_delay_ms / 1000
        if waited and not in_time:  # an early failover fails whenever it comes; a wait proves nothing of the trap
            waited, text = None, (f"the stale-failure set-up was not reached: the primary died later than the client's "
                                  f"next check ({cfg.interval_ms} ms), whose successful probe of the primary clears "
                                  f"the stale failure; {text}")
        early = row(f"{prefix}/waited-for-delay", waited, text, **figures)
        yield early
    yield row(f"{prefix}/probed-in-order", None if not again else again.cluster == "s2",
              f"s1 (first in the list) was down when the primary died again; the client went to "
              f"{again.cluster if again else 'nowhere'}")
    s2_down = after(out, "down", "s2", 0)
    primary_up = after(out, "up", "primary", s2_down.at_ns) if s2_down else None
    on_s2 = s2_down and again and not any(e.at_ns < s2_down.at_ns for e in out.switches() if e.at_ns > again.at_ns)
    if not (on_s2 and primary_up):
        yield row(f"{prefix}/left-dead-secondary", None, "the client was not on s2 when s2 died")
    else:
        left = next((e for e in out.switches() if s2_down.at_ns <= e.at_ns < primary_up.at_ns), None)
        stuck = failed_probes(out, "s2", s2_down.at_ns, primary_up.at_ns)
        yield row(f"{prefix}/left-dead-secondary", left is not None,
                  "s2 (in use) killed with the primary down and s1 up; "
                  + (f"the client left for {left.cluster} {(left.at_ns - s2_down.at_ns) / S:.3f} s later" if left else
                     f"the client stayed on the dead s2 for {(primary_up.at_ns - s2_down.at_ns) / S:.3f} s until the "
                     f"primary came back, logging {len(stuck)} failed probes of s2, while s1 answered (failoverDelay "
                     f"{cfg.failover_delay_ms} ms)"),
                  failed_probes=len(stuck), stuck_s=round((primary_up.at_ns - s2_down.at_ns) / S, 3))
    rest = common(out, prefix, ["PIP121-R03", "PIP121-R04", "PIP121-R08"])
    if staged and again and early.ok is False:
        one_event_for_early_failover(out, prefix, early, rest, back, again)
    yield from rest


@judges("PIP121-R04", *COMMON)
def java_stale_failure_late(out: Outcome, prefix: str):
    """F-121-1's set-up with the primary killed later than one check after the switch-back (issue 47): the
    first check after it probes the primary, which answers, and that clears the failure s1 left behind
    (AutoClusterFailover#probeAndUpdateServiceUrl), so the next failover must wait the whole failoverDelay.
    Beside java-stale-failure, it shows how narrow F-121-1's window is."""
    cfg = out.config
    back = next((e for e in out.switches() if e.cluster == "primary" and e.at_ns == out.marks.get("back")), None)
    s1_down = after(out, "down", "s1", 0)
    second_down = after(out, "down", "primary", back.at_ns) if back else None
    again = after(out, "switch", "s2", second_down.at_ns, "primary") if second_down else None
    s1_failed = failed_probes(out, "s1", s1_down.at_ns, back.at_ns) if back and s1_down else []
    staged = bool(s1_failed) and back.at_ns - s1_failed[0] < cfg.failover_delay_ms * 1_000_000
    died_after_s = (second_down.at_ns - back.at_ns) / S if second_down else None
    late = died_after_s is not None and died_after_s >= cfg.interval_ms / 1000
    if not (staged and late and again):
        why = ("no switch-back observed" if not back else
               "s1 had not failed a probe, younger than failoverDelay, before the switch-back" if not staged else
               f"the primary died {died_after_s} s after the switch-back, within one check ({cfg.interval_ms} ms)"
               if not late else "no failover after the primary died again")
        yield row(f"{prefix}/waited-for-delay", None, f"the late-kill set-up was not reached: {why}")
    else:
        text, figures = _delay_text(out, second_down, again)
        yield row(f"{prefix}/waited-for-delay", figures["switch_s"] >= cfg.failover_delay_ms / 1000,
                  f"s1's first failed probe {round((back.at_ns - s1_failed[0]) / S, 3)} s before the switch-back; the "
                  f"primary died {round(died_after_s, 3)} s after it (later than one {cfg.interval_ms} ms check, whose "
                  f"successful probe of the primary clears the failure s1 left); {text}", **figures)
    yield from common(out, prefix, ["PIP121-R04"])


def one_event_for_early_failover(out: Outcome, prefix: str, early: Row, rest: list[Row], back: Event,
                                 again: Event) -> None:
    """One event, one requirement (issue 47): the failover that came right after the switch-back, on the
    failure timestamp left from before it (F-121-1), is charged to PIP121-R04, whose text it breaks (the
    decision did not wait failoverDelayMs). Where those two switches are also the closest pair
    ``switches-apart`` judged, its PIP121-R09 failure is that same event: the row says so and names it; it
    stays a failure (the switches were closer than the delays allow, R09's own text), counted once."""
    event = f"{prefix}/failover-on-a-stale-failure"
    charged(early, event)
    apart = next((r for r in rest if r.check.endswith("/switches-apart")), None)
    if apart is None or apart.ok is not False or closest_switches(out) != (back.at_ns, again.at_ns):
        return
    same_event(apart, event, f"{prefix}/waited-for-delay (PIP121-R04)",
               f"the client failed over to {again.cluster} {(again.at_ns - back.at_ns) / S:.3f} s after its switch-back "
               f"to the primary, where failoverDelay is {out.config.failover_delay_ms} ms (F-121-1's stale failure)",
               broken=True)


def closest_switches(out: Outcome) -> tuple[int, int] | None:
    """The two consecutive switches closest together (their times), as switches-apart picks them."""
    switches = sorted(e.at_ns for e in out.events if e.kind == "switch")
    pairs = list(zip(switches, switches[1:], strict=False))
    return min(pairs, key=lambda p: p[1] - p[0]) if pairs else None


def needless_reconnects(switches: list[tuple[int, str | None, str]]) -> tuple[bool | None, str]:
    """PIP121-R10 for the Java client: no switch it makes is to the cluster it already uses."""
    real = [s for s in switches if s[1] is not None]
    same = [s for s in real if s[1] == s[2]]
    if same:
        return False, (f"{len(same)} of {len(real)} switch(es) the client logged were to the cluster it was on "
                       f"({', '.join(sorted({s[2] for s in same}))}): connections dropped for nothing")
    if not real:
        return None, "the client logged no switch: nothing shows how it switches"
    return True, (f"{len(real)} switch(es) logged ({'; '.join(f'{a} -> {b}' for _, a, b in real)}), none to the "
                  "cluster already in use")


def acknowledged_lost(columns: dict[str, list], backlogs: dict[str, dict] | None, final_cluster: str, *,
                      drain_complete: bool) -> tuple[bool | None, str, dict]:
    """PIP121-R11: every acknowledged send was delivered, or is still stored somewhere.

    ``columns``: the capture (``kind``, ``uid``); ``backlogs``: observe.backlogs after the client
    ended; ``final_cluster``: where the client was attached at the end; ``drain_complete``: the
    client's drain waited for every acknowledged uid (the Java harness) rather than for a quiet
    spell (the Python traffic), so a uid still in the attached cluster's backlog was not delivered
    by a consumer that had every chance to.

    - *gone*: acknowledged, never delivered, in no backlog: lost (fail);
    - *stranded elsewhere*: in the backlog of a cluster the client had left: stored, not lost (the
      PIP promises consuming on B, not that B has A's unreplicated data);
    - *stranded on the attached cluster*: the consumer did not resume reading it: fail after a
      complete drain, unknown after a quiet-spell drain (the harness may have stopped reading too soon).
    """
    sent = {u for k, u in zip(columns["kind"], columns["uid"], strict=True) if k == "send_ok" and u}
    delivered = {u for k, u in zip(columns["kind"], columns["uid"], strict=True) if k == "receive" and u}
    missing = sent - delivered
    figures: dict = {"acknowledged": len(sent), "not_delivered": len(missing)}
    if not missing:
        return True, f"all {len(sent)} acknowledged sends were delivered", figures
    if backlogs is None:
        return False, (f"{len(missing)} of {len(sent)} acknowledged sends never delivered (clusters' backlogs not "
                       "read)"), figures
    if not delivered and backlogs and all(b.get("subscribed") is False for b in backlogs.values()):
        # the consumer never subscribed on any cluster (its attach failed): no cluster kept a message for it,
        # so what it never read says nothing of what an acknowledged send is owed
        return None, (f"{len(missing)} of {len(sent)} acknowledged sends never delivered, but the consumer never "
                      f"subscribed on any cluster ({', '.join(sorted(backlogs))}): not judged"), figures
    where: dict[str, set] = {}
    unreadable = []
    for cluster, backlog in backlogs.items():
        if "error" in backlog or not backlog.get("complete", False):
            unreadable.append(f"{cluster} ({backlog.get('error') or 'backlog larger than read'})")
        where[cluster] = missing & set(backlog.get("uids") or ())
    stranded = set().union(*where.values()) if where else set()
    gone = missing - stranded
    on_attached = where.get(final_cluster, set())
    figures.update(gone=len(gone), stranded={c: len(u) for c, u in where.items() if u},
                   backlog={c: b.get("msg_backlog") for c, b in backlogs.items()},
                   gone_sample=sorted(gone)[:5])
    per = ", ".join(f"{len(u)} in {c}'s backlog" for c, u in sorted(where.items()) if u) or "none in any backlog"
    said = (f"{len(missing)} of {len(sent)} acknowledged sends not delivered to the failover consumer: {per}; "
            f"{len(gone)} in no cluster's backlog")
    if gone and not unreadable:
        return False, said + f" (lost, e.g. {', '.join(sorted(gone)[:3])})", figures
    if gone:
        return None, said + f"; could not read every backlog: {'; '.join(unreadable)}", figures
    if on_attached:
        if drain_complete:
            return False, said + (f"; {len(on_attached)} stay in the backlog of {final_cluster}, where the client "
                                  "is attached, after a drain that waited for every acknowledged send"), figures
        return None, said + (f"; {len(on_attached)} stay in the backlog of {final_cluster}, where the client is "
                             "attached: the drain stopped on a quiet spell, so not judged"), figures
    return True, said + " (stored on a cluster the client had left: not lost)", figures


# scenario name -> its judge and the prefix of its checks
SCENARIOS = {
    "failover-switch-back": (kill_primary, "client-failover/kill-primary"),
    "first-secondary-down": (first_secondary_down, "client-failover/first-secondary-down"),
    "secondary-dies": (secondary_dies, "client-failover/secondary-dies"),
    "paused-primary": (paused_primary, "client-failover/paused-primary"),
    "provider": (provider, "client-failover/provider"),
    "credentials-on-switch": (credentials, "client-failover/credentials-on-switch"),
    "java-kill-primary": (java_kill_primary, "client-failover/java-kill-primary"),
    "java-controlled": (java_controlled, "client-failover/java-controlled"),
    "java-credentials-on-switch": (java_credentials, "client-failover/java-credentials-on-switch"),
    "java-paused-primary": (java_paused_primary, "client-failover/java-paused-primary"),
    "java-stale-failure": (java_stale_failure, "client-failover/java-stale-failure"),
    "java-stale-failure-late": (java_stale_failure_late, "client-failover/java-stale-failure-late"),
}
