"""What the PIP-454 run reads of the migration flag in ZooKeeper, offline: the node's JSON as the
coordinator writes it (MigrationState via Jackson), the series polled beside the status, the wait
that ends on either, and the node the coordinator-killed evidence reads."""
from __future__ import annotations

import time
from contextlib import contextmanager
from types import SimpleNamespace

from kazoo.exceptions import NoNodeError

from pulsar_conformance.conformance.protocols.metadata_migration import observe, scenario


class FakeZooKeeper:
    """kazoo's get on one path: ``values`` in turn (None: no node), each read once."""

    def __init__(self, *values):
        self.values, self.paths, self.stopped = list(values), [], False

    def get(self, path):
        self.paths.append(path)
        value = self.values.pop(0) if len(self.values) > 1 else self.values[0]
        if value is None:
            raise NoNodeError()
        return value, SimpleNamespace(version=len(self.paths) - 1)

    def stop(self):
        self.stopped = True

    def close(self):
        pass


def _client_of(zk):
    """stores.zookeeper_client standing for a server: yields ``zk``, stops it on the way out."""
    @contextmanager
    def client(port, timeout):
        try:
            yield zk
        finally:
            zk.stop()
    return client


def test_the_flag_is_the_coordinators_json_at_its_own_path():
    # MigrationState.MIGRATION_FLAG_PATH (4.2.4, 5.0.0-M1); the old read of its parent got ''
    assert observe.FLAG_PATH == "/pulsar/migration-coordinator/migration"
    assert observe.flag_state(b'{"phase":"COMPLETED","targetUrl":"oxia://127.0.0.1:1/default"}', 2) == \
        {"phase": "COMPLETED", "target": "oxia://127.0.0.1:1/default", "version": 2}
    assert observe.flag_state(None, None)["phase"] == "NOT_STARTED"  # no node: what getStatus answers
    odd = observe.flag_state(b"", 0)
    assert odd["phase"] == "?" and odd["raw"] == ""


def test_the_flag_series_records_each_change_with_its_time(monkeypatch):
    zk = FakeZooKeeper(None, b'{"phase":"PREPARATION","targetUrl":"oxia://x"}',
                       b'{"phase":"PREPARATION","targetUrl":"oxia://x"}', b'{"phase":"COPYING","targetUrl":"oxia://x"}',
                       b'{"phase":"COMPLETED","targetUrl":"oxia://x"}')
    monkeypatch.setattr(observe.stores, "zookeeper_client", _client_of(zk))
    flag = observe.ZooKeeperFlag(hosts="127.0.0.1:1", interval=0.001)
    before = time.time_ns()
    flag.begin()
    assert flag.wait_for(("COMPLETED",), 5) == "COMPLETED"
    flag.end()
    doc = flag.to_json()
    assert doc["path"] == observe.FLAG_PATH and set(zk.paths) == {observe.FLAG_PATH} and zk.stopped
    assert [p["phase"] for p in doc["seen"]] == ["NOT_STARTED", "PREPARATION", "COPYING", "COMPLETED"]
    assert all(before <= a["ns"] <= b["ns"] for a, b in zip(doc["seen"], doc["seen"][1:], strict=False))


class Series:
    def __init__(self, *phases):
        self.phases = list(phases)

    def current(self):
        return self.phases[-1]

    def wait_for(self, phases, timeout):
        time.sleep(min(timeout, 0.05))
        return self.current() if self.current() in phases else None


def test_the_run_stops_waiting_when_the_flag_ends_and_the_status_does_not():
    # 4.2.4: the status stays COPYING; the run used to wait its whole timeout (180 s) for it
    began = time.monotonic()
    ends = observe.wait_for_end(Series("COPYING"), Series("COMPLETED"), timeout=60, grace=0.1)
    assert ends == (None, "COMPLETED") and time.monotonic() - began < 5
    assert observe.wait_for_end(Series("COMPLETED"), Series("COMPLETED"), timeout=60) == ("COMPLETED", "COMPLETED")
    assert observe.wait_for_end(Series("COPYING"), Series("COPYING"), timeout=0.1, grace=0.1) == (None, None)


def test_the_coordinator_killed_evidence_reads_the_flag_node(monkeypatch):
    zk = FakeZooKeeper(b'{"phase":"PREPARATION","targetUrl":"oxia://x"}')

    monkeypatch.setattr(scenario.stores, "zookeeper_client", _client_of(zk))
    assert scenario._flag(2181) == '{"phase":"PREPARATION","targetUrl":"oxia://x"}'
    assert zk.paths == [observe.FLAG_PATH]


def test_an_external_cluster_is_migrated_only_while_its_flag_says_not_started(monkeypatch):
    """site.unmigrated: an operator's cluster whose flag another run left (COMPLETED, FAILED, ...) or whose
    ZooKeeper cannot be read leaves the scenario unknown with the fix; no flag node is NOT_STARTED."""
    from pulsar_conformance.conformance.protocols.metadata_migration import site

    where = SimpleNamespace(zookeeper="zk-1.staging:2181")
    monkeypatch.setattr(site.stores, "zookeeper_client", _client_of(FakeZooKeeper(None)))
    assert site.unmigrated(where) is None
    monkeypatch.setattr(site.stores, "zookeeper_client",
                        _client_of(FakeZooKeeper(b'{"phase":"COMPLETED","targetUrl":"oxia://x"}')))
    said = site.unmigrated(where)
    assert "says COMPLETED" in said and "certify --select" in said

    @contextmanager
    def unreachable(hosts, timeout):
        raise TimeoutError("connection lost")
        yield
    monkeypatch.setattr(site.stores, "zookeeper_client", unreachable)
    said = site.unmigrated(where)
    assert "zk-1.staging:2181 could not be read (TimeoutError)" in said and "metadata_migration.zookeeper" in said
