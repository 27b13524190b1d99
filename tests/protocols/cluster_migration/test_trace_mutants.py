"""Corrupted-trace mutants of a real PIP-188 run: the checks that should catch each corruption do.

The run is a real capture (tests/data/migration/cluster-migration-3.13.0, README there): the
unedited run passes trace validation, the judges and the anomaly checks; then one corruption
at a time shows that the order, drain-before-green and placement checks can fail, and which
one fails. No brokers: the placement and the judges' inputs are rebuilt from the saved files
(``outcome.load_run``), the anomaly classes of the Spark job come from its reference engine
(``engine="python"``, the definition the Spark engine is tested against), on the corrupted
rows written back to Parquet.
"""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pyarrow as pa
import pyarrow.dataset as ds
import pyarrow.parquet as pq
import pytest

from pulsar_conformance.conformance.protocols.cluster_migration import judge, outcome, trace
from pulsar_conformance.spark_checks.check import check_capture

from .recorded import DATA, EXCLUSIVE, PRODUCER

# ------------------------------------------------------------------ helpers


def copy(columns: dict[str, list]) -> dict[str, list]:
    return {name: list(values) for name, values in columns.items()}


def where(columns: dict[str, list], **match) -> list[int]:
    """Row indexes whose columns equal ``match``."""
    n = len(columns["ts_ns"])
    return [i for i in range(n) if all(columns[k][i] == v for k, v in match.items())]


def one(columns, **match) -> int:
    found = where(columns, **match)
    assert len(found) == 1, (match, found)
    return found[0]


def drop(columns: dict[str, list], indexes: list[int]) -> dict[str, list]:
    gone = set(indexes)
    return {name: [v for i, v in enumerate(values) if i not in gone] for name, values in columns.items()}


def receive(columns, sub: str, seq: int, producer: str = PRODUCER, topic: str = EXCLUSIVE) -> int:
    return one(columns, kind="receive", topic=topic, subscription=sub, producer=producer, seq=seq)


def anomalies(columns: dict[str, list], tmp_path: Path) -> dict[str, int]:
    """The Spark job's anomaly counts (reference engine) over ``columns`` as a capture run."""
    schema = ds.dataset(str(DATA / "events"), format="parquet").schema
    run_dir = tmp_path / "capture"
    (run_dir / "events").mkdir(parents=True)
    shutil.copy(DATA / "manifest.json", run_dir / "manifest.json")
    pq.write_table(pa.Table.from_pydict(columns, schema=schema), run_dir / "events" / "part-0.parquet")
    verdict = check_capture(run_dir, engine="python")
    return {name: v["count"] for name, v in verdict["anomalies"].items()}


def subscription(run: outcome.CapturedRun, sub: str, topic: str = EXCLUSIVE) -> judge.SubscriptionFigures:
    return judge.subscription_figures(sub, run.receives(topic, sub), run.acks(topic, sub), run.placement(topic),
                                      run.trigger_ns)


def producers(run: outcome.CapturedRun, topic: str = EXCLUSIVE) -> dict[str, judge.ProducerFigures]:
    return {p.name: p for p in judge.producer_figures(run.sends(topic), run.failed_sends(topic), run.placement(topic),
                                                      run.trigger_ns)}


def failing(run: outcome.CapturedRun) -> dict[str, judge.PairVerdict]:
    return {v.check: v for v in judge.validate_run(run) if v.ok is not True and v.modelled}


# ---------------------------------------------------------------- the real run


def test_the_saved_files_rebuild_the_judges_inputs(run):
    """Placement and figures recomputed from the saved run are the ones the run recorded."""
    saved = json.loads((DATA / "migration.json").read_text())["topics"]
    for topic, doc in saved.items():
        place = run.placement(topic)
        assert place.method == doc["placement"]["method"] and not place.problems
        assert {c: list(place.by_uid.values()).count(c) for c in ("blue", "green", "unknown")} == doc["placement"]["counts"]
        for p in doc["producers"]:
            got = producers(run, topic)[p["name"]]
            assert (got.sent_ok, got.on_blue, got.on_green, got.order_violations) == \
                (p["sent_ok"], p["on_blue"], p["on_green"], p["order_violations"])
        for s in doc["subscriptions"]:
            got = subscription(run, s["name"], topic)
            assert (got.received, got.from_blue, got.from_green, got.blue_missing, got.drain_violations) == \
                (s["received"], s["from_blue"], s["from_green"], s["blue_missing"], s["drain_violations"])


def test_the_real_run_passes_the_judges_and_the_anomaly_checks(run, tmp_path):
    for topic in run.topics:
        assert all(not p.order_violations and p.on_green for p in producers(run, topic).values())
        for sub in run.subscriptions(topic):
            figures = subscription(run, sub, topic)
            if (topic, sub) in run.late_subs:
                continue  # 'late' starts on green: judged by new-subscription-via-blue
            assert not figures.drain_violations and figures.blue_missing == 0, (topic, sub)
    counts = anomalies(run.columns, tmp_path)
    recorded = json.loads((DATA / "verdict.json").read_text())["anomalies"]
    assert counts == {name: v["count"] for name, v in recorded.items()}  # the reference engine agrees with Spark
    assert not any(counts.values())


def test_the_real_run_is_a_behaviour_of_the_spec(run):
    results = judge.trace_results(outcome.load_run(DATA))
    by_check = {r["check"]: r for r in results}
    modelled = {c for c, r in by_check.items() if r["modelled"]}
    assert modelled == {
        "exclusive/p-live-exclusive/fast/trace", "exclusive/p-live-exclusive/slow/trace",
        "exclusive/p-new/fast/trace", "exclusive/p-new/slow/trace",
        "failover/p-live-failover/fast/trace", "failover/p-live-failover/slow/trace",
        "keyshared/p-live-keyshared/fast/trace", "keyshared/p-live-keyshared/slow/trace"}
    assert all(by_check[c]["ok"] is True for c in modelled), [by_check[c]["evidence"] for c in modelled]
    assert all(by_check[c]["requirements"] == ["PIP188-R01", "PIP188-R02", "PIP188-R04"] for c in modelled)
    # outside the spec's model, said so rather than judged: Shared (two consumers, no order) and
    # the subscription created after the trigger
    for c, r in by_check.items():
        if c not in modelled:
            assert r["ok"] is None and "not modelled" in r["evidence"], r
    assert {c.split("/")[0] + "/" + c.split("/")[2] for c in set(by_check) - modelled} == \
        {"shared/fast", "shared/slow", "exclusive/late"}
    # the figures of one pair: 6 blue and 6 green messages; the admin call, blue's migration
    # task, six replicator steps (one per blue message) and the consumer's redirect are filled in
    slow = by_check["exclusive/p-live-exclusive/slow/trace"]["figures"]
    assert slow == {"messages": 12, "from_blue": 6, "from_green": 6, "receives": 12, "observed_steps": 25,
                    "hidden_steps": 9, "moved_publishes": 0, "failed_sends_dropped": 0, "redeliveries_unacked": 0}
    v = trace.validate_pair(run, EXCLUSIVE, PRODUCER, "slow")
    assert v.hidden == {"admin_migrate": 1, "migration_task": 1, "replicate": 6, "consumer_redirect": 1}
    # Key_Shared is validated per key (its order guarantee): 8 keys of 12 messages
    keyshared = judge.judge_pair(run, "persistent://mig/live/keyshared", "p-live-keyshared", "slow")
    assert len(keyshared.parts) == 8 and all(p.ok and p.messages == 12 for p in keyshared.parts)


def test_a_delivery_captured_before_its_send_ok_is_put_after_its_publish(run):
    """The broker can dispatch a message before the producer's client sees the ack; the
    projection orders the publish first and counts it (it happens on some Key_Shared keys)."""
    moved = [p for p in judge.judge_pair(run, "persistent://mig/live/keyshared", "p-live-keyshared", "fast").parts
             if p.moved_publishes]
    assert moved and all(p.ok for p in moved)


# ------------------------------------------------------------------- mutants


def test_a_swapped_delivery_order_is_caught_by_the_order_checks(run, tmp_path):
    """(a) slow gets seq 297 where it got seq 289 and vice versa (same key, both from blue)."""
    cols = copy(run.columns)
    i, j = receive(cols, "slow", 289), receive(cols, "slow", 297)
    assert cols["key"][i] == cols["key"][j]
    for name in ("uid", "seq", "key", "msg_id", "producer"):
        cols[name][i], cols[name][j] = cols[name][j], cols[name][i]
    bad = run.with_columns(cols)
    # the Spark job's ordering class catches it ...
    counts = anomalies(cols, tmp_path)
    assert counts["nonmonotonic"] >= 1 and counts["lost"] == 0 and counts["duplicate"] == 0
    # ... the drain check does not (both from blue, all delivered) ...
    figures = subscription(bad, "slow")
    assert not figures.drain_violations and figures.blue_missing == 0
    # ... and trace validation does, as an order finding at the early delivery of seq 297: the
    # subscription's delivery order (R02), not publish order (R01: the sends were stored in order)
    v = trace.validate_pair(bad, EXCLUSIVE, PRODUCER, "slow")
    assert v.ok is False and v.finding == "order" and v.requirements == ["PIP188-R02"]
    assert "seq 297 delivered" in v.step_event and "consume" in v.problem
    assert set(failing(bad)) == {"exclusive/p-live-exclusive/slow/trace"}


def test_a_green_delivery_before_blue_is_drained_is_caught_by_the_drain_checks(run):
    """(b) slow's first delivery from green (seq 298) moved just before its last one from blue."""
    cols = copy(run.columns)
    last_blue, first_green = receive(cols, "slow", 297), receive(cols, "slow", 298)
    assert run.placement(EXCLUSIVE).by_uid[cols["uid"][first_green]] == "green"
    cols["ts_ns"][first_green] = cols["ts_ns"][last_blue] - 1_000
    bad = run.with_columns(cols)
    figures = subscription(bad, "slow")
    assert any("before the last blue message was acknowledged" in p for p in figures.drain_violations)
    assert figures.blue_missing == 0  # nothing lost: only the order of clusters is wrong
    v = trace.validate_pair(bad, EXCLUSIVE, PRODUCER, "slow")
    assert v.ok is False and v.finding == "drain" and v.requirements == ["PIP188-R02", "PIP188-R04"]
    # the delivery from green is possible only with the consumer on blue, which reads blue
    assert "seq 298" in v.problem and "from green" in v.problem and "in none of them" in v.problem
    assert int(v.state["blue_cursor"]) < int(v.state["blue_len"])  # blue still had a backlog
    assert set(failing(bad)) == {"exclusive/p-live-exclusive/slow/trace"}


def test_a_green_send_relabelled_blue_is_caught_by_placement_and_producer_order(run):
    """(c) seq 300, stored on green, acknowledged with an id in blue's ledger: blue after green."""
    cols = copy(run.columns)
    i = one(cols, kind="send_ok", topic=EXCLUSIVE, producer=PRODUCER, seq=300)
    blue, green = run.states[EXCLUSIVE]
    assert cols["msg_id"][i].split(":")[0] == str(min(green.ledgers))
    cols["msg_id"][i] = f"{min(blue.ledgers)}:{blue.entries}:-1:-1"  # the entry after blue's last
    bad = run.with_columns(cols)
    assert bad.placement(EXCLUSIVE).by_uid[cols["uid"][i]] == "blue"
    p = producers(bad)[PRODUCER]
    assert p.order_violations == ["seq 298 stored on green but seq 300 on blue"]
    assert not producers(run)[PRODUCER].order_violations
    v = trace.validate_pair(bad, EXCLUSIVE, PRODUCER, "fast")
    assert v.ok is False and v.finding == "placement" and v.requirements == ["PIP188-R01"]
    assert "seq 300 acknowledged, stored on blue" in v.step_event
    assert "does what was observed" in v.problem  # publish is enabled, but the spec's producer is on green
    assert v.state["pside"] == "green"
    # every subscription's trace sees the producer's publishes
    assert set(failing(bad)) == {"exclusive/p-live-exclusive/fast/trace", "exclusive/p-live-exclusive/slow/trace"}


@pytest.mark.parametrize(("seq", "finding"), [(297, "drain"), (294, "loss")])
def test_a_dropped_blue_delivery_is_caught_by_blue_missing(run, tmp_path, seq, finding):
    """(d) fast never got a message stored on blue: the last one (then it went to green with a
    backlog in blue) or one in the middle (then it skipped it)."""
    cols = copy(run.columns)
    gone = [receive(cols, "fast", seq),
            one(cols, kind="ack", topic=EXCLUSIVE, subscription="fast", producer=PRODUCER, seq=seq)]
    cols = drop(cols, gone)
    bad = run.with_columns(cols)
    figures = subscription(bad, "fast")
    assert figures.blue_missing == 1
    assert any("1 blue messages not yet delivered" in p for p in figures.drain_violations)
    assert anomalies(cols, tmp_path)["lost"] == 1  # fast must see every message
    v = trace.validate_pair(bad, EXCLUSIVE, PRODUCER, "fast")
    assert v.ok is False and v.finding == finding
    if finding == "drain":
        assert "consumer_redirect" in v.problem and v.requirements == ["PIP188-R02", "PIP188-R04"]
    else:
        assert f"seq {seq + 1} delivered" in v.step_event and v.requirements == ["PIP188-R02"]
    assert set(failing(bad)) == {"exclusive/p-live-exclusive/fast/trace"}


def test_a_redelivery_is_a_finding_of_its_own(run):
    """Not one of the four, but what the real 3.4.0 run shows (acknowledged blue messages
    delivered again): the spec's subscription gets each message once."""
    cols = copy(run.columns)
    i = receive(cols, "fast", 295)
    for name in cols:
        cols[name].append(cols[name][i])
    cols["ts_ns"][-1] = cols["ts_ns"][receive(cols, "fast", 296)] + 1_000
    v = trace.validate_pair(run.with_columns(cols), EXCLUSIVE, PRODUCER, "fast")
    assert v.ok is False and v.finding == "redelivery" and v.requirements == ["PIP188-R15"]
