"""Policy values over time, per cluster, from a policy-sync scenario (``<run>/policy-sync.json``):
one step line per cluster, drawn as an inline SVG like the traffic timelines, so a divergence is
seen at a glance (the lines end apart) and the numbers stay in the bundle."""
from __future__ import annotations

import json
from html import escape
from pathlib import Path

COLORS = ["#1f5fbf", "#1e8a3c", "#a05a00", "#7a3fa0", "#b02a2a"]
W, H, LEFT, RIGHT, TOP, BOTTOM = 860, 200, 56, 150, 16, 30


def scenarios(out: Path) -> list[dict]:
    found = []
    for path in sorted((out / "captures").glob("*/policy-sync.json")):
        doc = json.loads(path.read_text())
        found.append({"name": doc.get("name") or path.parent.name, "path": f"captures/{path.parent.name}",
                      "final": doc.get("final") or {}, "steps": [r.get("step") for r in doc.get("results") or []],
                      "svg": svg(doc)})
    return found


def svg(doc: dict) -> str:
    series = {c: [tuple(p) for p in points] for c, points in (doc.get("series") or {}).items() if points}
    if not series:
        return ""
    start = min(p[0] for points in series.values() for p in points)
    end = max(p[0] for points in series.values() for p in points) + 1_000_000_000
    top = max(max(v for _, v in points) for points in series.values()) or 1
    plot_w, plot_h = W - LEFT - RIGHT, H - TOP - BOTTOM

    def x(ts):
        return LEFT + plot_w * (ts - start) / (end - start)

    def y(v):
        return TOP + plot_h * (1 - v / top)

    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" role="img" '
             f'aria-label="policy value per cluster over time">',
             f'<line x1="{LEFT}" y1="{TOP + plot_h}" x2="{LEFT + plot_w}" y2="{TOP + plot_h}" stroke="#999"/>',
             f'<text x="{LEFT - 6}" y="{y(top) + 4:.1f}" font-size="11" text-anchor="end">{top}</text>',
             f'<text x="{LEFT - 6}" y="{y(0) + 4:.1f}" font-size="11" text-anchor="end">0</text>',
             f'<text x="{LEFT + plot_w}" y="{H - 8}" font-size="11" text-anchor="end">'
             f'{(end - start) / 1e9:.1f} s</text>']
    for i, (cluster, points) in enumerate(sorted(series.items())):
        color = COLORS[i % len(COLORS)]
        path, last = [], None
        for ts, value in points:
            if last is not None:
                path.append(f"L{x(ts):.1f},{y(last) + i * 2:.1f}")
            path.append(f"{'M' if last is None else 'L'}{x(ts):.1f},{y(value) + i * 2:.1f}")
            last = value
        path.append(f"L{LEFT + plot_w:.1f},{y(last) + i * 2:.1f}")
        parts.append(f'<path d="{" ".join(path)}" fill="none" stroke="{color}" stroke-width="2"/>')
        parts.append(f'<text x="{LEFT + plot_w + 8}" y="{TOP + 14 * (i + 1)}" font-size="12" fill="{color}">'
                     f'{escape(cluster)}: {last}</text>')
    parts.append("</svg>")
    return "".join(parts)
