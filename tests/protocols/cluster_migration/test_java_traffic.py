"""The Java client's traffic in PIP-188's scenarios, offline (no broker, no JVM): the spec lines
harness/java_traffic.py writes and Harness.java's ``mode=traffic`` reads, the JVM's stdout as
handle state, its events as capture rows under each handle's topic and subscription, and which
client's modules a run selects (clients.py, conftest.py: CI's selections never run the Java one)."""
from __future__ import annotations

import json
import re
from pathlib import Path
from types import SimpleNamespace

import pytest

from pulsar_conformance.conformance.harness import evidence, java_traffic
from pulsar_conformance.conformance.harness.traffic import Sub, TopicLoad
from pulsar_conformance.conformance.protocols.cluster_migration import clients
from pulsar_conformance.conformance.protocols.cluster_migration import conftest as package_conftest
from pulsar_conformance.errors import UsageError
from pulsar_conformance.fixtures.capture import Capture

HARNESS = Path(java_traffic.__file__).resolve().parent / "Harness.java"
PACKAGE = Path(package_conftest.__file__).resolve().parent
TOPIC = "persistent://mig/live-java/exclusive"


def test_spec_lines_name_what_the_harness_reads():
    lines = [java_traffic.spec_line("producer", "p-x", TOPIC, rate=60.0),
             java_traffic.spec_line("consumer", "c-x", TOPIC, sub=Sub("slow", "KeyShared", delay=0.05, latest=True)),
             java_traffic.spec_line("consumer", "c-reader", TOPIC, sub=Sub("reader", "Reader"))]
    assert lines == [f"producer name=p-x topic={TOPIC} rate=60",
                     f"consumer name=c-x topic={TOPIC} subscription=slow type=KeyShared delay_ms=50 latest=true",
                     f"reader name=c-reader topic={TOPIC} subscription=reader"]
    source = HARNESS.read_text()
    for line in lines:
        assert f'case "{line.split()[0]}" ->' in source
        for key in re.findall(r"(\w+)=", line):
            assert re.search(rf'f\.get(OrDefault)?\("{key}"', source), f"Harness.java's traffic mode never reads {key}="
    # pulsar.ConsumerType's name for Key_Shared is mapped, not passed to Java's enum as is
    assert '"KeyShared".equals(type) ? "Key_Shared"' in source


def test_the_jvms_lines_become_handle_state(tmp_path):
    capture = SimpleNamespace(must_see=lambda *a: None)
    traffic = java_traffic.JavaTraffic(capture, SimpleNamespace(name="blue"), [], run_dir=tmp_path, version="4.2.4")
    traffic._new(TOPIC, "c-a", Sub("fast", "Exclusive"))
    traffic._new(TOPIC, "p-new", None, rate=20.0)
    for line in ("attached c-a 100", "received c-a 42",
                 "refused p-new 200 TimeoutException: not created within 30000 ms", "ready 300"):
        traffic._apply(line)
    a, new = traffic.handles
    assert (a.created_ns, a.received, a.attach_error, a.cluster) == (100, 42, None, "blue")
    assert new.created_ns == 200 and new.attach_error.startswith("TimeoutException")
    assert "creating p-new through blue failed: TimeoutException" in traffic.refusal("p-new")
    assert [h.what for h in traffic.hung] == ["p-new: create (Java client)"]
    assert java_traffic.parse_line("refused c 5 org.apache.X: a b c") == ("refused", ["c", "5", "org.apache.X: a b c"])


def _event(kind, client, uid=None, msg_id=None, **more):
    return json.dumps({"ts_ns": more.pop("ts_ns", 1_700_000_000_000_000_000), "kind": kind, "client": client,
                       "url": "pulsar://127.0.0.1:6650", "uid": uid, "key": "k0", "msg_id": msg_id,
                       "redelivery_count": more.pop("redelivery_count", None), "error": more.pop("error", None)})


def test_events_become_rows_of_their_handles_topic_and_subscription(tmp_path):
    must_see = []
    events = tmp_path / "java-traffic-events.jsonl"
    events.write_text("\n".join([
        _event("send_ok", "p-x", "p-x/1", "7:0:-1:-1"),
        _event("send_unknown", "p-x", "p-x/2", error="TimeoutException"),
        _event("receive", "c-x-fast-0", "p-x/1", "7:0:-1:-1", redelivery_count=0),
        _event("ack", "c-x-fast-0", "p-x/1", "7:0:-1:-1"),
        _event("receive", "c-reader", "p-x/1", "7:0:-1:-1", redelivery_count=0),
        _event("consumer_error", "c-x-fast-0", error="AlreadyClosedException"),
        _event("receive", "stranger", "p-x/1", "7:0:-1:-1")]) + "\n")
    with Capture(tmp_path / "run") as capture:
        capture.must_see = lambda *a: must_see.append(a)
        traffic = java_traffic.JavaTraffic(capture, SimpleNamespace(name="blue"), [], run_dir=tmp_path, version="4.2.4")
        traffic._new(TOPIC, "p-x", None, rate=1.0)
        traffic._new(TOPIC, "c-x-fast-0", Sub("fast", "Exclusive"))
        traffic._new(TOPIC, "c-reader", Sub("reader", "Reader", must_see=False))
        errors = java_traffic.copy_events(capture, events, {h.name: h for h in traffic.handles}, "blue")
    assert must_see == [(TOPIC, "fast")]  # a reader is not held to every send
    assert any("AlreadyClosedException" in e for e in errors) and any("'stranger'" in e for e in errors)
    cols = evidence.read_capture(tmp_path / "run")
    rows = sorted((r["client"], r["kind"], r["subscription"], r["cluster"], r["producer"], r["seq"])
                  for r in evidence.rows(cols))
    assert rows == [("c-reader", "receive", "reader", "blue", "p-x", 1),
                    ("c-x-fast-0", "ack", "fast", "blue", "p-x", 1),
                    ("c-x-fast-0", "receive", "fast", "blue", "p-x", 1),
                    ("p-x", "send_ok", None, "blue", "p-x", 1),
                    ("p-x", "send_unknown", None, "blue", "p-x", 2)]


def test_the_loads_become_one_spec_file_in_the_python_order(tmp_path):
    """start() writes consumers then the producer per topic, as traffic.Traffic.start creates them."""
    traffic = java_traffic.JavaTraffic(SimpleNamespace(must_see=lambda *a: None), SimpleNamespace(name="blue"),
                                       [TopicLoad(TOPIC, (Sub("fast", "Shared", consumers=2),), rate=60.0)],
                                       run_dir=tmp_path, version="4.2.4")
    lines = [traffic._new(TOPIC, f"c-{i}", Sub("fast", "Shared")) for i in range(2)] + [
        traffic._new(TOPIC, "p", None, rate=60.0)]
    assert [line.split()[0] for line in lines] == ["consumer", "consumer", "producer"]


# ----- which client's modules a run selects


def test_the_client_option_is_checked():
    assert clients.check(None) == ("python",) and clients.check("all") == ("python", "java")
    with pytest.raises(UsageError, match="--migration-client"):
        clients.check("cpp")
    assert clients.client_of("test_java_cluster_migration.py") == "java"
    assert clients.client_of("test_cluster_migration.py") == clients.client_of("test_cluster_migration_regions.py") \
        == "python"


def _items():
    return [SimpleNamespace(path=PACKAGE / name, name=test) for name, test in (
        ("test_cluster_migration.py", "test_cluster_migration_with_live_traffic"),
        ("test_cluster_migration_regions.py", "test_migration_with_geo_replication"),
        ("test_java_cluster_migration.py", "test_java_client_through_a_cluster_level_migration"),
        ("elsewhere/test_spec_models.py", "test_spec_check"))]


@pytest.mark.parametrize(("value", "kept"), [
    (None, {"test_cluster_migration.py", "test_cluster_migration_regions.py", "test_spec_models.py"}),
    ("python", {"test_cluster_migration.py", "test_cluster_migration_regions.py", "test_spec_models.py"}),
    ("java", {"test_java_cluster_migration.py", "test_spec_models.py"}),
    ("all", {"test_cluster_migration.py", "test_cluster_migration_regions.py", "test_java_cluster_migration.py",
             "test_spec_models.py"})])
def test_a_run_selects_the_modules_of_its_clients(monkeypatch, value, kept):
    """CI's cluster-migration runs (tests/protocols/cluster_migration/test_client_teeth.py, test_tls.py) pass no
    --migration-client: the Java module is deselected whatever their --select says, never skipped."""
    if value is None:
        monkeypatch.delenv(clients.ENV, raising=False)
    else:
        monkeypatch.setenv(clients.ENV, value)
    items, deselected = _items(), []
    config = SimpleNamespace(hook=SimpleNamespace(pytest_deselected=lambda items: deselected.extend(items)))
    package_conftest.pytest_collection_modifyitems(None, config, items)
    assert {i.path.name for i in items} == kept
    assert {i.path.name for i in deselected} == {i.path.name for i in _items()} - kept


def test_the_java_module_is_the_one_the_option_names():
    modules = sorted(p.name for p in PACKAGE.glob("test_*.py"))
    assert [m for m in modules if clients.client_of(m) == "java"] == ["test_java_cluster_migration.py"]
    # test_tls.py and test_client_teeth.py select "-k test_cluster_migration_with_live_traffic": no Java test matches
    tests = re.findall(r"^def (test_\w+)", (PACKAGE / "test_java_cluster_migration.py").read_text(), re.M)
    assert tests and not [t for t in tests if "test_cluster_migration_with_live_traffic" in t]


# ----- a reader green refuses (observe.green_refusals, judge.stranded_readers)

GREEN_REFUSAL = ("2026-11-28T01:23:37,556 [pulsar-io-18-2] WARN  org.apache.pulsar.broker.service.ServerCnx - "
                 "[/127.0.0.1:54206][persistent://mig/live-java/exclusive][reader] Failed to create consumer: "
                 "consumerId=0, Durable subscription with the same name already exists.")


def test_greens_refusals_are_counted_per_topic_and_subscription():
    from pulsar_conformance.conformance.protocols.cluster_migration import observe

    log = "\n".join([GREEN_REFUSAL, "INFO unrelated", GREEN_REFUSAL.replace("01:23:37", "01:23:38")])
    found = observe.green_refusals(SimpleNamespace(broker_log=lambda cluster: log if cluster == "green" else ""))
    assert found == {f"{TOPIC} reader":
                     {"count": 2, "first": GREEN_REFUSAL}}
    assert observe.green_refusals(SimpleNamespace(broker_log=lambda cluster: None)) is None


# Pulsar 5.0.0-M1 logs it through slog: the names are attributes, printed after the message by the suite's
# log pattern (fixtures/deploy/brokerconf.py); before that pattern they were not in the log at all
SLOG_GREEN_REFUSAL = ("2026-11-29T05:11:11,230 [pulsar-io-19-2] WARN  org.apache.pulsar.broker.service.ServerCnx - "
                      "Failed to create consumer {consumerId=0, exception=Durable subscription with the same name "
                      "already exists., subscription=reader, topic=persistent://mig/live-java/exclusive}")


def test_greens_refusals_are_read_from_5x_attributes_too():
    from pulsar_conformance.conformance.protocols.cluster_migration import observe

    found = observe.green_refusals(SimpleNamespace(broker_log=lambda cluster: SLOG_GREEN_REFUSAL))
    assert found == {f"{TOPIC} reader": {"count": 1, "first": SLOG_GREEN_REFUSAL}}
    # another refusal (not the durability) is not this one
    other = SLOG_GREEN_REFUSAL.replace("Durable subscription with the same name already exists.", "Topic is fenced")
    assert observe.green_refusals(SimpleNamespace(broker_log=lambda cluster: other)) == {}


class _FakeJvm:
    """A JVM that has already ended (exit ``code``) and whose stdin is closed."""

    def __init__(self, code):
        self.returncode, self.killed = code, False
        self.stdin = SimpleNamespace(write=self._gone, flush=lambda: None)

    def _gone(self, text):
        raise BrokenPipeError(text)

    def poll(self):
        return self.returncode

    def wait(self, timeout=None):
        return self.returncode

    def kill(self):
        self.killed = True


def test_a_gone_jvm_refuses_new_handles_and_its_events_are_copied_once(tmp_path):
    (tmp_path / "java-traffic-events.jsonl").write_text(_event("send_ok", "p-x", "p-x/1", "7:0:-1:-1") + "\n")
    with Capture(tmp_path / "run") as capture:
        traffic = java_traffic.JavaTraffic(capture, SimpleNamespace(name="blue"), [], run_dir=tmp_path, version="4.2.4")
        traffic._new(TOPIC, "p-x", None, rate=1.0)
        traffic.proc = _FakeJvm(3)
        late = traffic.add_producer(TOPIC, "p-new", rate=20.0)
        assert late.attach_error.startswith("the Java harness is gone") and late.created_ns
        assert "creating p-new through blue failed" in traffic.refusal("p-new")
        # a JVM that did not end by itself (here its own time limit, exit 3) stops the scenario: no verdict
        with pytest.raises(RuntimeError, match="did not end by itself .exit 3"):
            traffic.stop(drain_seconds=0.1)
        traffic.close()  # the scenario's finally closes again: nothing is copied twice
        assert "Java traffic harness exited 3" in traffic.errors
        assert traffic.evidence()["java"]["exit_code"] == 3
    assert [r["kind"] for r in evidence.rows(evidence.read_capture(tmp_path / "run"))] == ["send_ok"]


def test_control_a_jvm_that_ended_by_itself_stops_without_an_error(tmp_path):
    with Capture(tmp_path / "run") as capture:
        traffic = java_traffic.JavaTraffic(capture, SimpleNamespace(name="blue"), [], run_dir=tmp_path, version="4.2.4")
        traffic.proc = _FakeJvm(0)
        traffic.stop(drain_seconds=0.1)
        assert not any("exited" in e for e in traffic.errors)
