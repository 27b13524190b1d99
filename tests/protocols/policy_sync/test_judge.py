"""The policy-sync verdicts on made-up outcomes: each one seen passing, failing and unknown, so
that none of them can pass whatever happened."""
from __future__ import annotations

from pathlib import Path

import pytest

from pulsar_conformance.conformance.protocols.policy_sync import judge
from pulsar_conformance.conformance.protocols.policy_sync.outcome import Event, Outcome, Policy, Step

CLUSTERS = ["alpha", "bravo", "charlie"]


def _event(value, ts, source, kind="Modified"):
    return Event(index=0, path="/admin/policies/t/ns", kind=kind, value=value, ts=ts, source=source,
                 expected_version=None)


def _outcome(final, written, steps=(), results=(), series=None, quiesced=True):
    events = {c: list(written) for c in CLUSTERS}
    return Outcome("s", Path("/tmp"), CLUSTERS, Policy("t", "ns"), list(steps), list(results), dict(final),
                   quiesced, series or {}, events)


ALL_2 = {"alpha": 2, "bravo": 2, "charlie": 2}
SPLIT = {"alpha": 2, "bravo": 1, "charlie": 1}
TWO_WRITES = [_event(1, 100, "alpha"), _event(2, 200, "alpha")]


def test_convergence():
    assert judge.converged(_outcome(ALL_2, TWO_WRITES))[0] is True
    ok, said = judge.converged(_outcome(SPLIT, TWO_WRITES))
    assert ok is False and "alpha=2, bravo=1, charlie=1" in said and "1@100/alpha" in said
    assert judge.converged(_outcome(SPLIT, TWO_WRITES, quiesced=False))[0] is None
    assert judge.converged(_outcome({**ALL_2, "bravo": None}, TWO_WRITES))[0] is None


def test_newest_wins():
    assert judge.newest_wins(_outcome(ALL_2, TWO_WRITES))[0] is True
    assert judge.newest_wins(_outcome({c: 1 for c in CLUSTERS}, TWO_WRITES))[0] is False
    assert judge.newest_wins(_outcome(SPLIT, TWO_WRITES))[0] is False
    tie = [_event(1, 200, "bravo"), _event(2, 200, "charlie")]
    assert judge.newest_wins(_outcome(ALL_2, tie))[0] is None  # a tie is R03's
    assert judge.newest_wins(_outcome(ALL_2, []))[0] is None
    # a delete as the newest event: absent everywhere
    deleted = TWO_WRITES + [_event(0, 300, "bravo", "Deleted")]
    assert judge.newest_wins(_outcome({c: 0 for c in CLUSTERS}, deleted))[0] is True


def test_tie_goes_to_the_smaller_source():
    tie = [_event(1, 200, "bravo"), _event(2, 200, "charlie")]
    assert judge.tie_to_smaller_source(_outcome({c: 1 for c in CLUSTERS}, tie))[0] is True
    ok, said = judge.tie_to_smaller_source(_outcome(ALL_2, tie))
    assert ok is False and "LARGER" in said
    assert judge.tie_to_smaller_source(_outcome(SPLIT, tie))[0] is False
    assert judge.tie_to_smaller_source(_outcome(ALL_2, TWO_WRITES))[0] is None  # no tie at all
    later = tie + [_event(3, 300, "alpha")]
    assert judge.tie_to_smaller_source(_outcome({c: 3 for c in CLUSTERS}, later))[0] is None


def test_redelivery_has_no_effect():
    steps = [Step("redeliver", cluster="bravo")]
    results = [{"ok": True, "at_ns": 50}]
    series = {"bravo": [(10, 2)]}
    assert judge.redelivery_no_effect(_outcome(ALL_2, TWO_WRITES, steps, results, series))[0] is True
    moved = _outcome({**ALL_2, "bravo": 1}, TWO_WRITES, steps, results, series)
    assert judge.redelivery_no_effect(moved)[0] is False
    assert judge.redelivery_no_effect(_outcome(ALL_2, TWO_WRITES))[0] is None
    refused = [{"ok": False, "at_ns": 50, "error": "409"}]
    assert judge.redelivery_no_effect(_outcome(ALL_2, TWO_WRITES, steps, refused, series))[0] is None


@pytest.mark.parametrize("stored,expected", [(1, True), (2, False), (None, None)])
def test_no_local_write_without_its_event(stored, expected):
    steps = [Step("write", cluster="alpha", value=1), Step("break-sync-topic", cluster="alpha"),
             Step("write", cluster="alpha", value=2)]
    results = [{"ok": True}, {"ok": True}, {"ok": False, "status": 500, "error": "500"}]
    final = {"alpha": 2 if stored is None else stored, "bravo": 1, "charlie": 1}
    out = _outcome(final, TWO_WRITES, steps, results)
    ok, said = judge.publish_before_write(out, stored)
    assert ok is (expected if stored is not None else False)  # without a restart the REST answer is all there is
    no_break = _outcome(final, TWO_WRITES, steps[:1], results[:1])
    assert judge.publish_before_write(no_break)[0] is None


def test_one_consumer_per_cluster():
    good = {c: {"type": "Failover", "consumers": [{}]} for c in CLUSTERS}
    assert judge.one_consumer(good)[0] is True
    assert judge.one_consumer({**good, "bravo": {"type": "Shared", "consumers": [{}, {}]}})[0] is False
    assert judge.one_consumer({**good, "charlie": {}})[0] is False
    assert judge.one_consumer({})[0] is None


def test_one_active_consumer_per_cluster_of_several_brokers():
    """Each broker of a cluster subscribes its synchronizer: two consumers on the Failover
    subscription, one of them active, is the PIP's design (before, the check wanted exactly one
    consumer and failed PIP136-R06 on --topology cluster); none active, or a Shared type, fails."""
    two = [{"consumerName": "broker-1"}, {"consumerName": "broker-2"}]
    ok, said = judge.one_consumer({"alpha": {"type": "Failover", "consumers": two, "activeConsumerName": "broker-2"}})
    assert ok is True and "active broker-2" in said
    ok, said = judge.one_consumer({"alpha": {"type": "Failover", "consumers": two, "activeConsumerName": None}})
    assert ok is False and "none of them active" in said
    assert judge.one_consumer({"alpha": {"type": "Shared", "consumers": two, "activeConsumerName": "broker-2"}})[0] is False


def test_a_refused_change_leaves_the_scenario_unknown_not_passed():
    """The delete-race scenario passed for months with its delete refused (HTTP 405 to a forced delete): what
    the clusters then held said nothing of a delete racing an update. A refused write or delete now leaves the
    judged checks unknown; a scenario whose point is a refused write (break-sync-topic) is judged as before."""
    steps = [Step("write", cluster="alpha", value=1), Step("delete-and-write", cluster="alpha", to="bravo", value=2)]
    results = [{"step": "write 1 at alpha", "ok": True},
               {"step": "delete at alpha and write 2 at bravo, at once", "ok": False,
                "errors": ["alpha: DELETE .../namespaces/t/ns -> 405: Method Not Allowed"]}]
    out = _outcome(ALL_2, TWO_WRITES, steps, results)
    out.judged = ("converged", "newest-wins")
    rows = judge.judge(out)
    assert [r.ok for r in rows] == [None, None], rows
    assert "was refused (alpha: DELETE .../namespaces/t/ns -> 405" in rows[0].evidence
    results[1]["ok"] = True  # the same outcome with the delete done is judged
    assert [r.ok for r in judge.judge(out)] == [True, True]
