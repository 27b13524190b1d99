"""A restarted cluster is back when the first of its brokers listens (the client's probe may reach
any of them); a cluster of several brokers lists them all in its service URL (issue 31), which urllib
cannot read as one port."""
from __future__ import annotations

from pulsar_conformance.conformance.protocols.client_failover.scenario import _addresses


def test_every_broker_of_a_multi_broker_service_url_is_watched():
    assert _addresses("pulsar://127.0.0.1:12346,127.0.0.1:28853") == [("127.0.0.1", 12346), ("127.0.0.1", 28853)]
    assert _addresses("pulsar+ssl://[::1]:6651,[::1]:6652") == [("::1", 6651), ("::1", 6652)]
    assert _addresses("pulsar://127.0.0.1:6650") == [("127.0.0.1", 6650)]
