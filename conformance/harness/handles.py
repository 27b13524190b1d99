"""A producer or consumer a scenario's traffic made, as data (``HandleInfo``): what an outcome keeps
of it once the clients are gone (traffic.py's ``Handle`` is the live one, with its client and thread),
and the evidence of a handle its client could not create (``refusal``)."""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class HandleInfo:
    name: str
    kind: str  # producer | consumer
    topic: str
    subscription: str | None
    cluster: str = ""  # where the handle was created (or the caller's client label)
    created_ns: int = 0
    attach_error: str | None = None  # the client could not create it: no thread, no rows
    errors: list[str] = field(default_factory=list)


def info(handle: HandleInfo, keep: int = 5) -> HandleInfo:
    """What an outcome keeps of a (live) handle: its data, the first ``keep`` errors."""
    return HandleInfo(handle.name, handle.kind, handle.topic, handle.subscription, handle.cluster, handle.created_ns,
                      handle.attach_error, handle.errors[:keep])


def refusal(handles, name: str) -> str:
    """Evidence text for handle ``name``: why its client could not create it, or ""."""
    return "".join(f"; creating {h.name} through {h.cluster} failed: {h.attach_error}"
                   for h in handles if h.name == name and h.attach_error)
