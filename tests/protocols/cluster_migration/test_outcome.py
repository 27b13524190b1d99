"""The PIP-188 outcome of the recorded run (tests/data/migration/cluster-migration-3.13.0) saved and
loaded by the harness (the capture's rows read back from the capture's own files), and judged offline
from the loaded copy exactly as from the one rebuilt from the recording."""
from __future__ import annotations

from pulsar_conformance.conformance.harness import outcome as saved
from pulsar_conformance.conformance.protocols.cluster_migration import judge
from pulsar_conformance.conformance.protocols.cluster_migration.outcome import (
    Outcome,
    TopicState,
)

from .recorded import EXCLUSIVE, cluster_level_outcome

REDIRECT = ("INFO redirect migrated producer to topic persistent://mig/live/exclusive: "
            "producerName = p-live-exclusive, ...")


def _recorded(tmp_path) -> Outcome:
    return cluster_level_outcome(tmp_path)


def test_the_outcome_round_trips(tmp_path):
    out = _recorded(tmp_path)
    saved.save(out, tmp_path)
    back = saved.load(Outcome, tmp_path)  # the capture's rows from tmp_path/events
    assert back.columns == out.columns
    assert back == out
    assert isinstance(back.topics[EXCLUSIVE].blue.ledgers, set) and back.sub_types == out.sub_types


def test_the_judge_runs_on_a_loaded_outcome(tmp_path):
    live = _recorded(tmp_path)
    saved.save(live, tmp_path)
    loaded = saved.load(Outcome, tmp_path)
    rows = judge.judge(loaded)
    assert rows == judge.judge(live)
    verdicts = {r.check: r.ok for r in rows}
    assert not any(r.raised for r in rows)
    assert verdicts["cluster-migration/exclusive/p-live-exclusive/redirected"] is True
    assert verdicts["cluster-migration/exclusive/p-live-exclusive/fast/trace"] is True
    assert verdicts["cluster-migration/no-new-topic-in-blue"] is True
    assert verdicts["cluster-migration/exclusive/p-live-exclusive/client-follows-redirect"] is True


def test_r09_is_not_applicable_on_a_release_without_automatic_resource_creation(tmp_path):
    """Before 3.2.0 the broker has no clusterMigrationAutoResourceCreation: blue's runtime configuration does
    not list it, asking for it in broker.conf changes nothing, and R09 ("with auto resource creation") has
    no state to judge. The sweep's 3.0.0 run failed R09 there (subscriptions missing on green); the same
    recording judged with the setting present keeps its verdict, and with it off is unknown."""
    out = _recorded(tmp_path)
    check = "cluster-migration/resources-on-green"
    judged = {r.check: r for r in judge.judge(out)}[check]  # recorded before blue was asked: as before
    out.admin["blue:auto-create"] = {"present": True, "value": "true"}
    assert {r.check: r for r in judge.judge(out)}[check].ok is judged.ok is True
    out.admin["blue:auto-create"] = {"present": False, "value": None}
    lacking = {r.check: r for r in judge.judge(out)}[check]
    assert lacking.verdict == "not applicable" and "clusterMigrationAutoResourceCreation" in lacking.evidence
    out.admin["blue:auto-create"] = {"present": True, "value": "false"}
    off = {r.check: r for r in judge.judge(out)}[check]
    assert off.ok is None and off.verdict != "not applicable" and "=false" in off.evidence
    missing = {"exclusive": ["fast"]}  # the control: with the setting on, a missing subscription still fails
    assert judge.resources_on_green("x", {"present": True, "value": "true"}, missing, 0, []).ok is False
    assert judge.resources_on_green("x", {"present": False}, missing, 0, []).verdict == "not applicable"


def test_a_cluster_that_did_not_answer_for_its_topic_leaves_every_send_unplaced():
    """5.0.0-M1 (2026-11-29, namespace-migration-java): blue's stats timed out, so its ledgers were unknown, and
    its ledger 5 was green's ledger 5 too; the ledger ids put all 349 sends blue stored on green (a redirect
    "4.4 s before the trigger"). A cluster whose answer is unknown makes no send placeable by its ledger id;
    a 404 (no such topic there) still says it stored none."""
    from pulsar_conformance.conformance.protocols.cluster_migration.outcome import place_sends

    topic = "persistent://mig/moving-java/orders"
    sends = [{"uid": f"p/{i}", "msg_id": f"5:{i}:-1:-1", "ts_ns": i} for i in range(3)]
    blue = TopicState("blue", topic, error="ReadTimeout: HTTPConnectionPool(host='127.0.0.1', port=8080): Read timed out.")
    green = TopicState("green", topic, {5}, "LedgerOpened", entries=0)
    placed = place_sends(topic, sends, blue, green)
    assert set(placed.by_uid.values()) == {"unknown"} and placed.method == "none"
    assert placed.problems == ["blue's ledgers are unknown (ReadTimeout: HTTPConnectionPool(host='127.0.0.1', "
                               "port=8080): Read timed out.), so a send's ledger id cannot tell which cluster stored it"]
    absent = TopicState("blue", topic, error="HTTP 404: Topic not found")
    assert set(place_sends(topic, sends, absent, green).by_uid.values()) == {"green"}
