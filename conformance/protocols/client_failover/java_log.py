"""The Java client's own log, read: the probes it logged as failed and the switches it logged
making, each with its time (epoch ms in the log, ns here) and clusters by name (``by_url``)."""
from __future__ import annotations

import re

from ...harness import slog

_PROBE_FAILED = re.compile(r"^(\d{13}) \S+ \S+ .*Failed to probe available, url: (\S+)")
# Pulsar 5's client logs through slog: the URLs are attributes, printed after the message by the harness's log
# pattern (harness/slog.py reads them), e.g. "Failed to probe available, url {url=pulsar://h:p}"
_TIME = re.compile(r"^(\d{13}) ")
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
# Pulsar 5's words for the same three: message -> the attributes naming where from and where to
_SWITCHED_5 = (
    ("Switching to target service after current service went down", "currentServiceUrl", "targetServiceUrl"),
    ("Primary service has recovered, switching back", "secondaryServiceUrl", "primaryServiceUrl"),
    ("Switching Pulsar service url", "currentConfig", "newConfig"),
)
_SERVICE_URL = re.compile(r"serviceUrl=([^\s)]+?)(?:, |\))")


def _url(value: str | None) -> str | None:
    """A URL attribute as it is, or a ControlledConfiguration's serviceUrl (None for null)."""
    if value is None or value == "null":
        return None
    inside = _SERVICE_URL.search(value)
    return inside.group(1) if inside else value


def _switch_5(line: str) -> tuple[int, str | None, str] | None:
    """(time ms, from, to) of a switch Pulsar 5's client logged, or None."""
    time = _TIME.match(line)
    if not time or " INFO " not in line:
        return None
    for message, origin, target in _SWITCHED_5:
        if message in line:
            found = slog.attributes(line)
            if _url(found.get(target)):
                return int(time.group(1)), _url(found.get(origin)), _url(found.get(target))
    return None


def failed_probes(log: str, by_url: dict[str, str]) -> list[tuple[int, str]]:
    """(time, cluster) of each probe the client logged as failed."""
    found = []
    for line in log.splitlines():
        match = _PROBE_FAILED.match(line)
        time = _TIME.match(line)
        if match:
            at, url = int(match.group(1)), match.group(2)
        elif time and "Failed to probe available, url" in line:
            at, url = int(time.group(1)), slog.attributes(line).get("url")  # 5.x
        else:
            continue
        if url:
            found.append((at * 1_000_000, by_url.get(url, url)))
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
        else:
            switch = _switch_5(line)
            if switch:
                at, origin, target = switch
                found.append((at * 1_000_000, by_url.get(origin, origin) if origin else None, by_url.get(target, target)))
    return found
