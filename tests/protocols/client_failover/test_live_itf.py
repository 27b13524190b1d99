"""Every live trace saved as an ITF file of the bundle (issue 49, point 3; conformance/harness/itf_traces.py):
the Java client's kill-primary history judged as ``judge BUNDLE`` judges it leaves
``captures/<scenario>/traces/<check>.itf.json``, named by the trace row, valid ITF, and ``spec replay``
accepts it; a state edited in it, or a history the spec refuses, is REJECTED (exit 1)."""
from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path

from pulsar_conformance.conformance.harness import outcome as saved
from pulsar_conformance.conformance.protocols.client_failover import explore_judge, rejudge
from pulsar_conformance.conformance.protocols.client_failover.outcome import (
    Credentials,
    Event,
    FailoverConfig,
    Outcome,
)

from ...support import live_itf

S = 1_000_000_000
T0 = 1_700_000_000 * S
JAVA = FailoverConfig("primary", ("s1", "s2"), interval_ms=500, variant="java", failover_delay_ms=2800,
                      switch_back_delay_ms=5000)
ENTRY = rejudge.JUDGED[0]
EXPLORED = rejudge.JUDGED[1]
DATA = Path(__file__).resolve().parents[2] / "data" / "failover" / "certify-4.2.4"


def _outcome(bundle, switch_s: float = 6.2) -> Outcome:
    """The Java client failing over ``switch_s`` after the start (the primary killed at 3 s), back at 13.5 s."""
    events = [Event(T0 + 3 * S, "down", "primary"), Event(T0 + int(switch_s * S), "switch", "s1", "primary"),
              Event(T0 + 8 * S, "up", "primary"), Event(T0 + 13_500_000_000, "switch", "primary", "s1")]
    probes = [[T0 + 3 * S + i * S // 2 + 100_000_000, "primary"] for i in range(7)]
    sends = [("send_ok", f"p/{i}", T0 + i * S // 10) for i in range(1, 151)]
    rows = sends + [("receive", uid, ts + 1000) for _, uid, ts in sends]
    columns = {"kind": [r[0] for r in rows], "uid": [r[1] for r in rows], "ts_ns": [r[2] for r in rows]}
    run_dir = bundle / "captures" / "java-kill-primary"
    run_dir.mkdir(parents=True)
    return Outcome("java-kill-primary", run_dir, JAVA, T0, events, [{"ts_ns": T0 + 3 * S, "label": "primary killed"}],
                   {"valid": True, "events": 300, "anomalies": {"duplicate": {"count": 0}}}, 150, [], [],
                   java={"release": "4.2.4", "failed_probes": probes, "drained": None,
                         "switch_log": [[T0 + int(switch_s * S), "primary", "s1"], [T0 + 13_500_000_000, "s1", "primary"]]},
                   backlogs={c: {"uids": [], "complete": True, "msg_backlog": 0} for c in ("primary", "s1", "s2")},
                   drain_complete=True, marks={"back": T0 + 13_500_000_000}, credentials=Credentials(),
                   columns=columns)


def test_the_trace_row_names_its_itf_file_and_replay_accepts_it(tmp_path, capsys):
    rows = live_itf.judge_into(tmp_path, ENTRY, _outcome(tmp_path))
    files = live_itf.files_of(rows, "/trace")
    assert files == ["captures/java-kill-primary/traces/client-failover.java-kill-primary.trace.itf.json"]
    assert next(r for r in rows if r["check"].endswith("/trace"))["verdict"] == "pass"
    code, said = live_itf.replay(capsys, tmp_path, files[0])
    assert code == 0 and said["ok"], said
    # the spec's instance is the run's: the Java variant with its delays, as #meta says
    assert said["variant"] == "java" and said["constants"]["FAILOVER_DELAY_MS"] == 2800
    # the observed steps (the faults, the two switches) and the hidden checks between them
    assert said["actions"].count("tick") > 4 and "go_down(c=primary)" in said["actions"]


def test_a_state_edited_in_the_file_is_rejected(tmp_path, capsys):
    rows = live_itf.judge_into(tmp_path, ENTRY, _outcome(tmp_path))
    (saved,) = live_itf.files_of(rows, "/trace")
    planted = live_itf.plant(tmp_path, saved, "current", "s2")  # the client on s2, where no step took it
    code, said = live_itf.replay(capsys, tmp_path, planted)
    assert code == 1 and not said["ok"] and "no action of client-failover" in said["problem"], said


def test_a_failover_before_the_delay_is_saved_as_its_prefix_and_replay_says_where_it_left(tmp_path, capsys):
    """A switch 0.6 s after the kill (the delay is 2.8 s): not a behaviour of the spec. The file holds what the
    spec accepted; replay accepts those steps and answers REJECTED at the switch (#meta.rejected)."""
    rows = live_itf.judge_into(tmp_path, ENTRY, _outcome(tmp_path, switch_s=3.6))
    assert next(r for r in rows if r["check"].endswith("/trace"))["verdict"] == "fail"
    (saved,) = live_itf.files_of(rows, "/trace")
    code, said = live_itf.replay(capsys, tmp_path, saved)
    assert code == 1 and not said["ok"] and said["rejected"]["label"] == "tick", said
    assert "left the spec" in said["problem"] and "primary -> s1" in said["problem"]


def test_an_explored_schedule_saves_the_trace_it_validated_with_the_checks_that_must_have_run(tmp_path, capsys):
    """explore_judge validates the events with the quiet checks a fixed-rate client must have made between
    them (more steps than trace.observed_steps): its file is that behaviour, each counted check observed."""
    capture = tmp_path / "captures" / "x0007"
    shutil.copytree(DATA / "java-stale-failure", capture)
    out = dataclasses.replace(saved.load(Outcome, capture), run_dir=capture)
    fields = {f.name: getattr(out, f.name) for f in dataclasses.fields(out)}
    end = max(e.at_ns for e in out.events) + 3 * S
    explored = explore_judge.ExploredOutcome(**{**fields, "name": "x0007", "marks": {**out.marks, "end": end}})
    rows = live_itf.judge_into(tmp_path, EXPLORED, explored)
    (rel,) = live_itf.files_of(rows, "/trace")
    code, said = live_itf.replay(capsys, tmp_path, rel)
    assert code == 0 and said["ok"] and said["variant"] == "java", said
    doc = json.loads((tmp_path / rel).read_text())
    counted = [st for st in doc["states"] if "checks a client checking every" in st["#meta"].get("observed", "")]
    assert counted and doc["#meta"]["observed_steps"] > len(out.events)
