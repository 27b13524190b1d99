"""The policy-sync outcome saved and loaded by the harness, and judged offline from the loaded copy
exactly as from the live one (the checks the outcome asks for, and publish-before-write)."""
from __future__ import annotations

from pulsar_conformance.conformance.harness import outcome as saved
from pulsar_conformance.conformance.protocols.policy_sync import judge
from pulsar_conformance.conformance.protocols.policy_sync.outcome import Event, Outcome, Policy, Step

CLUSTERS = ["alpha", "bravo", "charlie"]


def _event(value, ts, source, index=0):
    return Event(index=index, path="/admin/policies/t/ns", kind="Modified", value=value, ts=ts, source=source,
                 expected_version=None, publish_ms=ts + 1, raw={"not": "saved"})


def _outcome(run_dir, final, *, judged=("converged", "newest-wins"), steps=(), results=(), stored=None) -> Outcome:
    written = [_event(1, 100, "alpha"), _event(2, 200, "bravo", 1)]
    return Outcome("concurrent", run_dir, CLUSTERS, Policy("t", "ns"),
                   list(steps) or [Step("write", cluster="alpha", value=1), Step("writes", together=(("bravo", 2),))],
                   list(results) or [{"ok": True}, {"ok": True}], dict(final), True,
                   {"alpha": [(5, 1), (9, 2)]}, {c: list(written) for c in CLUSTERS},
                   [{"ts_ns": 5, "label": "alpha holds 1"}], 1000, judged, stored)


def test_the_outcome_round_trips(tmp_path):
    out = _outcome(tmp_path, {"alpha": 2, "bravo": 2, "charlie": None})
    saved.save(out, tmp_path)
    back = saved.load(Outcome, tmp_path)
    assert back.events["alpha"][0].raw == {}  # the record as read is not saved
    for events in out.events.values():
        for event in events:
            event.raw = {}
    assert back == out and back.series["alpha"] == [(5, 1), (9, 2)] and back.steps[1].together == (("bravo", 2),)


def test_the_judge_runs_on_a_loaded_outcome(tmp_path):
    saved.save(_outcome(tmp_path, {"alpha": 2, "bravo": 1, "charlie": 2}), tmp_path)
    rows = judge.judge(saved.load(Outcome, tmp_path))
    assert [(r.check, r.ok) for r in rows] == [("policy-sync/concurrent/converged", False),
                                               ("policy-sync/concurrent/newest-wins", False)]
    saved.save(_outcome(tmp_path, {c: 2 for c in CLUSTERS}), tmp_path)
    assert [r.ok for r in judge.judge(saved.load(Outcome, tmp_path))] == [True, True]


def test_publish_before_write_is_judged_from_the_loaded_outcome(tmp_path):
    steps = [Step("write", cluster="alpha", value=1), Step("break-sync-topic", cluster="alpha"),
             Step("write", cluster="alpha", value=2)]
    results = [{"ok": True}, {"ok": True}, {"ok": True}]
    saved.save(_outcome(tmp_path, {c: 1 for c in CLUSTERS}, judged=(), steps=steps, results=results, stored=2),
               tmp_path)
    (r,) = judge.judge(saved.load(Outcome, tmp_path))
    assert r.check == "policy-sync/concurrent/publish-before-write" and r.ok is False  # the store holds 2


def test_events_are_the_writers_by_the_names_pulsar_gives_them(tmp_path):
    """An external deployment's roles are other clusters' names: its events carry us-east, not alpha, as their
    source. Judged by role, none was written (seen live: 'no event was written', 'after 0 event(s)')."""
    out = _outcome(tmp_path, {"alpha": 2, "bravo": 2, "charlie": 2})
    out.events = {c: [_event(1, 100, "us-east"), _event(2, 200, "us-west", 1)] for c in CLUSTERS}
    assert out.written() == []  # without the names: what the judges saw
    out.names = {"alpha": "us-east", "bravo": "us-west", "charlie": "eu-central"}
    assert [(e.source, e.value) for e in out.written()] == [("us-east", 1), ("us-west", 2)]
    saved.save(out, tmp_path)
    back = saved.load(Outcome, tmp_path)
    assert back.names == out.names and len(back.written()) == 2
    ok, said = judge.newest_wins(back)
    assert ok and "from us-west" in said
