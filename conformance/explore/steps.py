"""Tester steps more than one live adapter performs the same way (conformance/protocols/<p>/explore.py)."""
from __future__ import annotations

from pulsar_conformance.fixtures.deploy.admin import or_refusal

from .model import Fault

# the faults of a session on two clusters A -> B replicated: the link cut one way (it holds back the spec's
# ``replicate``) and healed, and the topic unloaded on A or on B (UnloadSteps performs those two)
LINK_AND_UNLOAD_FAULTS = (
    # one way, where the link is not cut at all (geo-replication's adapter also cuts it both ways: "cut-both")
    Fault("cut", "cut", lambda a: not ({"cut", "cut-both"} & a), lambda a: a | {"cut"}, blocks=("replicate",)),
    Fault("heal", "cut", lambda a: "cut" in a, lambda a: a - {"cut"}),
    Fault("unload-a", None, lambda _a: True),
    Fault("unload-b", None, lambda _a: True))


def unload_topic(cluster, topic: str) -> dict | None:
    """``topic`` unloaded on ``cluster`` (an admin call any deployment takes): None, or the refusal Pulsar
    answered (kept in the step's history entry by the adapter, with the result it gives a refusal)."""
    admin = cluster.admin()
    answer = or_refusal(admin.request, "PUT", admin.topic_path(topic) + "/unload")
    return answer if isinstance(answer, dict) and "error" in answer else None


class UnloadSteps:
    """The faults ``unload-a`` and ``unload-b`` of a session on two clusters: its ``topic`` unloaded on the first
    or the second of its ``sides``; a refusal is the step's ``error``, with Pulsar's answer."""

    topic: str
    sides: tuple  # (A, B): the clusters the session's faults name a and b

    def _unload(self, cluster, entry) -> None:
        refused = unload_topic(cluster, self.topic)
        if refused is not None:
            entry.result, entry.said = "error", f"refused: {refused}"

    def _unload_a(self, step, entry) -> None:
        self._unload(self.sides[0], entry)

    def _unload_b(self, step, entry) -> None:
        self._unload(self.sides[1], entry)
