"""The Java client's harness (conformance/protocols/client_failover/java_client.py, conformance/harness/Harness.java)
without brokers: a release Maven cannot resolve is refused with the fix and leaves no JVM; the
JVM's event lines become capture rows of the contract; its log gives the failed probes; a harness
that cannot reach its cluster ends, and no JVM is left behind."""
from __future__ import annotations

import json
import socket
from pathlib import Path
from types import SimpleNamespace

import psutil
import pytest

from pulsar_conformance.conformance.harness import evidence, java_harness, java_release
from pulsar_conformance.conformance.protocols.client_failover import (
    java_client,
    java_log,
    judge,
)
from pulsar_conformance.conformance.protocols.client_failover.outcome import FailoverConfig
from pulsar_conformance.errors import UsageError
from pulsar_conformance.fixtures.capture import Capture
from pulsar_conformance.fixtures.deploy.base import Cluster

JAVA = FailoverConfig("primary", ("s1", "s2"), interval_ms=500, variant="java", failover_delay_ms=2800,
                      switch_back_delay_ms=5000)
URLS = {"primary": "pulsar://127.0.0.1:23019", "s1": "pulsar://127.0.0.1:23021", "s2": "pulsar://127.0.0.1:23023"}
TOPIC = "persistent://pf/java/orders"


def deployment(urls=URLS):
    # the suite's Cluster: the harness reads its credentials and CA (none here) as on a real deployment
    return SimpleNamespace(clusters={name: Cluster(name=name, service_url=url, admin_url="http://127.0.0.1:1")
                                     for name, url in urls.items()},
                           release=lambda: "4.2.4", components=lambda _cluster: [])  # clusters not the suite's


def jvms() -> set[int]:
    """JVMs this process started and left running (Maven's, a harness), but not the local Spark
    session's gateway, which an earlier test's capture check started and the session keeps until it
    ends. A JVM that has exited and waits to be reaped (a zombie: CI met one) runs nothing and has
    no command line to read, so it is not one left running."""
    running = set()
    for proc in psutil.Process().children(recursive=True):
        try:
            if (proc.status() != psutil.STATUS_ZOMBIE and "java" in proc.name()
                    and not any("pyspark" in arg for arg in proc.cmdline())):
                running.add(proc.pid)
        except (psutil.ZombieProcess, psutil.NoSuchProcess):
            continue  # exited between the listing and the look
    return running


def test_a_java_client_maven_cannot_resolve_is_refused_with_the_fix_and_no_jvm_left():
    with pytest.raises(UsageError) as refused:
        java_release.resolve("4.2.99")
    assert refused.value.problem == ("Java client 4.2.99 (org.apache.pulsar:pulsar-client-original) is not on "
                                     "Maven Central"), refused.value.problem
    assert "--java-client-version" in refused.value.fix and "\n" not in refused.value.problem
    assert not jvms()
    with pytest.raises(UsageError) as malformed:
        java_release.resolve("4.2")
    assert "Java client version" in malformed.value.problem and "--java-client-version" in malformed.value.fix


def test_the_default_java_client_is_the_deployments_pulsar_release(monkeypatch):
    monkeypatch.delenv(java_release.VERSION_ENV, raising=False)
    assert java_release.wanted_version(deployment()) == "4.2.4"
    monkeypatch.setenv(java_release.VERSION_ENV, "4.0.9")
    assert java_release.wanted_version(deployment()) == "4.0.9"


# lines as Harness.java wrote them (Java client 4.2.4, scenario java-kill-primary), and one it
# never writes as a capture row
EVENTS = [
    {"ts_ns": 1795526782621299514, "kind": "send_ok", "client": "p-writer", "url": URLS["primary"],
     "uid": "p-writer/1", "key": "k0", "msg_id": "5:0:-1:-1", "redelivery_count": None, "error": None},
    {"ts_ns": 1795526782627888041, "kind": "receive", "client": "c-reader", "url": URLS["primary"],
     "uid": "p-writer/1", "key": "k0", "msg_id": "5:0:-1:-1", "redelivery_count": 0, "error": None},
    {"ts_ns": 1795526782629676138, "kind": "ack", "client": "c-reader", "url": URLS["primary"],
     "uid": "p-writer/1", "key": "k0", "msg_id": "5:0:-1:-1", "redelivery_count": None, "error": None},
    {"ts_ns": 1795526786001000000, "kind": "send_unknown", "client": "p-writer", "url": URLS["primary"],
     "uid": "p-writer/2", "key": "k1", "msg_id": None, "redelivery_count": None,
     "error": "org.apache.pulsar.client.api.PulsarClientException$TimeoutException: send timed out"},
    {"ts_ns": 1795526786002000000, "kind": "consumer_error", "client": "c-reader", "url": URLS["s1"],
     "uid": None, "key": None, "msg_id": None, "redelivery_count": None, "error": "AlreadyClosed"},
]
LOG = """1795526785988 WARN AutoClusterFailover [pulsar-service-provider-1-1] Failed to probe available, url: pulsar://127.0.0.1:23019 Connection refused
1795526786010 WARN ConnectionPool [pulsar-client-io-2-1] Failed to open connection to 127.0.0.1/<unresolved>:23019
1795526786486 WARN AutoClusterFailover [pulsar-service-provider-1-1] Failed to probe available, url: pulsar://127.0.0.1:23021 Connection refused
"""


def test_the_java_events_become_capture_rows_and_its_log_the_failed_probes(tmp_path):
    client = java_client.JavaFailoverClient(deployment(), JAVA, tmp_path / "run", TOPIC)
    client.run_dir.mkdir()
    client.events_path.write_text("".join(json.dumps(e) + "\n" for e in EVENTS))
    client.log_path.write_text(LOG)
    with Capture(client.run_dir) as capture:
        errors = client.copy_into(capture)
    assert errors == [EVENTS[3]["error"], "consumer_error: AlreadyClosed"]
    rows = evidence.rows(evidence.read_capture(client.run_dir))
    assert [(r["kind"], r["cluster"], r["producer"], r["seq"], r["subscription"]) for r in rows] == [
        ("send_ok", "primary", "p-writer", 1, None), ("receive", "primary", "p-writer", 1, "reader"),
        ("ack", "primary", "p-writer", 1, "reader"), ("send_unknown", "primary", "p-writer", 2, None)]
    assert rows[1]["redelivery_count"] == 0 and rows[0]["redelivery_count"] is None
    assert {r["topic"] for r in rows} == {TOPIC}
    assert client.failed_probes() == [(1795526785988_000_000, "primary"), (1795526786486_000_000, "s1")]


def test_a_harness_that_cannot_reach_its_cluster_ends_and_leaves_no_jvm(tmp_path):
    with socket.socket() as free:  # a port nothing listens on
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]
    urls = {name: f"pulsar://127.0.0.1:{port}" for name in URLS}
    client = java_client.JavaFailoverClient(deployment(urls), JAVA, Path(tmp_path) / "run", TOPIC, start_seconds=3)
    with pytest.raises(RuntimeError, match="did not start.*TimeoutException"):
        client.start()
    assert client.proc.returncode is not None
    assert not jvms()


# lines as pulsar-client-original 4.2.4 writes them through the harness's log4j2 pattern
P, S1 = "pulsar://127.0.0.1:19456", "pulsar://127.0.0.1:30660"
SWITCH_LOG = (f"1795527951151 INFO AutoClusterFailover [pulsar-service-provider-1-1] Current Pulsar service is {P}, "
              f"it has been down for 3000 ms, switch to the service {S1}. The current service down at 11912365934555 \n"
              f"1795527961650 INFO AutoClusterFailover [pulsar-service-provider-1-1] Current Pulsar service is "
              f"secondary: {S1}, the primary service: {P} has been recover for 5000 ms, switch back to the primary service \n")


def test_a_switch_to_the_cluster_in_use_fails_pip121_r10():
    by_url = {P: "primary", S1: "s1"}
    logged = java_log.switches_logged(SWITCH_LOG, by_url)
    assert [(a, b) for _, a, b in logged] == [("primary", "s1"), ("s1", "primary")]
    assert judge.needless_reconnects(logged)[0] is True
    # apache/pulsar#14442: the switch-back check ran while on the primary and switched to it again
    again = SWITCH_LOG + (f"1795527962150 INFO AutoClusterFailover [x] Current Pulsar service is secondary: {P}, "
                          f"the primary service: {P} has been recover for 5000 ms, switch back to the primary service \n")
    ok, said = judge.needless_reconnects(java_log.switches_logged(again, by_url))
    assert ok is False and "1 of 3" in said
    assert judge.needless_reconnects([])[0] is None  # nothing logged: nothing shown


def test_switches_between_clusters_of_several_brokers_map_to_their_clusters():
    """A cluster of the cluster topology is a host list (pulsar://h:p1,h:p2): both of the client's
    switch lines name it whole (before, the controlled one was cut at the first comma and the
    trace found no cluster for pulsar://127.0.0.1:13058)."""
    primary, s1 = "pulsar://127.0.0.1:17511,127.0.0.1:21846", "pulsar://127.0.0.1:13058,127.0.0.1:32667"
    conf = "ControlledClusterFailover.ControlledConfiguration(serviceUrl={}, tlsTrustCertsFilePath=null, " \
           "authPluginClassName=null, authParamsString=null)"
    log = (f"1795632724640 INFO ControlledClusterFailover [p-1] Switch Pulsar service url from {conf.format(primary)} "
           f"to {conf.format(s1)} \n"
           f"1795632727618 INFO ControlledClusterFailover [p-1] Switch Pulsar service url from {conf.format(s1)} "
           f"to {conf.format(primary)} \n"
           f"1795632729000 INFO AutoClusterFailover [p-1] Current Pulsar service is {primary}, it has been down "
           f"for 3000 ms, switch to the service {s1}. The current service down at 11912365934555 \n")
    logged = java_log.switches_logged(log, {primary: "primary", s1: "s1"})
    assert [(a, b) for _, a, b in logged] == [("primary", "s1"), ("s1", "primary"), ("primary", "s1")], logged


def test_secondaries_of_several_brokers_each_reach_the_harness_whole(tmp_path):
    """Each secondary a host list: the harness gets them apart (before, they were joined with the
    comma a host list has inside, and the Java client was given pulsar://127.0.0.1:14664 alone)."""
    urls = {"primary": "pulsar://127.0.0.1:1,127.0.0.1:2", "s1": "pulsar://127.0.0.1:3,127.0.0.1:4",
            "s2": "pulsar://127.0.0.1:5,127.0.0.1:6"}
    client = java_client.JavaFailoverClient(deployment(urls), JAVA, tmp_path / "run", TOPIC)
    parts = client.arguments()["secondaries"].split(java_client.SECONDARY_SEPARATOR)
    assert parts == [urls["s1"], urls["s2"]]
    # the harness splits where the client joined
    assert f'get("secondaries").split("{java_client.SECONDARY_SEPARATOR}")' in java_harness.HARNESS.read_text()


class _EndedEarly:
    """A Java failover client whose JVM ended before its drain (stands for a crash or a classpath that
    does not run): attached and sending, then gone with exit 5 and no "drained" line."""

    def __init__(self, *args, **kwargs):
        self.version, self.lines, self.provider = "4.0.1", ["ready 1", "error java.lang.NoSuchFieldError: INSTANCE"], None
        self.attached = [SimpleNamespace(at_ns=1, cluster="primary")]

    def start(self):
        pass

    def current(self):
        return "primary"

    def stop(self):
        return "Java harness exited 5"

    def kill(self):
        pass

    def copy_into(self, capture):
        return []

    def drained(self):
        return None


def test_a_java_failover_client_that_ended_before_its_drain_stops_the_scenario(tmp_path, monkeypatch):
    """Nothing it did not receive is charged to Pulsar (PIP121-R11 lost sends): the run is broken, not judged."""
    from pulsar_conformance.conformance.protocols.client_failover import scenario

    monkeypatch.setattr(scenario, "JavaFailoverClient", _EndedEarly)
    with pytest.raises(RuntimeError, match="did not drain to its end .*exited 5.*NoSuchFieldError"):
        scenario.run_java(deployment(), tmp_path, "ended-early", JAVA, TOPIC, [], seed=1)


# pulsar-client-original 5.0.0-M1 logs through slog: the URLs are attributes, printed after the message by the
# harness's log pattern (keys sorted, as log4j prints the event's context data); before that pattern the
# 5.0.0-M1 cell of the sweep at b183aea read "Failed to probe available, url" with no URL, and R04 was unknown
SLOG_LOG = (
    f"1795932379109 WARN AutoClusterFailover [pulsar-service-provider-1-1] Failed to probe available, url "
    f"{{url={P}}} Connection refused\n"
    f"1795932379500 INFO AutoClusterFailover [pulsar-service-provider-1-1] Switching to target service after current "
    f"service went down {{currentServiceUrl={P}, downTimeMs=3000, failedTimestamp=11912365934555, targetServiceUrl={S1}}} \n"
    f"1795932389500 INFO AutoClusterFailover [pulsar-service-provider-1-1] Primary service has recovered, switching "
    f"back {{primaryServiceUrl={P}, recoveredMs=5000, secondaryServiceUrl={S1}}} \n")


def test_a_5x_client_log_gives_its_probes_and_switches_from_the_slog_attributes():
    by_url = {P: "primary", S1: "s1"}
    assert java_log.failed_probes(SLOG_LOG, by_url) == [(1795932379109_000_000, "primary")]
    assert [(a, b) for _, a, b in java_log.switches_logged(SLOG_LOG, by_url)] == [("primary", "s1"), ("s1", "primary")]
    # a host list (a cluster of several brokers) is one value, and the controlled switch's configurations too
    primary, s1 = "pulsar://127.0.0.1:17511,127.0.0.1:21846", "pulsar://127.0.0.1:13058,127.0.0.1:32667"
    conf = "ControlledClusterFailover.ControlledConfiguration(serviceUrl={}, tlsTrustCertsFilePath=null, " \
           "authPluginClassName=null, authParamsString=null)"
    log = (f"1795632724640 INFO ControlledClusterFailover [p-1] Switching Pulsar service url "
           f"{{currentConfig=null, newConfig={conf.format(primary)}}} \n"
           f"1795632727618 INFO ControlledClusterFailover [p-1] Switching Pulsar service url "
           f"{{currentConfig={conf.format(primary)}, newConfig={conf.format(s1)}}} \n"
           f"1795632729000 WARN AutoClusterFailover [p-1] Failed to probe available, url {{url={s1}}} Connection refused\n")
    by_url = {primary: "primary", s1: "s1"}
    assert [(a, b) for _, a, b in java_log.switches_logged(log, by_url)] == [(None, "primary"), ("primary", "s1")]
    assert java_log.failed_probes(log, by_url) == [(1795632729000_000_000, "s1")]
    # the 5.x message without its attributes (the pattern before d47db56) names no cluster: nothing is read
    bare = "1795932379109 WARN AutoClusterFailover [pulsar-service-provider-1-1] Failed to probe available, url  Connection refused\n"
    assert java_log.failed_probes(bare, by_url) == []


def test_on_the_suites_cluster_topology_the_client_is_given_one_broker_or_the_proxy():
    """The Java probe takes one host of a list per check (round robin), which the spec's one ``up`` per cluster does
    not model: the suite's own cluster topology gives the client its first broker, or its Pulsar proxy."""
    from pulsar_conformance.conformance.protocols.client_failover.client import client_url

    topology = deployment({"primary": "pulsar://127.0.0.1:1,127.0.0.1:2"})
    topology.components = lambda _cluster: [SimpleNamespace(name="broker-1", kind="broker")]
    assert client_url(topology, "primary") == "pulsar://127.0.0.1:1"
    topology.clusters["primary"].extra["proxy_service_url"] = "pulsar://127.0.0.1:9"
    assert client_url(topology, "primary") == "pulsar://127.0.0.1:9"
    assert client_url(deployment({"primary": "pulsar://a:1,b:2"}), "primary") == "pulsar://a:1,b:2"  # not the suite's
