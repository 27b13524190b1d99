"""A run's history (conformance/harness/history.py): rows by kind and topic through one cluster's
clients, and the pairs and keys checkers judge one by one."""
from __future__ import annotations

from pulsar_conformance.conformance.harness.history import History

NAMES = ("kind", "topic", "cluster", "producer", "subscription", "key", "uid", "ts_ns")
ROWS = [("send_ok", "t", "blue", "p1", None, "k1", "a", 1), ("send_ok", "t", "blue", "p1", None, "k2", "b", 2),
        ("send_ok", "t", "remote", "p9", None, None, "z", 3), ("send_err", "t", "blue", "p2", None, None, "c", 4),
        ("receive", "t", "blue", "p1", "s1", "k1", "a", 5), ("receive", "t", "green", "p1", "s2", "k1", "a", 6),
        ("ack", "t", "blue", "p1", "s1", "k1", "a", 7), ("send_ok", "u", "blue", "p3", None, None, "d", 8)]
COLUMNS = {name: [row[i] for row in ROWS] for i, name in enumerate(NAMES)}


def test_questions_through_one_cluster():
    h = History(COLUMNS, cluster="blue")
    assert [r["uid"] for r in h.sends("t")] == ["a", "b"]  # the remote producer is not blue's client
    assert [r["uid"] for r in h.failed_sends("t")] == ["c"]
    assert h.subscriptions("t") == ["s1"] and h.pairs("t") == [("p1", "s1")]
    assert h.keys("t", "p1") == ["k1", "k2"] and [r["uid"] for r in h.acks("t", "s1")] == ["a"]


def test_every_client_when_no_cluster_is_named():
    h = History(COLUMNS)
    assert h.producers("t") == ["p1", "p9"] and h.subscriptions("t") == ["s1", "s2"]
    assert len(h.pairs("t")) == 4 and h.sends("nowhere") == []
