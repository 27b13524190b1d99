"""What every tenant-migration run shares (scenario.on_a_and_b, subscribe_on_b_then_open_a: issue 30
folded the copies of cleanup, existing_data and unloads into them), offline with recording clients:
the capture allows the switch's duplicates, B's subscription exists before A's consumer, and both
clients are closed however the run ends. The doubles record calls; no verdict is judged here."""
from __future__ import annotations

from dataclasses import dataclass

import pytest

from pulsar_conformance.conformance.protocols.tenant_migration import scenario
from pulsar_conformance.conformance.protocols.tenant_migration.observe import SUBSCRIPTION
from pulsar_conformance.fixtures.capture.manifest import read_manifest

TOPIC = "persistent://t/ns/orders"


class _Handle:
    def __init__(self, log: list, what: str):
        self.log, self.what = log, what

    def close(self):
        self.log.append(f"close {self.what}")

    def topic(self):
        return TOPIC


class _Client(_Handle):
    def subscribe(self, topic, subscription, **options):
        self.log.append(f"subscribe {self.what} {subscription} {sorted(options)}")
        return _Handle(self.log, f"consumer on {self.what}")

    def create_producer(self, topic, **options):
        self.log.append(f"producer {self.what}")
        return _Handle(self.log, f"producer on {self.what}")


class _Cluster:
    def __init__(self, log: list, what: str):
        self.log, self.what = log, what

    def client(self, **options):
        return _Client(self.log, self.what)


@dataclass
class _Plan:
    messages: int = 3


def test_b_is_subscribed_first_then_a_opened_and_both_clients_closed_when_the_run_fails(tmp_path):
    log: list[str] = []
    options = {"consumer_type": "Shared", "replicate_subscription_state_enabled": True}
    with pytest.raises(RuntimeError, match="broker gone"):  # the run fails once A is open
        with scenario.on_a_and_b(_Cluster(log, "A"), _Cluster(log, "B"), tmp_path, "x", _Plan(), seed=7,
                                 line=scenario.timeline.Timeline()) as (capture, client_a, client_b):
            on_a, producer = scenario.subscribe_on_b_then_open_a(capture, client_a, client_b, TOPIC, options)
            raise RuntimeError("broker gone")
    subscribed = f"{SUBSCRIPTION} ['consumer_type', 'replicate_subscription_state_enabled']"
    assert log == [f"subscribe B {subscribed}", "close consumer on B", f"subscribe A {subscribed}", "producer A",
                   "close A", "close B"]
    manifest = read_manifest(tmp_path)
    assert manifest["allowed"] == ["duplicate", "redelivered_after_ack"]
    assert manifest["scenario"] == {"seed": 7, "name": "x", "messages": 3}
    assert manifest["must_see"] == [{"topic": TOPIC, "subscription": SUBSCRIPTION}]
    assert (on_a.cluster, producer.cluster) == ("blue", "blue")  # role labels: the judge filters on them
