"""Pictures of one capture for the report (Jepsen's latency and rate plots are the model): send-to-ack
latency quantiles per second, delivered vs sent per cluster, and replication lag per link, each with
the scenario's fault intervals shaded and its other markers drawn as lines; and, where the scenario
read what a target cluster stores (``stored.json`` beside the capture), the sends by the second they
were acknowledged against those of them the target holds: which sends never reached it, and when
they were made.

One concern: a capture directory (fixtures/capture/schema.py columns, ``markers.json``) in, inline
SVG strings out. Hand-written SVG like reports/view/timeline.py: no plotting library, no script, no
external asset, so the report stays one file that renders offline. A picture the capture cannot
support is not drawn: the figure says why instead (``svg`` empty, ``why`` set).

What the capture can say, and so what is drawn (docs/capture.md):
- latency: a ``send_ok`` row is written when the broker acknowledged the send; when ``send()`` was
  called is not recorded. "Send-to-ack" is therefore from the broker's acknowledgement of the send
  (``send_ok``) to the consumer's acknowledgement (``ack``) of the same message, per subscription,
  binned by the second the send was acknowledged in;
- sent and delivered: distinct messages acknowledged by a broker, per cluster the producer was
  attached to, and distinct messages delivered on each cluster, cumulative;
- replication lag of a link A -> B: from ``send_ok`` through A to the message's first delivery on B.
  It includes B's dispatch to its consumer, and a consumer that attaches late shows as lag. The
  ``cluster`` column is what the scenario knew the client was attached to, so a capture where every
  delivery is labelled with the sending cluster has no link to measure.
"""
from __future__ import annotations

import json
import math
import re
from html import escape
from pathlib import Path

from . import placement, svg_labels

W, H, LEFT, RIGHT, TOP, BOTTOM = 900, 240, 64, 220, 22, 34
LEGEND_STEP = 17  # px between two lines of the legend on the right
PALETTE = ["#1f5fbf", "#1e8a3c", "#a05a00", "#7a3fa0", "#b02a2a", "#0f7f86", "#555555"]
FAULT_FILL = "#f6d3d3"
FAULT_EDGE = "#d08a8a"
MARK_ROW = 13  # px between two rows of fault letters and marker numbers (font 10)
# A marker that starts a fault, and one that ends it, by the verb the scenarios use in their labels
# (conformance/protocols/*/scenario.py: "replication cut", "primary killed", "A -> B held",
# "s1 paused"; "replication healed", "primary started", "A -> B released", "s1 resumed"). The
# end closes the open fault of the same subject (the label's first word).
FAULT_BEGINS = re.compile(r"\b(cut|held|killed|paused|partitioned)\b")
FAULT_ENDS = re.compile(r"\b(healed|released|started|resumed|restored|reopened)\b")

MAX_SUBSCRIPTION_LINES = 4  # more subscriptions than that: one p50 and one p99 over all of them
LATENCY = "send-to-ack latency (p50, p99 per second)"
DELIVERY = "delivered vs sent per cluster"
LAG = "replication lag per link (p50, p99 per second)"
STORED = "sent vs stored on the target, by the time of the send"
STORED_FILE = "stored.json"  # {"cluster": the target's label, "uids": every uid it holds} (harness/timeline.py)


def pictures(capture_dir: Path) -> dict:
    """``{"figures": [{"id", "title", "svg", "caption", "why"}], "faults": [...], "marks": [...]}`` for
    ``capture_dir``: the three pictures, the fault intervals shaded in them and the numbered markers."""
    events = read(capture_dir)
    markers_path = capture_dir / "markers.json"
    markers = json.loads(markers_path.read_text()) if markers_path.exists() else []
    if not events["ts_ns"]:
        why = "the capture has no events"
        figures = [_figure(key, title, "", "", why) for key, title in (("latency", LATENCY), ("delivery", DELIVERY),
                                                                        ("lag", LAG))]
        return {"figures": figures, "faults": [], "marks": []}
    start, end = min(events["ts_ns"]), max(events["ts_ns"])
    faults, instants = fault_intervals(markers, start, end)
    frame = {"start": start, "seconds": max((end - start) / 1e9, 1.0), "faults": faults, "instants": instants}
    # a cluster-migration capture: where each send was stored, which its cluster column does not say
    stored_on = placement.stored_on(capture_dir) if "topic" in events else None
    delivery = placed_delivery_picture(events, frame, stored_on) if stored_on else delivery_picture(events, frame)
    figures = [latency_picture(events, frame), delivery, lag_picture(events, frame)]
    stored_path = capture_dir / STORED_FILE
    if stored_path.exists():
        figures.append(stored_picture(events, frame, json.loads(stored_path.read_text())))
    return {"figures": figures,
            "faults": [{"letter": f["letter"], "label": f["label"], "from_s": (f["from"] - start) / 1e9,
                        "to_s": (f["to"] - start) / 1e9} for f in faults],
            "marks": [{"n": i + 1, "label": m.get("label", ""), "at_s": (m["ts_ns"] - start) / 1e9}
                      for i, m in enumerate(instants)]}


def read(capture_dir: Path) -> dict[str, list]:
    """The columns the pictures need, as lists (empty lists for a capture without events)."""
    from pulsar_conformance.fixtures.capture.schema import event_files

    names = ("ts_ns", "kind", "cluster", "uid", "subscription")
    files = event_files(capture_dir)
    if not files:  # a scenario that failed before its first flush
        return {name: [] for name in names}
    import pyarrow.dataset as ds

    dataset = ds.dataset(files, format="parquet")
    # topic and message id where the capture has them (every real one): what placing a send needs
    wanted = [*names, *(n for n in ("topic", "msg_id") if n in dataset.schema.names)]
    table = dataset.to_table(columns=wanted)
    return {name: table[name].to_pylist() for name in wanted}


def fault_intervals(markers: list[dict], start: int, end: int) -> tuple[list[dict], list[dict]]:
    """(faults as ``{"from", "to", "label"}`` in ns, the other markers) from the scenario's markers. A
    fault never ended is shaded to the end of the capture."""
    faults, instants, open_ = [], [], {}
    for m in sorted(markers, key=lambda m: m["ts_ns"]):
        label = m.get("label", "")
        subject = label.split(" ", 1)[0]
        if FAULT_ENDS.search(label) and subject in open_:
            began = open_.pop(subject)
            faults.append({"from": began["ts_ns"], "to": m["ts_ns"], "label": f"{began['label']} … {label}"})
        elif FAULT_BEGINS.search(label):
            open_.setdefault(subject, m)
        else:
            instants.append(m)
    faults += [{"from": m["ts_ns"], "to": max(end, m["ts_ns"]), "label": m["label"]} for m in open_.values()]
    faults.sort(key=lambda f: f["from"])
    for i, f in enumerate(faults):
        f["letter"] = letter(i)  # what names the band in the pictures and in the legend below them
    return faults, instants


def letter(i: int) -> str:
    """A, B, ..., Z, AA, AB, ...: the name of the i-th fault band."""
    name = ""
    i += 1
    while i:
        i, rest = divmod(i - 1, 26)
        name = chr(ord("A") + rest) + name
    return name


def mark_labels(frame: dict, at, left: float, right: float, top: float) -> list[str]:
    """The fault letters (at the start of their band) and the marker numbers (at their line) of
    ``frame``, in rows so that none is drawn over another or past ``right`` (reports/view/svg_labels.py);
    each says its whole label in a <title>, and the legend under the pictures says them all."""
    labels = [(at(f["from"]), f["letter"], f["label"], "#a33") for f in frame["faults"]]
    labels += [(at(m["ts_ns"]), str(i + 1), m.get("label", ""), "#666") for i, m in enumerate(frame["instants"])]
    spots = svg_labels.stack([(x, svg_labels.text_width(text, 10)) for x, text, *_ in labels], left + 1, right - 1)
    return [f'<text class="mark-label" x="{x0:.1f}" y="{top + 11 + MARK_ROW * row}" font-size="10" fill="{color}">'
            f'<title>{escape(full)}</title>{text}</text>'
            for (x0, row), (_, text, full, color) in zip(spots, labels, strict=True)]


def legend_text(x: float, y: float, name: str, right: float) -> str:
    """A legend line's name, cut to end before ``right`` (the whole name in its <title>)."""
    shown = svg_labels.fit(name, right - x, 11)
    title = f"<title>{escape(name)}</title>" if shown != name else ""
    return f'<text class="legend" x="{x}" y="{y:.1f}" font-size="11">{title}{escape(shown)}</text>'


def quantile(values: list[float], q: float) -> float:
    """Nearest-rank quantile of sorted ``values`` (a value that was observed, never an interpolation)."""
    return values[min(len(values) - 1, max(0, int(q * len(values) + 0.999999) - 1))]


def per_second(pairs: list[tuple[int, float]], start: int) -> dict[str, list[tuple[float, float]]]:
    """p50 and p99 of ``(at_ns, value)`` per second since ``start``, as ``[(second, value)]``."""
    bins: dict[int, list[float]] = {}
    for at, value in pairs:
        bins.setdefault(int((at - start) // 1_000_000_000), []).append(value)
    out: dict[str, list[tuple[float, float]]] = {"p50": [], "p99": []}
    for second in sorted(bins):
        values = sorted(bins[second])
        out["p50"].append((second + 0.5, quantile(values, 0.5)))
        out["p99"].append((second + 0.5, quantile(values, 0.99)))
    return out


def _sends(events: dict) -> dict[str, tuple[int, str]]:
    """uid -> (first send_ok time, cluster it was sent through)."""
    sent: dict[str, tuple[int, str]] = {}
    for ts, kind, cluster, uid in zip(events["ts_ns"], events["kind"], events["cluster"], events["uid"], strict=True):
        if kind == "send_ok" and (uid not in sent or ts < sent[uid][0]):
            sent[uid] = (ts, cluster or "?")
    return sent


def latency_picture(events: dict, frame: dict) -> dict:
    sent = _sends(events)
    first_ack: dict[tuple[str, str | None], int] = {}
    for ts, kind, uid, sub in zip(events["ts_ns"], events["kind"], events["uid"], events["subscription"], strict=True):
        if kind == "ack" and uid in sent and ((uid, sub) not in first_ack or ts < first_ack[(uid, sub)]):
            first_ack[(uid, sub)] = ts
    if not sent or not first_ack:
        why = "the capture has no acknowledged send" if not sent else "no consumer acknowledged a captured send"
        return _figure("latency", LATENCY, "", "", why)
    pairs = [(sent[uid][0], (ts - sent[uid][0]) / 1e6) for (uid, _), ts in first_ack.items()]
    subs = sorted({s or "?" for _, s in first_ack})
    if len(subs) <= MAX_SUBSCRIPTION_LINES:
        # per subscription: a slow consumer (as scenarios have on purpose) reads as what it is
        series = []
        for i, sub in enumerate(subs):
            q = per_second([(sent[uid][0], (ts - sent[uid][0]) / 1e6) for (uid, s), ts in first_ack.items()
                            if (s or "?") == sub], frame["start"])
            color = PALETTE[i % len(PALETTE)]
            series += [(f"{sub} p50", color, "", q["p50"]), (f"{sub} p99", color, "6,3", q["p99"])]
    else:
        q = per_second(pairs, frame["start"])
        series = [("p50", PALETTE[0], "", q["p50"]), ("p99", PALETTE[4], "6,3", q["p99"])]
    worst = max(v for _, v in pairs)
    caption = (f"{len(pairs)} acknowledgements over {len(subs)} subscription(s); worst {_ms(worst)}. From the broker's "
               "acknowledgement of the send (send_ok) to the consumer's ack of the same message, by the second of "
               "the send; when send() was called is not in the capture.")
    return _figure("latency", LATENCY, chart(LATENCY, series, frame, y_label="ms", log=True), caption)


def delivery_picture(events: dict, frame: dict) -> dict:
    sent = _sends(events)
    delivered: dict[str, dict[str, int]] = {}
    for ts, kind, cluster, uid in zip(events["ts_ns"], events["kind"], events["cluster"], events["uid"], strict=True):
        if kind == "receive":
            on = delivered.setdefault(cluster or "?", {})
            if uid not in on or ts < on[uid]:
                on[uid] = ts
    by_cluster: dict[str, list[int]] = {}
    for ts, cluster in sent.values():
        by_cluster.setdefault(cluster, []).append(ts)
    clusters = sorted(set(by_cluster) | set(delivered))
    if not clusters:
        return _figure("delivery", DELIVERY, "", "", "the capture has no acknowledged send and no delivery")
    series = []
    for i, cluster in enumerate(clusters):
        color = PALETTE[i % len(PALETTE)]
        if cluster in by_cluster:
            series.append((f"sent via {cluster}", color, "", _cumulative(by_cluster[cluster], frame["start"], frame["seconds"])))
        if cluster in delivered:
            series.append((f"delivered on {cluster}", color, "6,3",
                           _cumulative(list(delivered[cluster].values()), frame["start"], frame["seconds"])))
    caption = ("Distinct messages a broker acknowledged, per cluster the producer was attached to (solid), and distinct "
               "messages delivered on each cluster (dashed), cumulative: " +
               "; ".join(f"{c}: " + ", ".join(([f"{len(by_cluster[c])} sent"] if c in by_cluster else [])
                                                + [f"{len(delivered.get(c, {}))} delivered"]) for c in clusters) + ".")
    return _figure("delivery", DELIVERY, chart(DELIVERY, series, frame, y_label="messages"), caption)


def placed_delivery_picture(events: dict, frame: dict, stored: placement.Stored) -> dict:
    """Sent vs delivered of a cluster-migration capture by the cluster that stored each send and the
    cluster each delivery came from (reports/view/placement.py), not by the cluster the clients attached
    through, which is blue for every row: the switch to green is the picture. Sends the placement
    does not cover keep the cluster they went through, said as not placed."""
    sent: dict[tuple[str, str], tuple[int, str]] = {}
    delivered: dict[str, dict[tuple[str, str], int]] = {}
    for ts, kind, cluster, topic, uid, msg_id in zip(events["ts_ns"], events["kind"], events["cluster"],
                                                     events["topic"], events["uid"], events["msg_id"], strict=True):
        if kind == "send_ok":
            where = stored.send(topic, uid, cluster)
            key = f"stored on {where}" if where else f"via {cluster or '?'}, not placed"
            if (topic, uid) not in sent or ts < sent[(topic, uid)][0]:
                sent[(topic, uid)] = (ts, key)
        elif kind == "receive":
            where = stored.receive(topic, uid, msg_id, cluster)
            key = f"from {where}" if where else f"via {cluster or '?'}, not placed"
            on = delivered.setdefault(key, {})
            if (topic, uid) not in on or ts < on[(topic, uid)]:
                on[(topic, uid)] = ts
    by_key: dict[str, list[int]] = {}
    for ts, key in sent.values():
        by_key.setdefault(key, []).append(ts)
    clusters = sorted({k.split(" ", 2)[-1] for k in by_key if k.startswith("stored on ")}
                      | {k.split(" ", 1)[-1] for k in delivered if k.startswith("from ")})
    series, said = [], []
    for i, cluster in enumerate(clusters):
        color = PALETTE[i % len(PALETTE)]
        if f"stored on {cluster}" in by_key:
            series.append((f"stored on {cluster}", color, "",
                           _cumulative(by_key[f"stored on {cluster}"], frame["start"], frame["seconds"])))
            said.append(f"{len(by_key[f'stored on {cluster}'])} stored on {cluster}")
        if f"from {cluster}" in delivered:
            series.append((f"delivered from {cluster}", color, "6,3",
                           _cumulative(list(delivered[f"from {cluster}"].values()), frame["start"], frame["seconds"])))
            said.append(f"{len(delivered[f'from {cluster}'])} delivered from {cluster}")
    others = sorted({k for k in by_key if not k.startswith("stored on ")} | {k for k in delivered if not k.startswith("from ")})
    for key in others:
        if key in by_key:
            series.append((f"sent {key}", PALETTE[-1], "", _cumulative(by_key[key], frame["start"], frame["seconds"])))
            said.append(f"{len(by_key[key])} sent {key}")
        if key in delivered:
            series.append((f"delivered {key}", PALETTE[-1], "6,3",
                           _cumulative(list(delivered[key].values()), frame["start"], frame["seconds"])))
            said.append(f"{len(delivered[key])} delivered {key}")
    if not series:
        return _figure("delivery", DELIVERY, "", "", "the capture has no acknowledged send and no delivery")
    unplaced = "".join(f"; {why}" for why in stored.unplaced)
    caption = ("Distinct messages a broker acknowledged, by the cluster that stored them (solid), and distinct messages "
               "delivered, by the cluster each delivery came from (dashed), cumulative: " + ", ".join(said) + ". Every "
               f"client of the capture is attached through {placement.ATTACHED}, which is all its cluster column says; "
               f"where each send was stored is from {stored.source}{unplaced}.")
    return _figure("delivery", DELIVERY, chart(DELIVERY, series, frame, y_label="messages"), caption)


def lag_picture(events: dict, frame: dict) -> dict:
    sent = _sends(events)
    first: dict[tuple[str, str], int] = {}
    for ts, kind, cluster, uid in zip(events["ts_ns"], events["kind"], events["cluster"], events["uid"], strict=True):
        if kind == "receive" and uid in sent and cluster and sent[uid][1] not in ("?", cluster):
            if (uid, cluster) not in first or ts < first[(uid, cluster)]:
                first[(uid, cluster)] = ts
    if not first:
        labels = sorted({c or "?" for c, k in zip(events["cluster"], events["kind"], strict=True)
                         if k in ("send_ok", "receive")})
        why = ("no delivery crosses a link: every message was delivered through a client labelled with the cluster it "
               f"was sent through ({', '.join(labels) or 'none'}). The capture labels each event with the cluster "
               "the scenario knew its client was attached to, so replication lag is not derivable from this capture")
        return _figure("lag", LAG, "", "", why)
    links: dict[str, list[tuple[int, float]]] = {}
    for (uid, cluster), ts in first.items():
        at, origin = sent[uid]
        links.setdefault(f"{origin} → {cluster}", []).append((at, (ts - at) / 1e6))
    series, notes = [], []
    for i, (link, pairs) in enumerate(sorted(links.items())):
        q = per_second(pairs, frame["start"])
        color = PALETTE[i % len(PALETTE)]
        series += [(f"{link} p50", color, "", q["p50"]), (f"{link} p99", color, "6,3", q["p99"])]
        origin = link.split(" → ")[0]
        never = sum(1 for uid, (_, c) in sent.items() if c == origin and (uid, link.split(" → ")[1]) not in first)
        notes.append(f"{link}: {len(pairs)} messages, worst {_ms(max(v for _, v in pairs))}"
                     + (f", {never} sent through {origin} never delivered on {link.split(' → ')[1]}" if never else ""))
    caption = ("From the broker's acknowledgement of a send through the first cluster to the message's first delivery "
               "on the second, by the second of the send (it includes the second cluster's dispatch to its "
               "consumer): " + "; ".join(notes) + ".")
    return _figure("lag", LAG, chart(LAG, series, frame, y_label="ms", log=True), caption)


def stored_picture(events: dict, frame: dict, stored: dict) -> dict:
    """Per cluster a producer sent through (other than the target): its sends, cumulative by the second
    they were acknowledged, and those of them the target holds, by the same time: where the second
    line stays flat while the first climbs, the sends of those seconds never reached the target."""
    target, on_target = stored.get("cluster") or "target", set(stored.get("uids") or ())
    by_cluster: dict[str, list[tuple[int, str]]] = {}
    for uid, (ts, cluster) in _sends(events).items():
        if cluster != target:
            by_cluster.setdefault(cluster, []).append((ts, uid))
    if not by_cluster:
        return _figure("stored", STORED, "", "", f"no send went through a cluster other than {target}")
    series, notes = [], []
    for i, (cluster, sends) in enumerate(sorted(by_cluster.items())):
        color = PALETTE[i % len(PALETTE)]
        held = [ts for ts, uid in sends if uid in on_target]
        missing = sorted(ts for ts, uid in sends if uid not in on_target)
        series += [(f"sent via {cluster}", color, "", _cumulative([ts for ts, _ in sends], frame["start"], frame["seconds"])),
                   (f"of them on {target}", PALETTE[(i + 1) % len(PALETTE)], "6,3",
                    _cumulative(held, frame["start"], frame["seconds"]))]
        where = (f"; the {len(missing)} missing were sent between +{(missing[0] - frame['start']) / 1e9:.1f} s and "
                 f"+{(missing[-1] - frame['start']) / 1e9:.1f} s" if missing else "")
        notes.append(f"{len(held)} of the {len(sends)} sent via {cluster} are on {target}{where}")
    caption = (f"Every send a broker acknowledged (solid) and those of them {target} holds when the scenario read it "
               "(dashed), both by the second the send was acknowledged: " + "; ".join(notes) + ".")
    return _figure("stored", STORED, chart(STORED, series, frame, y_label="messages"), caption)


def nice_step(rough: float) -> float:
    """1, 2 or 5 times a power of ten, the smallest not below ``rough``."""
    power = 10 ** math.floor(math.log10(rough))
    return next(f * power for f in (1, 2, 5, 10) if f * power >= rough)


def _cumulative(times: list[int], start: int, seconds: float) -> list[tuple[float, float]]:
    """The cumulative count at the end of every second of the capture (flat where nothing happened)."""
    last = max(1, math.ceil(seconds)) - 1  # the capture's last event ends the last second
    per: dict[int, int] = {}
    for ts in times:
        second = min(int((ts - start) // 1_000_000_000), last)
        per[second] = per.get(second, 0) + 1
    out, total = [(0.0, 0.0)], 0
    for second in range(last + 1):
        total += per.get(second, 0)
        out.append((min(second + 1.0, seconds), float(total)))
    return out


def _ms(value: float) -> str:
    return f"{value / 1000:.1f} s" if value >= 1000 else f"{value:.1f} ms"


def _figure(key: str, title: str, svg: str, caption: str, why: str = "") -> dict:
    return {"id": key, "title": title, "svg": svg, "caption": caption, "why": why}


def chart(title: str, series: list[tuple[str, str, str, list[tuple[float, float]]]], frame: dict, *,
          y_label: str, log: bool = False) -> str:
    """Lines (name, colour, dash, [(second, value)]) over the capture's seconds, faults shaded."""
    pw, ph = W - LEFT - RIGHT, H - TOP - BOTTOM
    seconds = frame["seconds"]
    values = [v for *_, points in series for _, v in points]
    if log:
        floor = 0.1  # ms: a delivery recorded before the producer's callback ran is drawn at the floor
        low = 10 ** math.floor(math.log10(max(floor, min(values, default=1))))
        high = 10 ** math.ceil(math.log10(max(low * 10, max(values, default=1))))
        ticks = [low * 10 ** i for i in range(round(math.log10(high / low)) + 1)]

        def y(v: float) -> float:
            v = min(max(v, low), high)
            return TOP + ph * (1 - math.log10(v / low) / math.log10(high / low))
    else:
        step = nice_step(max(1.0, max(values, default=1)) / 4)
        high = step * math.ceil(max(1.0, max(values, default=1)) / step)
        ticks = [step * i for i in range(round(high / step) + 1)]

        def y(v: float) -> float:
            return TOP + ph * (1 - v / high)

    def x(second: float) -> float:
        return LEFT + pw * min(max(second, 0), seconds) / seconds

    def at(ns: int) -> float:
        return x((ns - frame["start"]) / 1e9)

    rows = len(series) + (1 if frame["faults"] else 0)
    legend_step = LEGEND_STEP if TOP + 10 + LEGEND_STEP * (rows - 1) + 4 <= H else max(13.0, (H - TOP - 14) / max(rows - 1, 1))
    height = max(H, math.ceil(TOP + 10 + legend_step * (rows - 1) + 4))  # a long legend makes the picture taller
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" class="plot" viewBox="0 0 {W} {height}" width="{W}" '
             f'height="{height}" role="img"><title>{escape(title)}</title>',
             f'<rect x="{LEFT}" y="{TOP}" width="{pw}" height="{ph}" fill="#fafafa" stroke="#ccc"/>']
    for f in frame["faults"]:
        # each band's edges drawn, so faults that overlap stay apart where they begin and end
        x0, x1 = at(f["from"]), at(f["from"]) + max(1.5, at(f["to"]) - at(f["from"]))
        parts.append(f'<rect class="fault" x="{x0:.1f}" y="{TOP}" width="{x1 - x0:.1f}" height="{ph}" fill="{FAULT_FILL}" '
                     f'fill-opacity="0.6"><title>fault {f.get("letter", "")}: {escape(f["label"])}</title></rect>'
                     f'<line x1="{x0:.1f}" y1="{TOP}" x2="{x0:.1f}" y2="{TOP + ph}" stroke="{FAULT_EDGE}"/>'
                     f'<line x1="{x1:.1f}" y1="{TOP}" x2="{x1:.1f}" y2="{TOP + ph}" stroke="{FAULT_EDGE}" '
                     'stroke-dasharray="1,2"/>')
    for t in ticks:
        label = _ms(t).replace(".0 ", " ") if log else f"{t:.0f}"
        parts.append(f'<line x1="{LEFT}" y1="{y(t):.1f}" x2="{LEFT + pw}" y2="{y(t):.1f}" stroke="#eee"/>'
                     f'<text x="{LEFT - 6}" y="{y(t) + 4:.1f}" text-anchor="end" font-size="11">{label}</text>')
    # above the top tick's label, not on it
    parts.append(f'<text x="{LEFT - 6}" y="{TOP - 10}" text-anchor="end" font-size="10">{escape(y_label)}'
                 f'{" (log)" if log else ""}</text>')
    tick = max(1, round(seconds / 8))
    for s in range(0, int(seconds) + 1, tick):
        parts.append(f'<text x="{x(s):.1f}" y="{H - BOTTOM + 18}" text-anchor="middle" font-size="11">{s}s</text>')
    for m in frame["instants"]:
        mx = at(m["ts_ns"])
        parts.append(f'<line class="marker" x1="{mx:.1f}" y1="{TOP}" x2="{mx:.1f}" y2="{TOP + ph}" stroke="#888" '
                     f'stroke-dasharray="3,3"><title>{escape(m.get("label", ""))}</title></line>')
    parts += mark_labels(frame, at, LEFT, LEFT + pw, TOP)
    for i, (name, color, dash, points) in enumerate(series):
        # a second without a value breaks the line: nothing was measured there, so nothing is drawn
        runs: list[list[tuple[float, float]]] = []
        for point in points:
            if runs and point[0] - runs[-1][-1][0] <= 1.5:
                runs[-1].append(point)
            else:
                runs.append([point])
        d = " ".join(f"{'M' if j == 0 else 'L'}{x(s):.1f},{y(v):.1f}" for run in runs for j, (s, v) in enumerate(run))
        dots = "".join(f'<circle cx="{x(run[0][0]):.1f}" cy="{y(run[0][1]):.1f}" r="2" fill="{color}"/>'
                       for run in runs if len(run) == 1)
        dashed = f' stroke-dasharray="{dash}"' if dash else ""
        if d:
            parts.append(f'<g class="series"><title>{escape(name)}</title><path d="{d}" fill="none" stroke="{color}" '
                         f'stroke-width="1.8"{dashed}/>{dots}</g>')
        ly = TOP + 10 + legend_step * i
        parts.append(f'<line x1="{W - RIGHT + 12}" y1="{ly - 4:.1f}" x2="{W - RIGHT + 36}" y2="{ly - 4:.1f}" '
                     f'stroke="{color}" stroke-width="2"{dashed}/>' + legend_text(W - RIGHT + 42, ly, name, W - 4))
    if frame["faults"]:
        ly = TOP + 10 + legend_step * len(series)
        parts.append(f'<rect x="{W - RIGHT + 12}" y="{ly - 10:.1f}" width="24" height="10" fill="{FAULT_FILL}"/>'
                     + legend_text(W - RIGHT + 42, ly, "fault (lettered)", W - 4))
    parts.append("</svg>")
    return "".join(parts)
