"""Send and receive rates per cluster from a capture, drawn as an inline SVG with markers.

SVG written by hand (no plotting library, no external asset): the report stays one file that
renders offline, and the numbers behind each line are in the bundle's capture anyway. The
scenario's faults are shaded and lettered and its other markers numbered as in the capture's other
pictures (reports/view/plots.py: the same letters and numbers, said once in the legend under them), so
no label is printed over another or past the picture's edge. A cluster-migration capture's sends
are counted by the cluster that stored them (reports/view/placement.py), not by the one every client
attached through.
"""
from __future__ import annotations

import json
from html import escape
from pathlib import Path

from . import placement, plots

COLORS = {"send_ok blue": "#1f5fbf", "receive blue": "#7fb2f0", "send_ok green": "#1e8a3c",
          "receive green": "#8fd19e"}
FALLBACK = ["#a05a00", "#7a3fa0", "#b02a2a", "#555555"]
W, H, LEFT, RIGHT, TOP, BOTTOM = plots.W, 260, 56, plots.RIGHT, 22, 34
LEGEND_STEP = 18


def rates(capture_dir: Path, bucket_s: float = 0.5, stored: placement.Stored | None = None) -> tuple[dict, int, float]:
    """{"<kind> <cluster>": [count per bucket]}, start ns, bucket width in seconds. With ``stored``
    (a cluster-migration capture), a send's cluster is the one that stored it and a delivery's the
    one it came from; a row the placement does not cover is "<cluster> (not placed)"."""
    import pyarrow.compute as pc
    import pyarrow.dataset as ds

    from pulsar_conformance.fixtures.capture.schema import event_files

    files = event_files(capture_dir)
    if not files:  # a scenario that failed before its first flush: nothing to draw, not a crash
        return {}, 0, bucket_s
    names = ["ts_ns", "kind", "cluster"] + (["topic", "uid", "msg_id"] if stored else [])
    table = ds.dataset(files, format="parquet").to_table(columns=names)
    if table.num_rows == 0:
        return {}, 0, bucket_s
    start = pc.min(table["ts_ns"]).as_py()
    columns = [table[n].to_pylist() for n in names]
    series: dict[str, dict[int, int]] = {}
    for row in zip(*columns, strict=True):
        ts, kind, cluster = row[:3]
        if kind not in ("send_ok", "receive"):
            continue
        if stored:
            topic, uid, msg_id = row[3:]
            where = stored.send(topic, uid, cluster) if kind == "send_ok" else stored.receive(topic, uid, msg_id, cluster)
            cluster = where or f"{cluster or '?'} (not placed)"
        slot = int((ts - start) / 1e9 / bucket_s)
        line = series.setdefault(f"{kind} {cluster or '?'}", {})
        line[slot] = line.get(slot, 0) + 1
    width = max(max(line) for line in series.values()) + 1 if series else 0
    # sends first, so the dashed receive lines are drawn on top of the send line they follow
    order = sorted(series, key=lambda name: (not name.startswith("send"), name))
    return {name: [series[name].get(i, 0) for i in range(width)] for name in order}, start, bucket_s


def legend_name(name: str, placed: bool) -> str:
    """"send_ok blue" as the legend says it: by the cluster that stored it where the capture is placed."""
    if not placed:
        return name
    kind, cluster = name.split(" ", 1)
    if cluster.endswith(" (not placed)"):
        return f"{'sent' if kind == 'send_ok' else 'received'} via {cluster[:-len(' (not placed)')]}, not placed"
    return f"sent, stored on {cluster}" if kind == "send_ok" else f"received from {cluster}"


def svg(capture_dir: Path) -> str:
    stored = placement.stored_on(capture_dir)
    series, start, bucket_s = rates(capture_dir, stored=stored)
    markers_path = capture_dir / "markers.json"
    markers = json.loads(markers_path.read_text()) if markers_path.exists() else []
    if not series:
        return '<p class="muted">no send or receive events in this capture</p>'
    slots = max(len(v) for v in series.values())
    peak = max(max(v) for v in series.values()) / bucket_s
    pw, ph = W - LEFT - RIGHT, H - TOP - BOTTOM
    last = max(slots - 1, 1)

    def x(slot: float) -> float:
        return LEFT + pw * min(max(slot, 0), last) / last  # a marker after the last bucket is drawn at the edge

    def y(rate: float) -> float:
        return TOP + ph * (1 - rate / peak)

    def at(ns: int) -> float:
        return x((ns - start) / 1e9 / bucket_s)

    faults, instants = plots.fault_intervals(markers, start, start + int(slots * bucket_s * 1e9))
    rows = len(series) + (1 if faults else 0)
    height = max(H, TOP + 14 + LEGEND_STEP * (rows - 1) + 4)
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" class="timeline" viewBox="0 0 {W} {height}" width="{W}" '
             f'height="{height}" role="img" aria-label="send and receive rates per cluster">',
             f'<rect x="{LEFT}" y="{TOP}" width="{pw}" height="{ph}" fill="#fafafa" stroke="#ccc"/>']
    for f in faults:
        x0, x1 = at(f["from"]), max(at(f["from"]) + 1.5, at(f["to"]))
        parts.append(f'<rect class="fault" x="{x0:.1f}" y="{TOP}" width="{x1 - x0:.1f}" height="{ph}" '
                     f'fill="{plots.FAULT_FILL}" fill-opacity="0.6"><title>fault {f["letter"]}: {escape(f["label"])}</title>'
                     f'</rect><line x1="{x0:.1f}" y1="{TOP}" x2="{x0:.1f}" y2="{TOP + ph}" stroke="{plots.FAULT_EDGE}"/>')
    for frac in (0, 0.5, 1):
        parts.append(f'<text x="{LEFT - 6}" y="{y(peak * frac) + 4:.1f}" text-anchor="end" font-size="11">'
                     f'{peak * frac:.0f}</text>')
    # above the top rate's label, not on it
    parts.append(f'<text x="{LEFT - 6}" y="{TOP - 10}" text-anchor="end" font-size="10">msg/s</text>')
    seconds = slots * bucket_s
    step = max(1, round(seconds / 8))
    for s in range(0, int((slots - 1) * bucket_s) + 1, step):
        parts.append(f'<text x="{x(s / bucket_s):.1f}" y="{H - BOTTOM + 18}" text-anchor="middle" font-size="11">{s}s</text>')
    for i, (name, counts) in enumerate(series.items()):
        color = COLORS.get(name, FALLBACK[i % len(FALLBACK)])
        points = " ".join(f"{x(j):.1f},{y(c / bucket_s):.1f}" for j, c in enumerate(counts))
        dash = ' stroke-dasharray="5,3"' if name.startswith("receive") else ""
        shown = legend_name(name, stored is not None)
        parts.append(f'<polyline fill="none" stroke="{color}" stroke-width="2"{dash} points="{points}">'
                     f'<title>{escape(shown)}</title></polyline>')
        ly = TOP + 14 + LEGEND_STEP * i
        parts.append(f'<line x1="{W - RIGHT + 10}" y1="{ly - 4}" x2="{W - RIGHT + 34}" y2="{ly - 4}" '
                     f'stroke="{color}" stroke-width="2"{dash}/>' + plots.legend_text(W - RIGHT + 40, ly, shown, W - 4))
    if faults:
        ly = TOP + 14 + LEGEND_STEP * len(series)
        parts.append(f'<rect x="{W - RIGHT + 10}" y="{ly - 10}" width="24" height="10" fill="{plots.FAULT_FILL}"/>'
                     + plots.legend_text(W - RIGHT + 40, ly, "fault (lettered)", W - 4))
    for m in instants:
        mx = at(m["ts_ns"])
        parts.append(f'<line class="marker" x1="{mx:.1f}" y1="{TOP}" x2="{mx:.1f}" y2="{TOP + ph}" stroke="#c00" '
                     f'stroke-width="1.5" stroke-dasharray="3,3"><title>{escape(m.get("label", ""))}</title></line>')
    parts += plots.mark_labels({"faults": faults, "instants": instants}, at, LEFT, LEFT + pw, TOP)
    parts.append("</svg>")
    return "".join(parts)
