"""What the policy-sync scenarios see of the real clusters.

The policy under test is one namespace's retention (``/admin/policies/<tenant>/<ns>`` in each
cluster's configuration store): value ``v`` is written as ``retentionTimeInMinutes = v``, and 0
stands for "absent" (no retention set, or the namespace gone), as in the spec. Each cluster's
value is read through its own admin REST API; the events are read back from each cluster's copy
of the sync topic, in the order that cluster's synchronizer consumed them.
"""
from __future__ import annotations

import io
import json
import threading
import time

from pulsar_conformance.fixtures.deploy.admin import Admin, AdminError
from pulsar_conformance.fixtures.deploy.metadata_sync import TOPIC, syncer

from . import outcome
from .outcome import ABSENT, Event


class Policy(outcome.Policy):
    """The policy with its REST operations on a cluster's admin API."""

    @property
    def rest(self) -> str:
        return Admin.namespace_path(self.name)

    def create(self, admin, clusters: list[str], replication: list[str] | None = None) -> None:
        """The tenant allowed on ``clusters``, the namespace replicated to ``replication`` (default the same)."""
        admin.put_tenant(self.tenant, clusters)
        admin.request("PUT", self.rest, json={"replication_clusters": list(replication or clusters)}, ok=(200, 204, 409))

    def read(self, admin) -> int | None:
        """The cluster's value; None when the cluster did not answer."""
        try:
            got = admin.request("GET", Admin.retention_path(self.name), timeout=5)
        except AdminError as error:
            return ABSENT if error.status == 404 else None
        return int((got or {}).get("retentionTimeInMinutes") or ABSENT)

    def write(self, admin, value: int) -> None:
        admin.request("POST", Admin.retention_path(self.name),
                      json={"retentionTimeInMinutes": int(value), "retentionSizeInMB": 10})

    def delete(self, admin) -> None:
        """Delete the namespace: its policies node goes, which the spec calls a delete. Without force: brokers
        refuse a forced delete (405) unless an operator set forceDeleteNamespaceAllowed, and Pulsar deletes a
        namespace only while it has one replication cluster (412 otherwise), so a scenario that deletes creates
        its namespace replicated to the deleting cluster alone (scenario.run's ``replicated_to_first``)."""
        admin.request("DELETE", self.rest, ok=(200, 204, 404))


def value_of(policies_json: bytes | None) -> int:
    """The retention a namespace's Policies document holds (the value an event carries)."""
    if not policies_json:
        return ABSENT
    try:
        doc = json.loads(policies_json)
    except ValueError:
        return ABSENT
    return int(((doc.get("retention_policies") or {}).get("retentionTimeInMinutes")) or ABSENT)


class Sampler:
    """Every cluster's value, sampled until stopped: the changes with when they were seen."""

    def __init__(self, deployment, clusters: list[str], policy: Policy, interval: float = 0.1):
        self.admins = {c: deployment.admin(c) for c in clusters}
        self.policy, self.interval = policy, interval
        self.series: dict[str, list[tuple[int, int]]] = {c: [] for c in clusters}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="policy-sampler", daemon=True)

    def __enter__(self) -> Sampler:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join(timeout=10)

    def _loop(self) -> None:
        while not self._stop.is_set():
            self.sample()
            self._stop.wait(self.interval)

    def sample(self) -> dict[str, int | None]:
        now = {c: self.policy.read(a) for c, a in self.admins.items()}
        at = time.time_ns()
        for cluster, value in now.items():
            points = self.series[cluster]
            if value is not None and (not points or points[-1][1] != value):
                points.append((at, value))
        return now

    def current(self) -> dict[str, int | None]:
        return {c: (points[-1][1] if points else None) for c, points in self.series.items()}


def _schema(admin, topic: str):
    import fastavro

    doc = admin.schema(topic)
    return fastavro.parse_schema(json.loads(doc["data"]))


def events(deployment, cluster: str, path: str | None = None, topic: str = TOPIC, idle: float = 1.0) -> list[Event]:
    """The events on ``cluster``'s copy of the sync topic (all of them, or those of ``path``)."""
    import fastavro
    import pulsar

    schema = _schema(deployment.admin(cluster), topic)
    client = deployment[cluster].client()
    out: list[Event] = []
    try:
        reader = client.create_reader(topic, pulsar.MessageId.earliest)
        index = 0
        while True:
            try:
                msg = reader.read_next(timeout_millis=int(idle * 1000))
            except pulsar.Timeout:
                break
            record = fastavro.schemaless_reader(io.BytesIO(msg.data()), schema)
            if path is None or record.get("path") == path:
                out.append(Event(index=index, path=record.get("path"), kind=str(record.get("type")),
                                 value=value_of(record.get("value")), ts=int(record.get("lastUpdatedTimestamp") or 0),
                                 source=record.get("sourceCluster") or "", expected_version=record.get("expectedVersion"),
                                 publish_ms=msg.publish_timestamp(), raw={k: v for k, v in record.items() if k != "value"}))
            index += 1
        reader.close()
    finally:
        client.close()
    return out


def syncer_stats(deployment, cluster: str, topic: str = TOPIC) -> dict:
    return syncer(deployment.admin(cluster), topic) or {}
