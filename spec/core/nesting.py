"""How deep a tree nests, walked without recursion: user input (an expression, an ITF document)
may nest deeper than Python's recursion limit, so its depth is measured before anything recurses."""
from __future__ import annotations

from collections.abc import Callable, Iterable


def nesting_depth(root, children: Callable[[object], Iterable], limit: int) -> int:
    """The deepest level below ``root`` (``root`` is 1), or the first depth past ``limit``."""
    deepest, stack = 0, [(root, 1)]
    while stack:
        node, depth = stack.pop()
        deepest = max(deepest, depth)
        if deepest > limit:
            return deepest
        stack.extend((child, depth + 1) for child in children(node))
    return deepest
