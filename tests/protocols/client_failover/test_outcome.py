"""The PIP-121 outcome saved and loaded by the harness, and judged offline from the loaded copy
exactly as from the live one (the spec's validation computed again from the loaded events)."""
from __future__ import annotations

from pulsar_conformance.conformance.harness import outcome as saved
from pulsar_conformance.conformance.protocols.client_failover import judge, trace
from pulsar_conformance.conformance.protocols.client_failover.outcome import (
    Credentials,
    Event,
    FailoverConfig,
    Outcome,
)

S = 1_000_000_000
JAVA = FailoverConfig("primary", ("s1", "s2"), interval_ms=500, variant="java", failover_delay_ms=2800,
                      switch_back_delay_ms=5000)
T0 = 1_700_000_000 * S


def _columns(sends: int, lost: int = 0) -> dict:
    rows = [("send_ok", f"p/{i}", T0 + i * S // 10) for i in range(1, sends + 1)]
    rows += [("receive", f"p/{i}", T0 + i * S // 10 + 1000) for i in range(1, sends + 1 - lost)]
    return {"kind": [r[0] for r in rows], "uid": [r[1] for r in rows], "ts_ns": [r[2] for r in rows]}


def _outcome(run_dir, lost: int = 0) -> Outcome:
    """The Java client failing over 3.2 s after the primary's kill (7 failed probes), and back 5.5 s after it returned."""
    events = [Event(T0 + 3 * S, "down", "primary"), Event(T0 + 6_200_000_000, "switch", "s1", "primary"),
              Event(T0 + 8 * S, "up", "primary"), Event(T0 + 13_500_000_000, "switch", "primary", "s1")]
    probes = [[T0 + 3 * S + i * S // 2 + 100_000_000, "primary"] for i in range(7)]
    return Outcome("java-kill-primary", run_dir, JAVA, T0, events, [{"ts_ns": T0 + 3 * S, "label": "primary killed"}],
                   {"valid": True, "events": 300, "anomalies": {"duplicate": {"count": 0}}}, 150, [], [],
                   java={"release": "4.2.4", "failed_probes": probes, "drained": None,
                         "switch_log": [[T0 + 6_200_000_000, "primary", "s1"], [T0 + 13_500_000_000, "s1", "primary"]]},
                   backlogs={c: {"uids": [], "complete": True, "msg_backlog": 0} for c in ("primary", "s1", "s2")},
                   drain_complete=True, marks={"back": T0 + 13_500_000_000}, credentials=Credentials(),
                   columns=_columns(150, lost))


def test_the_outcome_round_trips(tmp_path):
    out = _outcome(tmp_path)
    saved.save(out, tmp_path)
    back = saved.load(Outcome, tmp_path, columns=out.columns)
    back.java["failed_probes"] = [list(p) for p in back.java["failed_probes"]]
    assert back == out and back.events[1] == Event(T0 + 6_200_000_000, "switch", "s1", "primary")


def test_the_judge_runs_on_a_loaded_outcome(tmp_path):
    live = _outcome(tmp_path)
    live.validation = trace.validation(live)  # the scenario's own; a loaded outcome computes it again
    saved.save(live, tmp_path)
    loaded = saved.load(Outcome, tmp_path, columns=live.columns)
    assert loaded.validation is None
    rows = judge.judge(loaded)
    assert rows == judge.judge(live)
    verdicts = {r.check.rsplit("/", 1)[-1]: r.ok for r in rows}
    assert verdicts["failed-over"] is True and verdicts["waited-for-delay"] is True
    assert verdicts["switched-back"] is True and verdicts["nothing-acknowledged-lost"] is True
    assert verdicts["no-needless-reconnect"] is True
    assert next(r for r in rows if r.check.endswith("/failed-over")).details["failed_probes"] == 7


def test_an_acknowledged_send_lost_fails_on_the_loaded_outcome(tmp_path):
    live = _outcome(tmp_path, lost=3)
    saved.save(live, tmp_path)
    rows = judge.judge(saved.load(Outcome, tmp_path, columns=live.columns))
    assert {r.check.rsplit("/", 1)[-1]: r.ok for r in rows}["nothing-acknowledged-lost"] is False


def test_a_judge_that_raises_leaves_its_requirements_unknown(tmp_path):
    out = _outcome(tmp_path)
    out.java = None  # a Java outcome without the client's log: failed_probes cannot be read
    rows = judge.judge(out)
    assert rows[-1].raised and rows[-1].check == "client-failover/java-kill-primary/java_kill_primary/raised"
    assert "PIP121-R04" in rows[-1].requirements


def _stale(run_dir, died_after_s: float, failover_s: float = 2.0) -> Outcome:
    """java-stale-failure as the sweep recorded it: s1 dies 1.2 s before the switch-back (failed probes 1.0 and
    0.5 s before it), the primary dies ``died_after_s`` after the switch-back, the client is on s2 ``failover_s`` later."""
    back, died = T0 + 14 * S, T0 + 14 * S + int(died_after_s * S)
    events = [Event(T0 + 2 * S, "down", "primary"), Event(T0 + 5 * S, "switch", "s1", "primary"),
              Event(T0 + 9 * S, "up", "primary"), Event(back - 1_200_000_000, "down", "s1"),
              Event(back, "switch", "primary", "s1"), Event(died, "down", "primary"),
              Event(died + int(failover_s * S), "switch", "s2", "primary")]
    probes = [[back - S, "s1"], [back - S // 2, "s1"]] + [[died + i * S // 2, "primary"] for i in range(1, 4)]
    return Outcome("java-stale-failure", run_dir, JAVA, T0, events, [], {"valid": True, "events": 300, "anomalies": {}},
                   150, [], [], java={"release": "3.2.2", "failed_probes": probes, "drained": None, "switch_log": []},
                   backlogs={c: {"uids": [], "complete": True, "msg_backlog": 0} for c in ("primary", "s1", "s2")},
                   drain_complete=True, marks={"back": back}, credentials=Credentials(), columns=_columns(150))


def test_the_stale_failure_is_judged_only_when_the_primary_died_before_the_next_check(tmp_path):
    """F-121-1's trap is set only if no successful probe of the primary comes between the switch-back and its
    death: the sweep's 3.2.2 and 3.2.3 runs killed it 1.72 s and 5.68 s after, and their passes meant nothing."""
    early = {r.check.rsplit("/", 1)[-1]: r for r in judge.judge(_stale(tmp_path, 0.1))}["waited-for-delay"]
    assert early.ok is False  # 2.0 s after the kill, where failoverDelay is 2.8 s: F-121-1
    late = {r.check.rsplit("/", 1)[-1]: r for r in judge.judge(_stale(tmp_path, 1.72, failover_s=3.3))}
    assert late["waited-for-delay"].ok is None, late["waited-for-delay"].evidence
    assert "later than the client's next check" in late["waited-for-delay"].evidence
    # an early failover fails whenever the primary died: the trap or not, failoverDelay was not waited for
    assert {r.check.rsplit("/", 1)[-1]: r for r in judge.judge(_stale(tmp_path, 1.72))}["waited-for-delay"].ok is False
