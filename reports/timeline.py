"""Send and receive rates per cluster from a capture, drawn as an inline SVG with markers.

SVG written by hand (no plotting library, no external asset): the report stays one file that
renders offline, and the numbers behind each line are in the bundle's capture anyway.
"""
from __future__ import annotations

import json
from html import escape
from pathlib import Path

COLORS = {"send_ok blue": "#1f5fbf", "receive blue": "#7fb2f0", "send_ok green": "#1e8a3c",
          "receive green": "#8fd19e"}
FALLBACK = ["#a05a00", "#7a3fa0", "#b02a2a", "#555555"]
W, H, LEFT, RIGHT, TOP, BOTTOM = 860, 260, 56, 150, 16, 34


def rates(capture_dir: Path, bucket_s: float = 0.5) -> tuple[dict, int, float]:
    """{"<kind> <cluster>": [count per bucket]}, start ns, bucket width in seconds."""
    import pyarrow.compute as pc
    import pyarrow.dataset as ds

    from pulsar_conformance.fixtures.capture.schema import event_files

    files = event_files(capture_dir)
    if not files:  # a scenario that failed before its first flush: nothing to draw, not a crash
        return {}, 0, bucket_s
    table = ds.dataset(files, format="parquet").to_table(columns=["ts_ns", "kind", "cluster"])
    if table.num_rows == 0:
        return {}, 0, bucket_s
    start = pc.min(table["ts_ns"]).as_py()
    series: dict[str, dict[int, int]] = {}
    for ts, kind, cluster in zip(table["ts_ns"].to_pylist(), table["kind"].to_pylist(),
                                 table["cluster"].to_pylist(), strict=True):
        if kind not in ("send_ok", "receive"):
            continue
        slot = int((ts - start) / 1e9 / bucket_s)
        line = series.setdefault(f"{kind} {cluster or '?'}", {})
        line[slot] = line.get(slot, 0) + 1
    width = max(max(line) for line in series.values()) + 1 if series else 0
    # sends first, so the dashed receive lines are drawn on top of the send line they follow
    order = sorted(series, key=lambda name: (not name.startswith("send"), name))
    return {name: [series[name].get(i, 0) for i in range(width)] for name in order}, start, bucket_s


def svg(capture_dir: Path) -> str:
    series, start, bucket_s = rates(capture_dir)
    markers_path = capture_dir / "markers.json"
    markers = json.loads(markers_path.read_text()) if markers_path.exists() else []
    if not series:
        return '<p class="muted">no send or receive events in this capture</p>'
    slots = max(len(v) for v in series.values())
    peak = max(max(v) for v in series.values()) / bucket_s
    pw, ph = W - LEFT - RIGHT, H - TOP - BOTTOM

    def x(slot: float) -> float:
        return LEFT + pw * slot / max(slots - 1, 1)

    def y(rate: float) -> float:
        return TOP + ph * (1 - rate / peak)

    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" class="timeline" viewBox="0 0 {W} {H}" width="{W}" height="{H}" '
             f'role="img" aria-label="send and receive rates per cluster">',
             f'<rect x="{LEFT}" y="{TOP}" width="{pw}" height="{ph}" fill="#fafafa" stroke="#ccc"/>']
    for frac in (0, 0.5, 1):
        parts.append(f'<text x="{LEFT - 6}" y="{y(peak * frac) + 4:.1f}" text-anchor="end" font-size="11">'
                     f'{peak * frac:.0f}</text>')
    parts.append(f'<text x="{LEFT - 6}" y="{TOP - 4}" text-anchor="end" font-size="10">msg/s</text>')
    seconds = slots * bucket_s
    step = max(1, round(seconds / 8))
    for s in range(0, int((slots - 1) * bucket_s) + 1, step):
        parts.append(f'<text x="{x(s / bucket_s):.1f}" y="{H - BOTTOM + 16}" text-anchor="middle" font-size="11">{s}s</text>')
    for i, (name, counts) in enumerate(series.items()):
        color = COLORS.get(name, FALLBACK[i % len(FALLBACK)])
        points = " ".join(f"{x(j):.1f},{y(c / bucket_s):.1f}" for j, c in enumerate(counts))
        dash = ' stroke-dasharray="5,3"' if name.startswith("receive") else ""
        parts.append(f'<polyline fill="none" stroke="{color}" stroke-width="2"{dash} points="{points}">'
                     f'<title>{escape(name)}</title></polyline>')
        ly = TOP + 14 + 18 * i
        parts.append(f'<line x1="{W - RIGHT + 10}" y1="{ly - 4}" x2="{W - RIGHT + 34}" y2="{ly - 4}" '
                     f'stroke="{color}" stroke-width="2"{dash}/>')
        parts.append(f'<text x="{W - RIGHT + 40}" y="{ly}" font-size="12">{escape(name)}</text>')
    for k, marker in enumerate(markers):
        mx = x((marker["ts_ns"] - start) / 1e9 / bucket_s)
        parts.append(f'<line class="marker" x1="{mx:.1f}" y1="{TOP}" x2="{mx:.1f}" y2="{TOP + ph}" stroke="#c00" '
                     f'stroke-width="1.5" stroke-dasharray="3,3"/>')
        parts.append(f'<text x="{mx + 4:.1f}" y="{TOP + ph - 6 - 14 * (k % 2)}" font-size="11" fill="#c00">{escape(marker["label"])}</text>')
    parts.append("</svg>")
    return "".join(parts)
