"""send_async outcomes go through a per-producer columnar buffer: the rows must be exactly
what the contract says, whatever mix of outcomes, keys and clusters a flush holds."""
from __future__ import annotations

import pyarrow.dataset as ds
import pytest

pulsar = pytest.importorskip("pulsar")
import _pulsar  # noqa: E402  (the C binding under pulsar-client)

from pulsar_conformance.fixtures.capture import Capture  # noqa: E402


class _FakeInner:
    """Stands in for the C binding: completes each send at once, every third one failing."""

    def __init__(self):
        self.sent = []

    def send_async(self, message, callback):
        self.sent.append(message)
        index = len(self.sent)
        if index % 3 == 0:
            callback(_pulsar.Result.Timeout if index % 2 else _pulsar.Result.AlreadyClosed, _pulsar.MessageId.earliest)
        else:
            # MessageId(partition, ledger, entry, batch_index)
            callback(_pulsar.Result.Ok, _pulsar.MessageId(-1, 7, index, index % 2 - 1))

    def topic(self):
        return "persistent://t/ns/a-partition-0"


class _FakeClient:
    def create_producer(self, topic, **_options):
        producer = pulsar.Producer.__new__(pulsar.Producer)
        producer._producer, producer._schema, producer._client = _FakeInner(), pulsar.schema.BytesSchema(), None
        return producer


def test_async_outcomes_become_contract_rows(tmp_path):
    seen = []
    with Capture(tmp_path, run_id="r1") as capture:
        producer = capture.producer(_FakeClient(), "persistent://t/ns/a", name="p1", cluster="blue")
        for i in range(1, 13):
            if i == 7:
                producer.cluster = "green"  # a scenario that knows its client moved
            producer.send_async(b"x", lambda result, msg_id: seen.append(result), key=f"k{i % 2}" if i > 4 else None)
            if i == 6:
                capture.flush()  # outcomes before and after a flush
    assert len(seen) == 12
    rows = sorted(ds.dataset(str(tmp_path / "events")).to_table().to_pylist(), key=lambda r: r["seq"])
    assert [r["seq"] for r in rows] == list(range(1, 13))
    for r in rows:
        seq = r["seq"]
        assert r["uid"] == f"p1/{seq}" and r["producer"] == r["client"] == "p1" and r["run_id"] == "r1"
        assert r["topic"] == "persistent://t/ns/a" and r["subscription"] is None and r["redelivery_count"] is None
        assert r["cluster"] == ("blue" if seq < 7 else "green")
        assert r["key"] == (f"k{seq % 2}" if seq > 4 else None)
        if seq % 3 == 0:
            assert r["kind"] == ("send_unknown" if seq % 2 else "send_err") and r["msg_id"] is None
        else:
            assert r["kind"] == "send_ok" and r["msg_id"] == f"7:{seq}:-1:{seq % 2 - 1}"
    # The message itself carries one identity property (format /2): the uid.
    message = producer._producer._producer.sent[4]
    assert message.properties() == {"uid": "p1/5"}
    assert message.partition_key() == "k1"


def test_the_outcome_buffer_is_bounded_by_back_pressure(tmp_path):
    with Capture(tmp_path, flush_interval=1.0, max_rows=100) as capture:
        producer = capture.producer(_FakeClient(), "persistent://t/ns/a", name="p1")
        for _ in range(3_000):
            producer.send_async(b"x")
            assert len(producer._outcomes) <= 4 * 100
    assert ds.dataset(str(tmp_path / "events")).count_rows() == 3_000


def test_sends_with_properties_or_other_options_take_the_general_path(tmp_path):
    """The short path covers bytes, an optional str key and no other option; anything else
    goes through pulsar.Producer.send_async with the same identity and the same rows."""
    seen = []
    with Capture(tmp_path, run_id="r1") as capture:
        producer = capture.producer(_FakeClient(), "persistent://t/ns/a", name="p1")
        producer.send_async(b"a", lambda result, msg_id: seen.append(1))                      # short path
        producer.send_async(b"b", None, properties={"trace": "t-2", "uid": "spoofed"})          # general
        producer.send_async(b"c", lambda result, msg_id: seen.append(3), ordering_key="o-3")    # general
        producer.send_async(b"d", None, key="k-4")                                              # short path
    assert seen == [1, 3]
    sent = producer._producer._producer.sent
    assert [m.properties() for m in sent] == [{"uid": "p1/1"}, {"trace": "t-2", "uid": "p1/2"}, {"uid": "p1/3"},
                                             {"uid": "p1/4"}]
    assert sent[2].ordering_key() == "o-3" and sent[3].partition_key() == "k-4" and sent[0].partition_key() == ""
    rows = sorted(ds.dataset(str(tmp_path / "events")).to_table().to_pylist(), key=lambda r: r["seq"])
    assert [(r["seq"], r["uid"], r["key"]) for r in rows] == [(1, "p1/1", None), (2, "p1/2", None), (3, "p1/3", "o-3"),
                                                               (4, "p1/4", "k-4")]
