"""Children that get Ctrl-C as a terminal delivers it.

A process started in the background of a non-interactive shell (``cmd &``, as some CI runners and
``nohup`` wrappers do) inherits SIGINT ignored, and Python then installs no KeyboardInterrupt handler:
a test that sends SIGINT to a child would measure how it was launched, not what the suite does on
Ctrl-C. Such children start with SIGINT at its default, as under a terminal."""
from __future__ import annotations

import signal


def sigint_as_in_a_terminal() -> None:
    """``preexec_fn`` for subprocess.Popen: SIGINT back to its default before the child's program runs."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
