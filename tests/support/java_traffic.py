"""A few seconds of traffic through the Java client's harness (Harness.java) on one cluster, with the
credentials the cluster carries: the live authentication tests' check that the Java client
authenticates as the Python client and the admin calls do."""
from __future__ import annotations

import dataclasses
import json
import time
from collections import Counter
from pathlib import Path
from types import SimpleNamespace

# AutoClusterFailover wants a secondary; no fault is injected, so it is never probed for a switch.
_NEVER_USED = "pulsar://127.0.0.1:9"


def java_traffic(cluster, run_dir: Path, topic: str, seconds: float = 3.0) -> Counter:
    """Kinds of the events the harness recorded (send_ok, receive, ack, ...), and under ``None`` what
    its stop said (None when it ended cleanly)."""
    from pulsar_conformance.conformance.protocols.client_failover.java_client import JavaFailoverClient
    from pulsar_conformance.conformance.protocols.client_failover.outcome import FailoverConfig

    spare = dataclasses.replace(cluster, name="spare", service_url=_NEVER_USED)
    view = SimpleNamespace(clusters={"primary": cluster, "spare": spare}, release=lambda: None,  # the default release
                           components=lambda _cluster: [])  # no cluster the suite started: URLs as given
    config = FailoverConfig("primary", ("spare",), interval_ms=500, variant="java", failover_delay_ms=2800,
                            switch_back_delay_ms=5000)
    client = JavaFailoverClient(view, config, run_dir, topic, rate=20.0, drain_seconds=15.0)
    client.start()
    try:
        time.sleep(seconds)
    finally:
        problem = client.stop()
    kinds = Counter(json.loads(line)["kind"] for line in client.events_path.read_text().splitlines())
    kinds[None] = problem
    return kinds
