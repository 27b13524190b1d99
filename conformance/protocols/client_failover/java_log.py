"""The Java client's own log, read: the probes it logged as failed and the switches it logged
making, each with its time (epoch ms in the log, ns here) and clusters by name (``by_url``)."""
from __future__ import annotations

import re

_PROBE_FAILED = re.compile(r"^(\d{13}) \S+ \S+ .*Failed to probe available, url: (\S+)")
# the switches the client says it makes: AutoClusterFailover's failover and switch-back, and
# ControlledClusterFailover's "from <configuration> to <configuration>" (serviceUrl=... inside each)
_SWITCHED = (
    re.compile(r"^(\d{13}) INFO \S+ .*Current Pulsar service is (\S+), it has been down for \d+ ms, "
               r"switch to the service (\S+?)\.? "),
    re.compile(r"^(\d{13}) INFO \S+ .*Current Pulsar service is secondary: (\S+), the primary service: (\S+) "
               r"has been recover"),
    # a service URL may be a host list (pulsar://h1:p1,h2:p2: a cluster of several brokers), so the
    # value ends at the ", " before the configuration's next field or at its ")", not at a comma
    re.compile(r"^(\d{13}) INFO \S+ .*Switch Pulsar service url from .*?(?:serviceUrl=([^\s)]+?)(?:, |\))|null).* to "
               r".*?serviceUrl=([^\s)]+?)(?:, |\))"),
)


def failed_probes(log: str, by_url: dict[str, str]) -> list[tuple[int, str]]:
    """(time, cluster) of each probe the client logged as failed."""
    found = []
    for line in log.splitlines():
        match = _PROBE_FAILED.match(line)
        if match:
            found.append((int(match.group(1)) * 1_000_000, by_url.get(match.group(2), match.group(2))))
    return found


def switches_logged(log: str, by_url: dict[str, str]) -> list[tuple[int, str | None, str]]:
    """(time, from, to) of each switch in a Java client's log (from None: the first configuration)."""
    found = []
    for line in log.splitlines():
        for pattern in _SWITCHED:
            match = pattern.match(line)
            if match:
                origin, target = match.group(2), match.group(3)
                found.append((int(match.group(1)) * 1_000_000, by_url.get(origin, origin) if origin else None,
                              by_url.get(target, target)))
                break
    return found
