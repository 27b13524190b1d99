"""The instant a restarted cluster is back is when its first broker listens; a cluster of several
brokers lists them all in its service URL (issue 31), which urllib cannot read as one port."""
from __future__ import annotations

from pulsar_conformance.conformance.protocols.client_failover.scenario import _address


def test_a_multi_broker_service_url_is_watched_on_its_first_broker():
    assert _address("pulsar://127.0.0.1:12346,127.0.0.1:28853") == ("127.0.0.1", 12346)
    assert _address("pulsar+ssl://[::1]:6651,[::1]:6652") == ("::1", 6651)
    assert _address("pulsar://127.0.0.1:6650") == ("127.0.0.1", 6650)
