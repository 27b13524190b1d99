"""The Java client's own log, read: the probes it logged as failed and the switches it logged
making, each with its time (epoch ms in the log, ns here) and clusters by name (``by_url``)."""
from __future__ import annotations

import re

_PROBE_FAILED = re.compile(r"^(\d{13}) \S+ \S+ .*Failed to probe available, url: (\S+)")
# Pulsar 5's client logs through slog: the URLs are attributes, which the harness's log pattern prints after
# the message, keys sorted (conformance/harness/java_process.py), e.g. "Failed to probe available, url
# {url=pulsar://h:p}". A value ends at ", " before the next key or at the closing brace: a host list
# (pulsar://h1:p1,h2:p2) has commas without a space.
_VALUE = r"(\S+?)(?=, \w+=|\}(?:\s|$))"
_PROBE_FAILED_5 = re.compile(r"^(\d{13}) \S+ \S+ .*Failed to probe available, url \{.*?\burl=" + _VALUE)
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
    # the same three in Pulsar 5's words, the URLs as slog attributes (sorted keys)
    re.compile(r"^(\d{13}) INFO \S+ .*Switching to target service after current service went down "
               r"\{currentServiceUrl=" + _VALUE + r".*?\btargetServiceUrl=" + _VALUE),
    re.compile(r"^(\d{13}) INFO \S+ .*Primary service has recovered, switching back "
               r"\{primaryServiceUrl=(?P<to>\S+?)(?=, \w+=|\}).*?\bsecondaryServiceUrl=(?P<from>\S+?)(?=, \w+=|\}(?:\s|$))"),
    re.compile(r"^(\d{13}) INFO \S+ .*Switching Pulsar service url \{currentConfig=(?:null|.*?serviceUrl=([^\s)]+?)(?:, |\)))"
               r".*?newConfig=.*?serviceUrl=([^\s)]+?)(?:, |\))"),
)


def failed_probes(log: str, by_url: dict[str, str]) -> list[tuple[int, str]]:
    """(time, cluster) of each probe the client logged as failed."""
    found = []
    for line in log.splitlines():
        match = _PROBE_FAILED.match(line) or _PROBE_FAILED_5.match(line)
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
                # the switch-back's attributes come target first (keys sorted): named groups say which is which
                origin, target = ((match.group("from"), match.group("to")) if "to" in pattern.groupindex
                                  else (match.group(2), match.group(3)))
                found.append((int(match.group(1)) * 1_000_000, by_url.get(origin, origin) if origin else None,
                              by_url.get(target, target)))
                break
    return found
