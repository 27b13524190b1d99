"""The Java consumer that tenant migration moves to B (conformance/harness/java_consumer.py), offline:
a JVM that never subscribed (stood in for by a program that says what the 4.0.x clients said on a
classpath mixing jackson releases, and exits 5) is a harness fault that stops the scenario, never a
B that delivered nothing (which the judge would charge to Pulsar as TM-R02 lost messages)."""
from __future__ import annotations

import sys
from types import SimpleNamespace

import pytest

from pulsar_conformance.conformance.harness import java_consumer
from pulsar_conformance.conformance.protocols.tenant_migration import scenario

NEVER_SUBSCRIBED = ("import sys; print(\"retry subscribe: java.lang.NoSuchMethodError: 'void com.fasterxml.jackson."
                    "core.util.BufferRecycler.releaseToPool()'\"); print('error java.util.concurrent."
                    "ExecutionException: NoSuchMethodError'); sys.exit(5)")
DRAINED = "print('ready 1'); print('drained 2 7'); print('done')"


class _Capture:
    writer = SimpleNamespace(append=lambda row: None)
    run_id = "r0"


def _drain(tmp_path, monkeypatch, program: str) -> java_consumer.JavaDrain:
    monkeypatch.setattr(java_consumer, "harness_command", lambda version, run_dir, args: [sys.executable, "-c", program])
    cluster = SimpleNamespace(service_url="pulsar://127.0.0.1:1", java_auth=lambda: (), trust_certs=None)
    return java_consumer.drain(_Capture(), cluster, "persistent://t/n/x", "s", "Shared", tmp_path, version="4.0.1",
                               name="c-b", label="green", timeout_s=20)


def test_a_consumer_that_never_subscribed_has_not_completed_and_its_words_are_kept(tmp_path, monkeypatch):
    done = _drain(tmp_path, monkeypatch, NEVER_SUBSCRIBED)
    assert (done.received, done.exit_code, done.completed) == (None, 5, False)
    assert "releaseToPool" in (tmp_path / "java-c-b-stdout.txt").read_text()


def test_a_consumer_that_drained_has_completed(tmp_path, monkeypatch):
    done = _drain(tmp_path, monkeypatch, DRAINED)
    assert (done.received, done.exit_code, done.completed) == (7, 0, True)


@pytest.mark.parametrize("received, exit_code", [(None, 5), (None, 0), (12, 3), (None, None)])
def test_the_switch_to_a_java_consumer_that_did_not_drain_stops_the_scenario(tmp_path, monkeypatch, received, exit_code):
    said = ["retry subscribe: java.lang.NoSuchMethodError: x", "error y"] if exit_code == 5 else []
    monkeypatch.setattr(scenario.java_consumer, "drain",
                        lambda *a, **k: java_consumer.JavaDrain("4.0.1", received, exit_code, said))
    monkeypatch.setattr(scenario, "wanted_version", lambda deployment: "4.0.1")
    line = SimpleNamespace(mark=lambda text: None)
    with pytest.raises(RuntimeError, match="did not drain to its end") as raised:
        scenario._drain_with_java(None, _Capture(), None, "persistent://t/n/x", scenario.Plan(sub_type="Shared"),
                                  tmp_path, line)
    assert "Pulsar" not in str(raised.value).split(":")[0]
    if exit_code == 5:
        assert "error y" in str(raised.value)


def test_the_switch_to_a_java_consumer_that_drained_goes_on(tmp_path, monkeypatch):
    monkeypatch.setattr(scenario.java_consumer, "drain",
                        lambda *a, **k: java_consumer.JavaDrain("4.2.4", 300, 0, ["drained 1 300", "done"]))
    monkeypatch.setattr(scenario, "wanted_version", lambda deployment: "4.2.4")
    marks = []
    done = scenario._drain_with_java(None, _Capture(), None, "persistent://t/n/x", scenario.Plan(sub_type="Shared"),
                                     tmp_path, SimpleNamespace(mark=marks.append))
    assert done.received == 300 and "received 300" in marks[0]
