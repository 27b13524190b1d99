"""PIP188-R05 judged only once its state is reached (issue 47, F-188-16): R05 says new producers and
subscriptions are refused "on a migrated topic", and each topic is migrated asynchronously after the
cluster is marked. The new clients through blue now wait (bounded) for blue to have migrated their
topic; when it never was, their rows are unknown with the reason, never R05's failure; when it was,
they are judged as before; a run recorded before the wait keeps its verdicts."""
from __future__ import annotations

from pulsar_conformance.conformance.harness import evidence
from pulsar_conformance.conformance.protocols.cluster_migration import judge

from .recorded import cluster_level_outcome as _recorded

CHECKS = ("cluster-migration/new-producer-via-blue", "cluster-migration/new-subscription-via-blue")


def _rows(out) -> dict:
    return {r.check: r for r in judge.judge(out) if r.check in CHECKS}


def test_clients_made_before_blue_migrated_their_topic_leave_r05_unknown_with_the_reason(tmp_path):
    before = _rows(_recorded(tmp_path / "before"))
    out = _recorded(tmp_path / "now")
    out.facts["new_clients"] = {"topic_migrated": False, "waited_s": 30.0, "bound_s": 30.0}
    rows = _rows(out)
    for check in CHECKS:
        assert rows[check].ok is None, rows[check]  # the old code judged them whatever the topic's state
        assert rows[check].evidence.startswith("not judged: blue had not migrated exclusive within 30 s")
        assert "F-188-16" in rows[check].evidence
    # what was recorded before the wait existed is judged as it was, and says so
    assert all(before[c].ok is not None and "recorded before the suite waited" in before[c].evidence for c in CHECKS)


def test_clients_made_once_the_topic_was_migrated_are_judged_as_before(tmp_path):
    before = _rows(_recorded(tmp_path / "before"))
    out = _recorded(tmp_path / "now")
    out.facts["new_clients"] = {"topic_migrated": True, "waited_s": 1.25, "bound_s": 30.0}
    rows = _rows(out)
    for check in CHECKS:
        assert rows[check].ok == before[check].ok
        assert "created once blue had migrated exclusive (1.25 s after they were due)" in rows[check].evidence


def test_a_producer_blue_accepts_on_a_migrated_topic_fails_r05(tmp_path):
    """The can-fail control: a producer blue stored sends for after it migrated the topic is R05's failure."""
    out = _recorded(tmp_path)
    out.facts["new_clients"] = {"topic_migrated": True, "waited_s": 0.5, "bound_s": 30.0}
    # three of p-new's sends stored on blue (the record edited: the judge computes p-new's figures from it)
    exclusive = out.topics[out.facts["exclusive"]]
    sent = [r["uid"] for r in evidence.rows(out.columns, kind="send_ok", topic=exclusive.topic, producer="p-new")]
    exclusive.placement.by_uid.update(dict.fromkeys(sent[:3], "blue"))
    assert next(p for p in judge.with_figures(out).topics[exclusive.topic].producers if p.name == "p-new").on_blue == 3
    assert _rows(out)["cluster-migration/new-producer-via-blue"].ok is False
