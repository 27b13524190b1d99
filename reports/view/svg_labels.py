"""Where the short labels of the report's SVG pictures go (the fault letters and marker numbers of
reports/view/plots.py and reports/view/timeline.py), so that none is drawn over another and none leaves the
picture (issue 51: the timeline printed every marker's whole label at its line, and close markers'
labels overprinted each other and ran off the right edge).

A label is given where it belongs (the x of its line or the start of its band) and how wide it is;
labels are laid out left to right in rows, each going to the first row where it clears the label
before it, and pushed left where it would cross the plot's right edge. The width of a text is
estimated from its characters (no font metrics without a browser): ``text_width`` errs wide, and
the report's Chromium test (tests/reports/test_screenshot_report.py) measures the real boxes.
"""
from __future__ import annotations

# Advance widths in em of DejaVu Sans (what Chromium draws a generic sans-serif with on Debian; wider
# than Liberation Sans, Arial or Helvetica, so an estimate from it errs wide elsewhere): the narrow
# and wide characters; a lowercase letter or digit otherwise about 0.64 em, a capital 0.78 em.
NARROW = {" ": 0.32, "i": 0.28, "j": 0.28, "l": 0.28, "f": 0.36, "t": 0.40, "r": 0.42, ".": 0.32, ",": 0.32,
          ":": 0.34, ";": 0.34, "'": 0.28, "!": 0.40, "|": 0.34, "(": 0.40, ")": 0.40, "-": 0.37, "/": 0.34,
          "[": 0.40, "]": 0.40, "s": 0.53, "c": 0.56, "z": 0.53, "I": 0.30, "J": 0.30}
WIDE = {"m": 0.98, "w": 0.82, "M": 0.87, "W": 1.0, "…": 1.0, "→": 0.84, "<": 0.84, ">": 0.84, "+": 0.84,
        "=": 0.84, "%": 0.95, "@": 1.0, "_": 0.50}
MARGIN = 1.06  # kerning and hinting never make a text wider than this over its advances
GAP = 4.0  # px between two labels of a row


def text_width(text: str, size: float) -> float:
    """An upper estimate of ``text``'s width in px at ``size`` px."""
    em = sum(NARROW.get(ch) or WIDE.get(ch) or (0.78 if ch.isupper() else 0.64) for ch in text)
    return size * em * MARGIN + 1


def fit(text: str, width: float, size: float) -> str:
    """``text``, cut with an ellipsis to fit ``width`` px at ``size`` px (the whole text belongs in a
    <title> beside it)."""
    if text_width(text, size) <= width:
        return text
    while text and text_width(text + "…", size) > width:
        text = text[:-1]
    return text.rstrip() + "…"


def stack(labels: list[tuple[float, float]], left: float, right: float) -> list[tuple[float, int]]:
    """For labels ``(x where it belongs, width)``: ``(x of its left edge, row)`` each, in the same
    order. A label starts 3 px right of its x, or ends 3 px left of it where that would cross
    ``right``, and never starts left of ``left``; rows are 0, 1, ... from the top."""
    placed: list[tuple[float, int] | None] = [None] * len(labels)
    ends: list[float] = []  # per row, where its last label ends
    for i in sorted(range(len(labels)), key=lambda i: labels[i][0]):
        at, width = labels[i]
        x0 = at + 3 if at + 3 + width <= right else at - 3 - width
        x0 = max(left, min(x0, right - width))
        row = next((r for r, end in enumerate(ends) if end + GAP <= x0), len(ends))
        if row == len(ends):
            ends.append(x0 + width)
        else:
            ends[row] = x0 + width
        placed[i] = (x0, row)
    return [p for p in placed if p is not None]
