"""Ctrl-C while z3 solves: exit 130 (interrupted), not the unknown verdict of a search cut short.

z3 catches SIGINT itself while a solver runs (its ``ctrl_c`` parameter, on by default) and answers
``unknown`` with the reason "interrupted from keyboard"; the spec engines read any ``unknown`` as a
budget that ran out, so a Ctrl-C during ``spec check`` printed UNKNOWN and exited 2, as if the user
had asked for too small a depth (issue 51). Here z3 leaves SIGINT to Python, so the interpreter
raises KeyboardInterrupt (pulsar_conformance/cli.py: exit 130), and a thread woken by the signal
(``signal.set_wakeup_fd``) interrupts the running solver at once, since the Python handler itself
runs only when z3 returns. One place for every z3 call the commands make (BMC, induction, facts,
mutants, ``--reach``) instead of a check of the reason at each.
"""
from __future__ import annotations

import os
import signal
import sys
import threading

_installed = False


def z3_interruptible() -> bool:
    """Make a Ctrl-C end a z3 call at once as KeyboardInterrupt; False when it cannot be done here (no
    z3, not the main thread, SIGINT not Python's): then z3 keeps its own handling."""
    global _installed
    if _installed:
        return True
    if threading.current_thread() is not threading.main_thread():
        return False
    if signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        return False  # ignored (a background job of a shell) or someone else's handler: leave it alone
    try:
        import z3
    except ImportError:
        return False
    read, write = os.pipe()
    os.set_blocking(write, False)
    try:
        signal.set_wakeup_fd(write, warn_on_full_buffer=False)
    except ValueError:
        os.close(read)
        os.close(write)
        return False
    z3.set_param("ctrl_c", False)
    threading.Thread(target=_watch, args=(read,), name="z3-interrupt", daemon=True).start()
    _installed = True
    return True


def _watch(read: int) -> None:
    while True:
        try:
            data = os.read(read, 64)
        except OSError:
            return
        if not data:
            return
        if signal.SIGINT in data:
            z3 = sys.modules.get("z3")
            if z3 is not None:
                z3.main_ctx().interrupt()
