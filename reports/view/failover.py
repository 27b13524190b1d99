"""Where a failover client was attached over time, from a client-failover scenario
(``<run>/failover.json``): one lane per cluster, the time each cluster's port was closed shaded,
the client's cluster as a bold step line, the client's failed probes as ticks (the Java client logs
them) and the scenario's markers below. An inline SVG like the other pictures of the report, so a
switch too early, too late or to a dead cluster is seen at a glance."""
from __future__ import annotations

import json
from html import escape
from pathlib import Path

W, LANE, LEFT, RIGHT, TOP, BOTTOM = 860, 34, 70, 20, 14, 34


def scenarios(out: Path) -> list[dict]:
    found = []
    for path in sorted((out / "captures").glob("*/failover.json")):
        doc = json.loads(path.read_text())
        found.append({"name": path.parent.name, "path": f"captures/{path.parent.name}",
                      "client": f"Java {doc['java']['version']}" if doc.get("java") else "Python",
                      "switches": sum(1 for e in doc.get("events") or [] if e.get("kind") == "switch"),
                      "svg": svg(doc)})
    return found


def attached(doc: dict) -> list[tuple[int, str]]:
    """(since, cluster) for each stretch of the client on one cluster, from the start on the primary."""
    stretches = [(doc["start_ns"], doc["config"]["primary"])]
    for e in sorted(doc.get("events") or [], key=lambda e: e["at_ns"]):
        if e.get("kind") == "switch":
            stretches.append((e["at_ns"], e["cluster"]))
    return stretches


def down(doc: dict, end_ns: int) -> dict[str, list[tuple[int, int]]]:
    """Per cluster, the stretches between its port closing (``down``) and opening (``up``)."""
    closed: dict[str, list[tuple[int, int]]] = {}
    since: dict[str, int] = {}
    for e in sorted(doc.get("events") or [], key=lambda e: e["at_ns"]):
        if e.get("kind") == "down":
            since.setdefault(e["cluster"], e["at_ns"])
        elif e.get("kind") == "up" and e["cluster"] in since:
            closed.setdefault(e["cluster"], []).append((since.pop(e["cluster"]), e["at_ns"]))
    for cluster, at in since.items():
        closed.setdefault(cluster, []).append((at, end_ns))
    return closed


def svg(doc: dict) -> str:
    config = doc.get("config") or {}
    if "primary" not in config or "start_ns" not in doc:
        return ""
    clusters = [config["primary"], *config.get("secondaries", [])]
    stretches = attached(doc)
    probes = (doc.get("java") or {}).get("failed_probes") or []
    markers = doc.get("markers") or []
    times = [doc["start_ns"], *(t for t, _ in stretches), *(p[0] for p in probes), *(m["ts_ns"] for m in markers),
             *(e["at_ns"] for e in doc.get("events") or [])]
    start, end = min(times), max(times) + 2_000_000_000
    plot_w = W - LEFT - RIGHT
    height = TOP + LANE * len(clusters) + BOTTOM + 14 * len(markers)

    def x(ts: int) -> float:
        return LEFT + plot_w * (ts - start) / (end - start)

    def y(cluster: str) -> float:
        return TOP + LANE * clusters.index(cluster) + LANE / 2 if cluster in clusters else TOP

    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{height}" role="img" '
             f'aria-label="the failover client\'s cluster over time">']
    for cluster in clusters:
        parts.append(f'<text x="{LEFT - 8}" y="{y(cluster) + 4:.1f}" font-size="12" text-anchor="end">'
                     f'{escape(cluster)}</text>')
        parts.append(f'<line x1="{LEFT}" y1="{y(cluster):.1f}" x2="{LEFT + plot_w}" y2="{y(cluster):.1f}" '
                     f'stroke="#ddd"/>')
    for cluster, spans in down(doc, end).items():
        for a, b in spans:
            parts.append(f'<rect x="{x(a):.1f}" y="{y(cluster) - LANE / 2 + 3:.1f}" width="{max(1.0, x(b) - x(a)):.1f}" '
                         f'height="{LANE - 6}" fill="#f4c7c7"><title>{escape(cluster)} down</title></rect>')
    for ts, cluster in probes:
        parts.append(f'<line x1="{x(ts):.1f}" y1="{y(cluster) - 8:.1f}" x2="{x(ts):.1f}" y2="{y(cluster) + 8:.1f}" '
                     f'stroke="#b02a2a" stroke-width="1"><title>failed probe of {escape(cluster)}</title></line>')
    path = []
    for i, (since, cluster) in enumerate(stretches):
        until = stretches[i + 1][0] if i + 1 < len(stretches) else end
        path.append(f"{'M' if i == 0 else 'L'}{x(since):.1f},{y(cluster):.1f} L{x(until):.1f},{y(cluster):.1f}")
    parts.append(f'<path d="{" ".join(path)}" fill="none" stroke="#1f5fbf" stroke-width="3"/>')
    bottom = TOP + LANE * len(clusters)
    parts.append(f'<text x="{LEFT + plot_w}" y="{bottom + 14}" font-size="11" text-anchor="end">'
                 f'{(end - start) / 1e9:.1f} s</text>')
    for i, m in enumerate(sorted(markers, key=lambda m: m["ts_ns"])):
        parts.append(f'<line x1="{x(m["ts_ns"]):.1f}" y1="{TOP}" x2="{x(m["ts_ns"]):.1f}" '
                     f'y2="{bottom + 22 + 14 * i}" stroke="#888" stroke-dasharray="3,3"/>')
        # labels right of the middle end at their line, so they stay inside the picture
        right = x(m["ts_ns"]) > LEFT + plot_w / 2
        parts.append(f'<text x="{x(m["ts_ns"]) + (-3 if right else 3):.1f}" y="{bottom + 26 + 14 * i}" font-size="11" '
                     f'text-anchor="{"end" if right else "start"}">'
                     f'+{(m["ts_ns"] - start) / 1e9:.1f} s {escape(m.get("label", ""))}</text>')
    parts.append("</svg>")
    return "".join(parts)
