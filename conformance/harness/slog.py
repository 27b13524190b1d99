"""Pulsar 5's slog attributes, read back from a log line.

Pulsar 5 logs through slog (io.github.merlimat.slog), which keeps what a line is about (a topic, a
producer's name, a service URL) out of the message, as attributes in the log event's context data.
The suite's log patterns print them after the message (``%notEmpty{ %X}``: fixtures/deploy/brokerconf.py
for the brokers, harness/java_process.py for the Java programs) as log4j prints a context map:
``{key=value, key=value}``, keys sorted. A value may hold ", " itself (``ControlledConfiguration(serviceUrl=...,
...)``) or braces (``PersistentTopic{topic=...}``), so pairs are split only outside brackets; a host list
(``pulsar://h1:p1,h2:p2``) has no space after its commas. 3.x and 4.x lines have no such block: ``{}``.
"""
from __future__ import annotations

import re

_START = re.compile(r" \{(?=[\w.-]+=)")
_KEY = re.compile(r"([\w.-]+)=")  # a key may be dotted (an exception's message)
_OPEN, _CLOSE = "({[", ")}]"


def attributes(line: str) -> dict[str, str]:
    """The attributes printed after ``line``'s message, by key; {} where there are none."""
    for start in _START.finditer(line):
        found = _parse(line, start.end())
        if found is not None:
            return found
    return {}


def _parse(line: str, at: int) -> dict[str, str] | None:
    """The ``key=value, ...}`` block from ``at`` (just after its brace), or None if it is not one."""
    found: dict[str, str] = {}
    while True:
        key = _KEY.match(line, at)
        if not key:
            return None
        at = key.end()
        depth, begin = 0, at
        while at < len(line):
            char = line[at]
            if char in _OPEN:
                depth += 1
            elif char in _CLOSE:
                if depth == 0:  # the block's own closing brace
                    found[key.group(1)] = line[begin:at]
                    return found
                depth -= 1
            elif depth == 0 and line.startswith(", ", at) and _KEY.match(line, at + 2):
                break
            at += 1
        else:
            return None  # never closed: not an attribute block
        found[key.group(1)] = line[begin:at]
        at += 2
