"""Deadlines for blocking client calls.

pulsar-client's close(), create and flush run in C++ with the main thread inside the call: seen
on Pulsar 4.0.1 with pulsar-client 3.13.0, ``Client.close()`` blocked for over 12 minutes with no
CPU, and neither SIGINT nor SIGTERM could reach Python. So every such call runs in a daemon
thread that the scenario waits for only until the deadline; a call still blocked then is
abandoned (the thread dies with the process) and reported as a ``HungCall`` with the Python
stack it was stuck in: evidence for the report, never a silent wait.
"""
from __future__ import annotations

import sys
import threading
import time
import traceback
from dataclasses import dataclass, field

# The clients' operation timeout is 10 s: a create or close still blocked after 30 s is hung, not slow.
CLIENT_CALL_DEADLINE_S = 30.0


@dataclass(frozen=True)
class HungCall:
    what: str
    seconds: float
    stack: str
    at_ns: int = field(default_factory=time.time_ns)  # when it was given up on

    def __str__(self) -> str:
        return f"{self.what} did not return within {self.seconds:g} s (abandoned)"

    def to_json(self) -> dict:
        return {"call": self.what, "deadline_seconds": self.seconds, "abandoned_ns": self.at_ns, "stack": self.stack}


# Every call abandoned in this process: its thread still sits in the library (conftest.py ends
# such a process without the library's destructors, which could wait on the same lock).
ABANDONED: list[HungCall] = []


class Hung(Exception):
    def __init__(self, call: HungCall):
        super().__init__(str(call))
        self.call = call


def within(seconds: float, what: str, fn, *args, **kwargs):
    """``fn(*args, **kwargs)``, or ``Hung`` if it has not returned after ``seconds``; its own
    exception is raised here as if it had been called directly."""
    outcome: dict = {}

    def call():
        try:
            outcome["value"] = fn(*args, **kwargs)
        except BaseException as error:  # noqa: BLE001 - handed back to the caller below
            outcome["error"] = error

    worker = threading.Thread(target=call, name=f"deadline: {what}", daemon=True)
    worker.start()
    worker.join(seconds)
    if worker.is_alive():
        frame = sys._current_frames().get(worker.ident)
        stack = "".join(traceback.format_stack(frame)) if frame is not None else ""
        call = HungCall(what, seconds, stack)
        ABANDONED.append(call)
        raise Hung(call)
    if "error" in outcome:
        raise outcome["error"]
    return outcome.get("value")
