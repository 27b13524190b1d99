"""The failover scenarios' fault steps (conformance/protocols/client_failover/scenario.Faults) against
a fake deployment on loopback: a step timed against the client's probe follows the port, not the
start's return (a start waits until the broker is ready, which on a loaded CI machine came after
the Java client's switch-back, and the stale-failure set-up was never staged)."""
from __future__ import annotations

import socket
import time
from types import SimpleNamespace

import pytest

from pulsar_conformance.conformance.protocols.client_failover.scenario import Faults


class SlowStart:
    """A cluster whose port opens at once and whose start returns ``ready_after`` seconds later."""

    def __init__(self, ready_after: float):
        probe = socket.socket()
        probe.bind(("127.0.0.1", 0))
        self.port = probe.getsockname()[1]
        probe.close()
        self.ready_after = ready_after
        self.clusters = {"primary": SimpleNamespace(service_url=f"pulsar://127.0.0.1:{self.port}", extra={}),
                         "s1": SimpleNamespace(service_url="pulsar://127.0.0.1:9", extra={})}
        self.killed: dict[str, int] = {}
        self.server = None

    @property
    def faults(self):  # the fake is its own fault verbs (a deployment's are deployment.faults)
        return self

    @staticmethod
    def components(_cluster):  # a standalone: one process, no components
        return []

    def start(self, cluster):
        self.server = socket.create_server(("127.0.0.1", self.port))
        time.sleep(self.ready_after)

    def kill(self, cluster):
        self.killed[cluster] = time.time_ns()


def _start(deployment, then) -> Faults:
    """``Faults.start("primary", then=...)`` on the fake deployment, its listening port closed after."""
    faults = Faults(deployment)
    try:
        faults.start("primary", then=then)
    finally:
        deployment.server.close()
    return faults


def test_a_follow_up_is_timed_from_the_port_opening_not_the_start_returning():
    deployment = SlowStart(ready_after=1.5)
    faults = _start(deployment, (0.3, lambda f: f.kill("s1")))
    up = next(e for e in faults.events if e.kind == "up")
    down = next(e for e in faults.events if e.kind == "down")
    assert 0.25 < (deployment.killed["s1"] - up.at_ns) / 1e9 < 1.0  # not 1.5 s, when the start returned
    assert [e.kind for e in faults.events] == ["up", "down"]  # in time order, though "up" was recorded last
    assert down.at_ns > up.at_ns


def test_a_follow_up_that_fails_fails_the_step():
    deployment = SlowStart(ready_after=0.2)

    def broken(f):
        raise RuntimeError("kill refused")
    with pytest.raises(RuntimeError, match="kill refused"):
        _start(deployment, (0.0, broken))


class DiesWhenKilled(SlowStart):
    """A start that fails when the cluster is killed before it is ready, as the local deployment's does
    (``cluster primary exited while starting``), and fails on its own when told to."""

    def __init__(self, ready_after: float, broken: bool = False):
        super().__init__(ready_after)
        self.broken = broken

    def start(self, cluster):
        self.server = socket.create_server(("127.0.0.1", self.port))
        deadline = time.time() + self.ready_after
        while time.time() < deadline:
            if cluster in self.killed:
                raise RuntimeError(f"cluster {cluster} exited while starting")
            time.sleep(0.01)
        if self.broken:
            raise RuntimeError(f"cluster {cluster} never became ready")


def test_a_follow_up_may_kill_the_cluster_it_started_before_the_start_returns():
    # the stale-failure set-up kills the primary on the client's switch-back, while the start still waits
    # for the broker's health check (CI once saw the start return 2.7 s after the switch, and nothing staged)
    deployment = DiesWhenKilled(ready_after=3.0)
    faults = _start(deployment, (0.2, lambda f: f.kill("primary")))
    assert [e.kind for e in faults.events] == ["up", "down"]
    assert (deployment.killed["primary"] - faults.events[0].at_ns) / 1e9 < 1.0


def test_a_start_that_fails_on_its_own_still_fails():
    deployment = DiesWhenKilled(ready_after=0.2, broken=True)
    with pytest.raises(RuntimeError, match="never became ready"):
        _start(deployment, (0.0, lambda f: f.kill("s1")))  # a kill of another cluster excuses nothing


class _Topology:
    """A cluster topology's fault verbs: what was signalled, by component."""

    def __init__(self):
        self.calls = []

    @property
    def faults(self):
        return self

    gone: tuple = ()  # components not running

    def components(self, cluster):
        return [SimpleNamespace(name=n, kind=n.split("-")[0], process=lambda n=n: None if n in self.gone else object())
                for n in ("zookeeper", "bookie-1", "bookie-2", "broker-1", "broker-2", "proxy")]

    def kill(self, cluster, component=None):
        self.calls.append(("kill", cluster, component))

    def pause(self, cluster, component=None):
        self.calls.append(("pause", cluster, component))

    def resume(self, cluster, component=None):
        self.calls.append(("resume", cluster, component))


def test_on_a_cluster_topology_an_outage_is_its_brokers_and_proxy_never_its_store_or_bookies():
    """A bookie killed with its ZooKeeper and started within the old session's 30 s exits (its registration is
    still there): the clusters of a 3.0.0 exploration never came back. A client's outage is its brokers gone."""
    deployment = _Topology()
    faults = Faults(deployment)
    faults.kill("primary")
    faults.pause("s1")
    faults.resume("s1")
    assert deployment.calls == [("kill", "primary", "broker-1"), ("kill", "primary", "broker-2"),
                                ("kill", "primary", "proxy"), ("pause", "s1", "broker-1"), ("pause", "s1", "broker-2"),
                                ("pause", "s1", "proxy"), ("resume", "s1", "broker-1"), ("resume", "s1", "broker-2"),
                                ("resume", "s1", "proxy")]
    assert [e.kind for e in faults.events] == ["down"]


def test_a_broker_already_gone_is_not_signalled_and_a_cluster_with_none_running_is_an_error():
    """A broker that exited while starting (its old session's load-manager lock) left the other running: the next
    kill signals what runs (before, it raised "primary/broker-2: not running" and the schedule was lost)."""
    import pytest

    deployment = _Topology()
    deployment.gone = ("broker-2",)
    Faults(deployment).kill("primary")
    assert deployment.calls == [("kill", "primary", "broker-1"), ("kill", "primary", "proxy")]
    deployment.gone = ("broker-1", "broker-2", "proxy")
    with pytest.raises(RuntimeError, match="none of broker-1, broker-2, proxy is running"):
        Faults(deployment).kill("primary")
