"""A pulsar-client configured for failover, and where it is attached over time.

The client says which service it uses (``Client.get_service_info()``); a poller asks every 10 ms
and keeps each change as an ``Attachment``: the switches the verdicts and the trace validation
read. A probe cannot be observed from outside the client, so the switches are the client's
observable steps (docs/client-failover.md: probes are TCP connects, checks run ``check_interval`` after
the previous one finished)."""
from __future__ import annotations

import threading
import time
from dataclasses import dataclass

import pulsar

from ...harness.deadline import CLIENT_CALL_DEADLINE_S, Hung, within
from .outcome import FailoverConfig


def client_url(deployment, cluster: str) -> str:
    """The service URL a failover client is given for ``cluster``: one address, as a production cluster's (a load
    balancer's, a DNS name's, a proxy's). Its Pulsar proxy's where the deployment has one (``--topology cluster
    --proxy``: the client's TCP probe reaches the proxy, which answers while the brokers behind it are down); on the
    suite's own cluster topology without one, the first of its brokers (its service URL names each broker); else the
    cluster's service URL as given (an external deployment's is the user's). The Java client's probe takes one host
    of a URL per check, round robin (``AutoClusterFailover.probeAvailable`` -> ``PulsarServiceNameResolver.resolveHost``,
    4.2.4), so with two brokers that open their ports seconds apart its checks alternate between success and failure,
    which the spec's one ``up`` per cluster does not model: a 4.2.4 exploration on the cluster topology failed the
    trace on exactly that (2026-12-02), the harness's mismatch, not the client's defect."""
    found = deployment.clusters[cluster]
    proxied = found.extra.get("proxy_service_url")
    if proxied:
        return proxied
    if not deployment.components(cluster):  # a standalone, or a cluster the suite did not start
        return found.service_url
    scheme, _, hosts = found.service_url.partition("://")
    return f"{scheme}://{hosts.split(',')[0]}"

POLL_S = 0.01
CLUSTERS = ("primary", "s1", "s2")  # the deployment every scenario shares (conftest.py)


@dataclass(frozen=True)
class Attachment:
    at_ns: int
    cluster: str


# pulsar-client < 3.11.0 has no ServiceInfoProvider: this module must still import there (every
# profile collects conformance/), and the client-failover profile refuses such a client up front
class Provider(getattr(pulsar, "ServiceInfoProvider", object)):
    """A service-info provider the scenario drives: the Python client's analogue of Java's
    ControlledClusterFailover (an operator decides, the client follows)."""

    def __init__(self, first):
        self.first, self.update = first, None

    def initial_service_info(self):
        return self.first

    def initialize(self, on_service_info_update) -> None:
        self.update = on_service_info_update

    def point_to(self, info) -> None:
        self.update(info)


class FailoverClient:
    def __init__(self, deployment, config: FailoverConfig, *, controlled: bool = False,
                 tokens: dict[str, str] | None = None):
        """``tokens``: a cluster's token in place of the deployment's (a wrong one, to show that a
        client given the wrong credentials for its target fails there)."""
        self.config = config
        clusters = deployment.clusters
        names = (config.primary, *config.secondaries)
        self.by_url = {client_url(deployment, name): name for name in names}
        given = {name: clusters[name].token for name in names} | (tokens or {})
        # each cluster's own credentials in its ServiceInfo: the client must switch them with the cluster
        self.infos = {name: pulsar.ServiceInfo(client_url(deployment, name), authentication=(
            pulsar.AuthenticationToken(given[name]) if given.get(name) else None)) for name in names}
        if controlled:
            self.provider = Provider(self.infos[config.primary])
            source = self.provider
        else:
            self.provider = None
            source = pulsar.AutoClusterFailover(
                self.infos[config.primary], [self.infos[s] for s in config.secondaries],
                check_interval_ms=config.interval_ms, failover_threshold=config.failover_threshold,
                switch_back_threshold=config.switch_back_threshold)
        self.client = within(CLIENT_CALL_DEADLINE_S, "failover client: create",
                             lambda: pulsar.Client(source, operation_timeout_seconds=10))
        self.attached = [Attachment(time.time_ns(), self.current())]
        self._stop = threading.Event()
        self._poller = threading.Thread(target=self._poll, name="service-info poller", daemon=True)
        self._poller.start()

    def current(self) -> str:
        url = self.client.get_service_info().service_url
        return self.by_url.get(url, url)

    def _poll(self) -> None:
        while not self._stop.is_set():
            now = self.current()
            if now != self.attached[-1].cluster:
                self.attached.append(Attachment(time.time_ns(), now))
            time.sleep(POLL_S)

    def point_to(self, cluster: str) -> None:
        self.provider.point_to(self.infos[cluster])

    def switches(self) -> list[tuple[int, str, str]]:
        return [(b.at_ns, a.cluster, b.cluster) for a, b in zip(self.attached, self.attached[1:], strict=False)]

    def close(self) -> str | None:
        """Stop polling and close the client; a close that hangs is returned as evidence."""
        self._stop.set()
        self._poller.join(2)
        try:
            within(CLIENT_CALL_DEADLINE_S, "failover client: close", self.client.close)
        except Hung as hung:
            return str(hung.call)
        except pulsar.PulsarException as error:
            return f"close: {error}"
        return None
