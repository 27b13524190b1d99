"""``spec step``: walk a spec by hand, as a contributor explores a protocol: the state, the
actions enabled in it, pick one, see what changed, undo. Invariants the state breaks are said at
once. Reads commands line by line, so a terminal, a pipe and a pseudo-terminal all drive it."""
from __future__ import annotations

from collections.abc import Callable

from .interpreter import initial_state, successors, violated
from .model import Spec
from .view import changes

HELP = "N: take action N   u: undo   s: the whole state   q: quit   ?: this help"


class Session:
    def __init__(self, spec: Spec):
        self.spec = spec
        self.history = [(initial_state(spec), "init")]

    @property
    def state(self):
        return self.history[-1][0]

    def enabled(self) -> list[tuple[str, object]]:
        return [(g.label(self.spec), nxt) for g, nxt in successors(self.spec, self.state)]

    def take(self, number: int) -> str:
        enabled = self.enabled()
        if not 1 <= number <= len(enabled):
            return f"no action {number}: choose 1..{len(enabled)}"
        label, nxt = enabled[number - 1]
        changed = changes(self.spec, self.state, nxt)
        self.history.append((nxt, label))
        return f"step {len(self.history) - 1}: {label}\n  " + ("\n  ".join(changed) or "(nothing changed)")

    def undo(self) -> str:
        if len(self.history) == 1:
            return "at the initial state: nothing to undo"
        _, label = self.history.pop()
        return f"undone: {label}"

    def describe(self, *, whole: bool = False) -> str:
        shown = self.spec.show_state(self.state)
        init = self.spec.show_state(self.history[0][0])
        rows = [f"  {v} = {shown[v]}" for v in shown if whole or shown[v] != init[v] or len(self.history) == 1]
        broken = violated(self.spec, self.state, self.spec.checked_invariants())
        lines = [f"state {len(self.history) - 1}" + ("" if whole or len(self.history) == 1 else " (what differs from init)"),
                 *(rows or ["  (as init)"])]
        if broken:
            lines.append(f"  BREAKS {', '.join(broken)}")
        enabled = self.enabled()
        lines.append("enabled:" if enabled else "no action is enabled (deadlock)")
        lines += [f"  {i}. {label}" for i, (label, _) in enumerate(enabled, 1)]
        return "\n".join(lines)


def run(spec: Spec, read: Callable[[str], str] = input, write: Callable[[str], None] = print) -> int:
    session = Session(spec)
    write(f"{spec.name} ({spec.variant}), {', '.join(f'{k}={v}' for k, v in spec.constants.items())}\n{HELP}")
    write(session.describe())
    while True:
        try:
            line = read("step> ").strip()
        except EOFError:
            return 0
        if line in ("q", "quit", "exit"):
            return 0
        if line in ("?", "h", "help", ""):
            write(HELP)
        elif line in ("u", "undo"):
            write(session.undo())
            write(session.describe())
        elif line in ("s", "state"):
            write(session.describe(whole=True))
        elif line.isascii() and line.isdigit() and len(line) <= 9:  # int() refuses '²' and 5000 digits
            write(session.take(int(line)))
            write(session.describe())
        else:
            write(f"unknown command {line!r}; {HELP}")
