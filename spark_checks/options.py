"""Checks of the option values ``check-capture``, ``bench synth`` and ``bench spark`` share, made
before any work: a Spark master Spark would refuse (or wait a minute for) and a capture size no
disk holds are typos that used to cost a JVM start or a disk filled until the process was killed.
"""
from __future__ import annotations

import re
import socket

from pulsar_conformance.errors import UsageError
from pulsar_conformance.redact import redact_url

# Spark's own forms (SparkContext.createTaskScheduler): local, local[N], local[*], and the same
# with a task-retry count, local[N,F]; N and F of at least 1 (local[0] is refused by Spark after
# its JVM started). Six digits: a thread count past that is a typo, not a machine.
_LOCAL = re.compile(r"local(?:\[(?:\*|[1-9][0-9]{0,5})(?:,[1-9][0-9]{0,5})?\])?", re.ASCII)
_HOST = re.compile(r"\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9](?:[A-Za-z0-9.-]{0,252})", re.ASCII)
MASTER_FIX = ("pass --master local[*] (all cores, the default), local[N] (N threads, N >= 1) or "
              "spark://HOST:PORT of a running Spark standalone master (HOST1:PORT1,HOST2:PORT2 for several)")

# 20M events take about 20 s and a few hundred MB (docs/spark-checks.md, the bench's largest default
# size); a thousand million is an hour and tens of GB: past that the request is a typo.
MAX_EVENTS = 10**9


def check_master(master: str, *, option: str = "--master", reach: bool = True) -> str:
    """``master`` when Spark takes it, and (``reach``) a standalone master answers at one of its
    addresses; a UsageError otherwise. The master is quoted with any userinfo masked."""
    shown = redact_url(master)
    if _LOCAL.fullmatch(master):
        return master
    if not master.startswith("spark://"):
        raise UsageError(f"{option} {shown!r} is not a Spark master this suite runs on", MASTER_FIX)
    addresses = []
    for address in master[len("spark://"):].split(","):
        if "@" in address:
            raise UsageError(f"{option} {shown}: a spark:// master URL carries no user or password",
                             "leave the credentials out: a standalone master authenticates with "
                             "spark.authenticate and a shared secret, not with the URL")
        host, _, port = address.rpartition(":")
        if not (_HOST.fullmatch(host) and port.isascii() and port.isdigit() and 1 <= int(port) <= 65535):
            raise UsageError(f"{option} {shown}: {address!r} is not HOST:PORT (a port 1-65535)", MASTER_FIX)
        addresses.append((host.strip("[]"), int(port)))
    if reach and not any(_answers(host, port) for host, port in addresses):
        # Spark retries an absent master for about a minute before failing: a TCP probe says so at once
        raise UsageError(f"no Spark master answers at {shown}",
                         "start one (spark-class org.apache.spark.deploy.master.Master --host 127.0.0.1 --port 7077) "
                         f"or leave out {option} to run in local mode")
    return master


def check_driver_host(host: str, *, option: str = "--driver-host") -> str:
    """``host`` when it is an address or host name a Spark driver can advertise; a UsageError otherwise
    (a URL or a port here would reach Spark as an unresolvable name, after its JVM started)."""
    if not _HOST.fullmatch(host or ""):
        raise UsageError(f"{option} {host!r} is not a host name or an IP address",
                         f"pass {option} ADDRESS: the address of this machine that the Spark workers can reach "
                         "(no scheme, no port)")
    return host.strip("[]")


def _answers(host: str, port: int) -> bool:
    try:
        with socket.create_connection((host, port), timeout=5):
            return True
    except OSError:
        return False


def check_events(value: int, option: str = "--events") -> int:
    if value > MAX_EVENTS:
        raise UsageError(f"{option} {value:,}: more than {MAX_EVENTS:,} events, which would take hours and "
                         "more disk than a capture check is worth", f"pass {option} {MAX_EVENTS} or fewer "
                         "(20000000 is about 20 s to write)")
    return value
