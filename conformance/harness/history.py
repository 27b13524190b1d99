"""A run's history as the capture recorded it, indexed for the questions every protocol asks:
the sends, failures, deliveries and acks of a topic (as seen through one cluster's clients),
its producers and subscriptions, and the (producer, subscription[, key]) pairs a checker or a
projection judges one by one (order is per key on Key_Shared)."""
from __future__ import annotations

from dataclasses import dataclass, field

from . import evidence

FAILED = ("send_err", "send_unknown")


@dataclass
class History:
    columns: dict[str, list]
    # the cluster whose clients the questions are about (None: every client): a producer in
    # another region reaches it by replication and is not one of its clients
    cluster: str | None = None
    _index: dict = field(default_factory=dict, init=False, repr=False)

    def of(self, kind: str, topic: str) -> list[dict]:
        """Rows of one kind and topic, in capture order (indexed once)."""
        if not self._index:
            for row in evidence.rows(self.columns):
                if self.cluster is None or row["cluster"] == self.cluster:
                    self._index.setdefault((row["kind"], row["topic"]), []).append(row)
        return self._index.get((kind, topic), [])

    def sends(self, topic: str) -> list[dict]:
        return self.of("send_ok", topic)

    def failed_sends(self, topic: str) -> list[dict]:
        return [r for kind in FAILED for r in self.of(kind, topic)]

    def receives(self, topic: str, subscription: str) -> list[dict]:
        return [r for r in self.of("receive", topic) if r["subscription"] == subscription]

    def acks(self, topic: str, subscription: str) -> list[dict]:
        return [r for r in self.of("ack", topic) if r["subscription"] == subscription]

    def producers(self, topic: str) -> list[str]:
        return sorted({r["producer"] for r in self.sends(topic)})

    def subscriptions(self, topic: str) -> list[str]:
        return sorted({r["subscription"] for r in self.of("receive", topic) if r["subscription"]})

    def pairs(self, topic: str) -> list[tuple[str, str]]:
        """Every (producer, subscription) of the topic: what a per-pair checker judges."""
        return [(p, s) for p in self.producers(topic) for s in self.subscriptions(topic)]

    def keys(self, topic: str, producer: str) -> list[str]:
        """The keys a producer sent with: a per-key checker judges each apart."""
        return sorted({r["key"] for r in self.sends(topic) if r["producer"] == producer and r["key"] is not None})
