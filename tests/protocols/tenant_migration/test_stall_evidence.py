"""A replicator that did not catch up after the held link (issue 47): the run records what tells whose
stall it is. The evidence is read from the deployment's own answers, so a fake deployment that answers
like a stalled one must come out as such, and one whose link the suite left cut must say so."""
from __future__ import annotations

from pulsar_conformance.conformance.protocols.tenant_migration import observe

TOPIC = "persistent://tm/moving/orders"


class _Admin:
    def __init__(self, internal=None, stats=None):
        self._internal, self._stats = internal or {}, stats or {}

    def topic_internal_stats(self, topic):
        return self._internal

    def topic_stats(self, topic):
        return self._stats


class _Cluster:
    def __init__(self, name, admin):
        self.name, self._admin = name, admin

    def admin(self):
        return self._admin


class _Deployment:
    def __init__(self, log: str, links):
        self._log, self._links = log, links

    def broker_log(self, cluster):
        return self._log

    @property
    def faults(self):  # the fake is its own fault verbs (a deployment's are deployment.faults)
        return self

    def link_state(self, a, b):
        return self._links


def test_a_stalled_replicator_is_recorded_with_its_cursor_b_s_intake_the_links_and_a_s_log_since_the_heal():
    a = _Cluster("blue", _Admin(internal={"cursors": {"pulsar.repl.green": {"markDeletePosition": "5:-1",
                                                                            "readPosition": "5:0"}}}))
    b = _Cluster("green", _Admin(stats={"msgInCounter": 0, "publishers": []}))
    log = "\n".join(["old line about orders, before the heal",
                     "INFO Replicator persistent://tm/moving/orders to green: reconnecting",
                     "INFO unrelated line",
                     "WARN [persistent://tm/moving/orders] Failed to create producer"])
    links = [{"name": "blue-green", "state": "open", "active": 0, "bytes_forwarded": 0}]
    found = observe.stall_evidence(_Deployment(log, links), a, b, TOPIC, log_from=1)
    assert found["replicator_cursor"] == {"markDeletePosition": "5:-1", "readPosition": "5:0"}
    assert found["b_msg_in"] == {"msgInCounter": 0, "publishers": []}
    assert found["links"] == links
    # only what A logged after the heal, and only about the replicator or the topic
    assert found["a_log"] == log.splitlines()[1:2] + log.splitlines()[3:]


def test_a_deployment_without_suite_links_says_none_rather_than_open():
    a = _Cluster("blue", _Admin())
    b = _Cluster("green", _Admin())
    found = observe.stall_evidence(_Deployment("", None), a, b, TOPIC)
    assert found["links"] is None and found["replicator_cursor"] is None and found["a_log"] == []
