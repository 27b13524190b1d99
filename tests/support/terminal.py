"""Children that get Ctrl-C as a terminal delivers it.

A process started in the background of a non-interactive shell (``cmd &``, as some CI runners and
``nohup`` wrappers do) inherits SIGINT ignored, and Python then installs no KeyboardInterrupt handler:
a test that sends SIGINT to a child would measure how it was launched, not what the suite does on
Ctrl-C. Such children start with SIGINT at its default, as under a terminal."""
from __future__ import annotations

import signal
import subprocess
import threading
import time


def sigint_as_in_a_terminal() -> None:
    """``preexec_fn`` for subprocess.Popen: SIGINT back to its default before the child's program runs."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


class HungChild:
    """A certify child started with the hang plugin (tests/support/hang_plugin.py): its stderr read as
    it comes (``lines``), ``hung`` set once a test blocks, ``interrupt()`` the terminal's Ctrl-C, and on
    leaving the ``with`` block a child still running gets Ctrl-C, then a kill, so no broker is left."""

    MARK = "hang-plugin:"  # after pytest -v's test id, on the same line

    def __init__(self, command: list[str], *, cwd, env: dict):
        self.proc = subprocess.Popen(command, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     text=True, preexec_fn=sigint_as_in_a_terminal)
        self.lines: list[str] = []
        self.hung = threading.Event()
        self._reader = threading.Thread(target=self._drain, daemon=True)
        self._reader.start()

    def _drain(self) -> None:
        for line in self.proc.stderr:
            self.lines.append(line)
            if self.MARK in line:
                self.hung.set()

    def wait_hung(self, timeout: float = 600) -> bool:
        """Until a test blocks, the child ends, or ``timeout`` passes; whether a test blocked."""
        deadline = time.monotonic() + timeout
        while not self.hung.wait(1) and self.proc.poll() is None and time.monotonic() < deadline:
            pass
        return self.hung.is_set()

    def interrupt(self, timeout: float) -> str:
        """Ctrl-C, then the child's stdout once it ended (within ``timeout``)."""
        self.proc.send_signal(signal.SIGINT)  # what a terminal's Ctrl-C delivers
        stdout, _ = self.proc.communicate(timeout=timeout)
        return stdout

    def log(self, last: int = 30) -> str:
        return "".join(self.lines[-last:])

    def __enter__(self) -> HungChild:
        return self

    def __exit__(self, *_exc) -> None:
        if self.proc.poll() is None:  # the same Ctrl-C, so a failed assertion leaves no brokers either
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(120)
            except subprocess.TimeoutExpired:
                self.proc.kill()
        self._reader.join(5)
