"""Capture against a real standalone broker with the real pulsar-client.

The deployment comes from fixtures/deploy (one local standalone JVM); these tests prove
that wrapped clients record the §5.1 rows a check needs, and that a real anomaly (messages
never consumed) comes out of the checks as ``lost``.
"""
from __future__ import annotations

import threading
import uuid

import pyarrow.dataset as ds
import pytest

from pulsar_conformance.fixtures.capture import Capture, read_manifest
from pulsar_conformance.spark_checks.check import check_capture

pulsar = pytest.importorskip("pulsar")

pytestmark = [pytest.mark.pulsar, pytest.mark.slow]


@pytest.fixture(scope="module")
def cluster(pulsar_deployment_factory):
    deployment = pulsar_deployment_factory(["capture"])
    return deployment.clusters["capture"]


def _topic() -> str:
    return f"persistent://public/default/capture-{uuid.uuid4().hex[:8]}"


def _events(run_dir):
    return ds.dataset(str(run_dir / "events"), format="parquet").to_table().to_pylist()


def test_send_receive_ack_are_recorded_and_the_run_is_valid(cluster, tmp_path):
    topic, client = _topic(), cluster.client()
    try:
        with Capture(tmp_path, must_see=[(topic, "s1")], allowed=["recovered"], scenario={"test": "happy"}) as capture:
            consumer = capture.consumer(client, topic, "s1", name="c1", cluster="capture",
                                        consumer_type=pulsar.ConsumerType.Shared)
            producer = capture.producer(client, topic, name="p1", cluster="capture", batching_enabled=True,
                                        block_if_queue_full=True)
            done = threading.Semaphore(0)
            results = []

            def callback(result, msg_id):
                results.append(result)
                done.release()

            for i in range(500):
                producer.send_async(f"m{i}".encode(), callback, key=f"k{i % 4}")
            producer.flush()
            for _ in range(500):
                assert done.acquire(timeout=30)
            producer.send(b"sync", key="k0")
            seen = []
            for _ in range(501):
                message = consumer.receive(timeout_millis=30_000)
                seen.append(message.properties())
                consumer.acknowledge(message)
            producer.close()
            consumer.close()
    finally:
        client.close()

    assert all(r == pulsar.Result.Ok for r in results)
    # format /2: the uid is the only identity property, <producer>/<seq>
    assert all(set(p) == {"uid"} for p in seen)
    assert {p["uid"].rsplit("/", 1)[0] for p in seen} == {"p1"}
    assert sorted(int(p["uid"].rsplit("/", 1)[1]) for p in seen) == list(range(1, 502))
    rows = _events(tmp_path)
    kinds = [r["kind"] for r in rows]
    assert kinds.count("send_ok") == 501 and kinds.count("receive") == 501 and kinds.count("ack") == 501
    receive = next(r for r in rows if r["kind"] == "receive")
    assert receive["topic"] == topic and receive["subscription"] == "s1" and receive["client"] == "c1"
    assert receive["redelivery_count"] == 0 and receive["cluster"] == "capture"
    assert receive["msg_id"].count(":") == 3
    assert read_manifest(tmp_path)["must_see"] == [{"topic": topic, "subscription": "s1"}]

    for engine in ("python", "duckdb"):
        verdict = check_capture(tmp_path, engine=engine)
        assert verdict["valid"] is True, verdict
        assert verdict["events"] == 3 * 501
        assert all(v["count"] == 0 for v in verdict["anomalies"].values()), verdict


def test_messages_never_consumed_are_lost(cluster, tmp_path):
    topic, client = _topic(), cluster.client()
    try:
        with Capture(tmp_path, must_see=[(topic, "s1")]) as capture:
            consumer = capture.consumer(client, topic, "s1", name="c1")
            producer = capture.producer(client, topic, name="p1")
            for i in range(30):
                producer.send(f"m{i}".encode())
            for _ in range(20):  # the last ten are never received
                consumer.acknowledge(consumer.receive(timeout_millis=30_000))
            producer.close()
            consumer.close()
    finally:
        client.close()
    verdict = check_capture(tmp_path, engine="duckdb")
    assert verdict["valid"] is False
    assert verdict["anomalies"]["lost"]["count"] == 10
    assert [e["seq"] for e in verdict["anomalies"]["lost"]["examples"]] == [21, 22, 23, 24, 25]


def test_a_failed_send_is_recorded_as_send_err(cluster, tmp_path):
    topic, client = _topic(), cluster.client()
    try:
        with Capture(tmp_path) as capture:
            producer = capture.producer(client, topic, name="p1")
            producer.send(b"before")
            producer.close()
            with pytest.raises(pulsar.PulsarException):
                producer.send(b"after close")  # AlreadyClosed: never left the client
    finally:
        client.close()
    kinds = {(r["seq"], r["kind"]) for r in _events(tmp_path)}
    assert kinds == {(1, "send_ok"), (2, "send_err")}


def test_listener_cumulative_acks_and_foreign_messages(cluster, tmp_path):
    topic, client = _topic(), cluster.client()
    received = threading.Semaphore(0)
    try:
        with Capture(tmp_path, must_see=[(topic, "s1"), (topic, "s2")]) as capture:
            def on_message(consumer, message):
                consumer.acknowledge(message)
                received.release()

            capture.consumer(client, topic, "s1", name="listener", message_listener=on_message)
            cumulative = capture.consumer(client, topic, "s2", name="cumulative", cumulative_acks=True)
            producer = capture.producer(client, topic, name="p1")
            for i in range(10):
                producer.send(f"m{i}".encode(), key="k")
            outsider = client.create_producer(topic)  # not captured: its message has no uid
            outsider.send(b"from elsewhere")
            messages = [cumulative.receive(timeout_millis=30_000) for _ in range(11)]
            cumulative.acknowledge_cumulative(messages[-1])
            for _ in range(11):
                assert received.acquire(timeout=30)
            outsider.close()
            producer.close()
    finally:
        client.close()
    rows = _events(tmp_path)
    acks = [r for r in rows if r["kind"] == "ack" and r["subscription"] == "s2"]
    assert len(acks) == 11, "a cumulative ack must record every message it covers"
    assert sum(1 for r in rows if r["kind"] == "receive" and r["client"] == "listener") == 11
    verdict = check_capture(tmp_path, engine="duckdb")
    assert verdict["anomalies"]["unexpected"]["count"] == 2  # the outsider's message, in each subscription
    assert all(e["uid"].startswith("foreign:") for e in verdict["anomalies"]["unexpected"]["examples"])
    assert verdict["anomalies"]["lost"]["count"] == 0 and verdict["valid"] is False
