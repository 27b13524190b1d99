"""The capture pictures of the report (reports/view/plots.py) on hand-made captures whose figures are known:
quantiles per second, fault intervals from the scenarios' marker labels, sent vs delivered per
cluster, replication lag per link, and what is said instead when the capture cannot support one."""
from __future__ import annotations

import json
import re

import pyarrow as pa
import pyarrow.parquet as pq

from pulsar_conformance.reports.view import plots

S, MS = 1_000_000_000, 1_000_000
T0 = 1_700_000_000 * S


def _capture(tmp_path, rows, markers=()):
    (tmp_path / "events").mkdir()
    columns = {name: [r.get(name) for r in rows] for name in ("ts_ns", "kind", "cluster", "uid", "subscription")}
    pq.write_table(pa.table(columns, schema=pa.schema([("ts_ns", pa.int64()), ("kind", pa.string()),
                                                       ("cluster", pa.string()), ("uid", pa.string()),
                                                       ("subscription", pa.string())])),
                   tmp_path / "events" / "part-0.parquet")
    (tmp_path / "markers.json").write_text(json.dumps(list(markers)))
    return tmp_path


def _geo(tmp_path, markers=()):
    """p/1..p/10 sent through blue at 0.1 s steps, acked on blue 5 ms later, green gets them 200 ms
    after the send, except p/10 which green never gets."""
    rows = []
    for i in range(1, 11):
        at = T0 + i * 100 * MS
        rows.append({"ts_ns": at, "kind": "send_ok", "cluster": "blue", "uid": f"p/{i}"})
        rows.append({"ts_ns": at + 5 * MS, "kind": "receive", "cluster": "blue", "uid": f"p/{i}", "subscription": "a"})
        rows.append({"ts_ns": at + 5 * MS, "kind": "ack", "cluster": "blue", "uid": f"p/{i}", "subscription": "a"})
        if i < 10:
            rows.append({"ts_ns": at + 200 * MS, "kind": "receive", "cluster": "green", "uid": f"p/{i}",
                         "subscription": "b"})
    rows.append({"ts_ns": T0 + 3 * S, "kind": "send_ok", "cluster": "blue", "uid": "late/1"})
    return _capture(tmp_path, rows, markers)


def test_quantiles_are_observed_values_per_second():
    assert plots.quantile([1, 2, 3, 4], 0.5) == 2 and plots.quantile([1, 2, 3, 4], 0.99) == 4
    assert plots.quantile([7], 0.99) == 7
    q = plots.per_second([(T0 + 100 * MS, 5.0), (T0 + 900 * MS, 1.0), (T0 + 2 * S, 9.0)], T0)
    assert q == {"p50": [(0.5, 1.0), (2.5, 9.0)], "p99": [(0.5, 5.0), (2.5, 9.0)]}


def test_faults_are_paired_from_the_scenarios_labels():
    markers = [{"ts_ns": T0 + 9 * S, "label": "client primary -> s1"},
               {"ts_ns": T0 + 2 * S, "label": "replication cut blue<->green"},
               {"ts_ns": T0 + 5 * S, "label": "replication healed"},
               {"ts_ns": T0 + 6 * S, "label": "primary killed (SIGKILL)"},
               {"ts_ns": T0 + 7 * S, "label": "s1 paused (SIGSTOP: port open, nothing served)"},
               {"ts_ns": T0 + 8 * S, "label": "primary started; its port opened +5 ms after the last refusal"},
               {"ts_ns": T0 + 10 * S, "label": "producers stop"}]
    faults, instants = plots.fault_intervals(markers, T0, T0 + 20 * S)
    assert [(f["from"] - T0, f["to"] - T0) for f in faults] == [(2 * S, 5 * S), (6 * S, 8 * S), (7 * S, 20 * S)]
    assert faults[0]["label"] == "replication cut blue<->green … replication healed"
    # an end with no fault of its subject open, and plain steps, are instants ("producers stop" is no fault)
    assert [m["label"] for m in instants] == ["client primary -> s1", "producers stop"]


def test_a_geo_capture_draws_latency_delivery_and_the_link_with_the_cut_shaded(tmp_path):
    cut = [{"ts_ns": T0 + 300 * MS, "label": "replication cut blue<->green"},
           {"ts_ns": T0 + 600 * MS, "label": "replication healed"}]
    found = plots.pictures(_geo(tmp_path, cut))
    latency, delivery, lag = found["figures"]
    assert [f["title"] for f in found["figures"]] == [plots.LATENCY, plots.DELIVERY, plots.LAG]
    assert all(f["svg"].startswith("<svg") and not f["why"] for f in found["figures"])
    assert all(f["svg"].count('class="fault"') == 1 for f in found["figures"])
    assert found["faults"] == [{"letter": "A", "label": "replication cut blue<->green … replication healed",
                                "from_s": 0.2, "to_s": 0.5}]  # seconds from the first event (T0 + 0.1 s)
    assert "10 acknowledgements over 1 subscription(s); worst 5.0 ms" in latency["caption"]
    assert "blue: 11 sent, 10 delivered; green: 9 delivered" in delivery["caption"]
    assert "blue → green: 9 messages, worst 200.0 ms, 2 sent through blue never delivered on green" in lag["caption"]
    assert re.findall(r'<g class="series"><title>([^<]+)</title>', lag["svg"]) == ["blue → green p50",
                                                                                  "blue → green p99"]


def test_what_a_capture_cannot_support_is_said_not_drawn(tmp_path):
    rows = [{"ts_ns": T0, "kind": "send_ok", "cluster": "blue", "uid": "p/1"},
            {"ts_ns": T0 + S, "kind": "receive", "cluster": "blue", "uid": "p/1", "subscription": "a"}]
    latency, delivery, lag = plots.pictures(_capture(tmp_path, rows))["figures"]
    assert (latency["svg"], latency["why"]) == ("", "no consumer acknowledged a captured send")
    assert delivery["svg"].startswith("<svg")
    assert lag["svg"] == "" and "replication lag is not derivable" in lag["why"] and "(blue)" in lag["why"]


def test_a_capture_without_events_draws_nothing_and_says_so(tmp_path):
    (tmp_path / "events").mkdir()
    found = plots.pictures(tmp_path)
    assert [f["why"] for f in found["figures"]] == ["the capture has no events"] * 3
    assert found["faults"] == [] and found["marks"] == []


def test_a_silent_stretch_is_flat_in_the_cumulative_counts_and_a_gap_in_the_quantiles(tmp_path):
    assert plots._cumulative([T0, T0 + 5 * S + 1], T0, 6.0) == [
        (0.0, 0.0), (1.0, 1.0), (2.0, 1.0), (3.0, 1.0), (4.0, 1.0), (5.0, 1.0), (6.0, 2.0)]
    assert plots._cumulative([T0, T0 + 2 * S], T0, 2.0)[-1] == (2.0, 2.0)  # the last event is counted
    frame = {"start": T0, "seconds": 10.0, "faults": [], "instants": []}
    svg = plots.chart("t", [("s", "#000", "", [(0.5, 1.0), (1.5, 2.0), (8.5, 3.0)])], frame, y_label="ms", log=True)
    d = re.search(r'<path d="([^"]+)"', svg).group(1)
    assert d.count("M") == 2  # 1.5 s -> 8.5 s is not joined: nothing was measured in between
    assert svg.count("<circle") == 1  # the lone point is still seen


def test_what_the_target_holds_is_drawn_against_the_sends_where_the_scenario_read_it(tmp_path):
    """The TTL scenario's shape: 8 sends via blue, one every second, under a cut from +1 s to +5 s;
    green holds the sends of +0 s and from +5 s on (the TTL expired those of +1..+4 s)."""
    rows = [{"ts_ns": T0 + i * S, "kind": "send_ok", "cluster": "blue", "uid": f"p/{i}"} for i in range(8)]
    cut = [{"ts_ns": T0 + S, "label": "A -> B cut: B unreachable from A"},
           {"ts_ns": T0 + 5 * S, "label": "A -> B healed: B reachable again after 4.0 s"}]
    capture = _capture(tmp_path, rows, cut)
    without = plots.pictures(capture)["figures"]
    assert [f["id"] for f in without] == ["latency", "delivery", "lag"]  # no stored.json: nothing more
    (capture / plots.STORED_FILE).write_text(json.dumps({"cluster": "green", "uids": ["p/0", "p/5", "p/6", "p/7"]}))
    found = plots.pictures(capture)
    stored = found["figures"][-1]
    assert stored["title"] == plots.STORED and stored["svg"].startswith("<svg") and not stored["why"]
    assert "4 of the 8 sent via blue are on green; the 4 missing were sent between +1.0 s and +4.0 s" in stored["caption"]
    assert re.findall(r'<g class="series"><title>([^<]+)</title>', stored["svg"]) == ["sent via blue", "of them on green"]
    assert found["faults"] == [{"letter": "A",
                                "label": "A -> B cut: B unreachable from A … A -> B healed: B reachable again after 4.0 s",
                                "from_s": 1.0, "to_s": 5.0}]
    # sends only through the target itself: nothing to compare, said instead of drawn
    (capture / plots.STORED_FILE).write_text(json.dumps({"cluster": "blue", "uids": []}))
    assert "no send went through a cluster other than blue" in plots.pictures(capture)["figures"][-1]["why"]


def _boxes(svg: str) -> list[tuple[str, float, float, float]]:
    """(text, left, right, baseline) of each fault letter and marker number, by the estimate the layout uses."""
    from pulsar_conformance.reports.view.svg_labels import text_width

    return [(t, float(x), float(x) + text_width(t, 10), float(y)) for x, y, t in
            re.findall(r'<text class="mark-label" x="([\d.]+)" y="([\d.]+)"[^>]*><title>[^<]*</title>([^<]+)</text>', svg)]


def test_close_marks_and_faults_get_rows_of_their_own_and_stay_inside_the_plot():
    """Four markers in one second and two faults starting there (the java-stale-failure scenario kills
    and restarts clusters milliseconds apart): the numbers were staggered over three rows, so the
    first and the fourth were drawn on one another, and a fault's band had no name at all."""
    frame = {"start": T0, "seconds": 20.0,
             "faults": [{"from": T0 + 5 * S, "to": T0 + 9 * S, "label": "primary killed … primary started", "letter": "A"},
                        {"from": T0 + 5 * S + MS, "to": T0 + 20 * S, "label": "s1 killed", "letter": "B"}],
             "instants": [{"ts_ns": T0 + 5 * S + i * MS, "label": f"step {i}"} for i in range(4)]
             + [{"ts_ns": T0 + 20 * S, "label": "producers stop"}]}
    svg = plots.chart("t", [("s", "#000", "", [(0.5, 1.0)])], frame, y_label="messages")
    boxes = _boxes(svg)
    assert sorted(t for t, *_ in boxes) == ["1", "2", "3", "4", "5", "A", "B"]
    for i, a in enumerate(boxes):
        for b in boxes[i + 1:]:
            apart = a[3] != b[3] or a[2] <= b[1] or b[2] <= a[1]
            assert apart, (a, b)
    right = plots.W - plots.RIGHT
    assert all(plots.LEFT <= left and end <= right for _, left, end, _ in boxes), boxes  # "5" at the edge too
    assert '<title>fault A: primary killed … primary started</title>' in svg


def test_a_legend_name_too_long_for_its_column_is_cut_and_said_whole_in_its_title():
    frame = {"start": T0, "seconds": 10.0, "faults": [], "instants": []}
    name = "persistent://tenant/namespace/a-topic-with-a-long-name p99"
    svg = plots.chart("t", [(name, "#000", "", [(0.5, 1.0)])], frame, y_label="ms")
    shown = re.search(r'<text class="legend"[^>]*><title>([^<]+)</title>([^<]+)</text>', svg)
    assert shown.group(1) == name and shown.group(2).endswith("…") and len(shown.group(2)) < len(name)
    from pulsar_conformance.reports.view.svg_labels import text_width

    assert plots.W - plots.RIGHT + 42 + text_width(shown.group(2), 11) <= plots.W


def test_labels_are_stacked_in_rows_left_to_right_and_pushed_back_from_the_edge():
    from pulsar_conformance.reports.view.svg_labels import fit, stack, text_width

    assert stack([(10, 5), (11, 5), (30, 5), (98, 10)], 0, 100) == [(13, 0), (14, 1), (33, 0), (85, 0)]
    assert stack([(0, 20)], 5, 100) == [(5, 0)]  # never left of the plot
    assert fit("short", 100, 11) == "short" and text_width(fit("x" * 80, 100, 11), 11) <= 100


def test_the_timeline_numbers_its_markers_and_draws_none_past_its_edge(tmp_path):
    """The timeline printed each marker's whole label at its line: two markers 5 ms apart overprinted,
    and a label near the end ran past the picture (java-stale-failure, stranded-restart)."""
    from pulsar_conformance.reports.view import timeline

    rows = [{"ts_ns": T0 + i * 100 * MS, "kind": "send_ok", "cluster": "blue", "uid": f"p/{i}"} for i in range(100)]
    markers = [{"ts_ns": T0 + 3 * S, "label": "s1 started; its port opened +7 ms after the last refusal"},
               {"ts_ns": T0 + 3 * S + 5 * MS, "label": "s2 killed (SIGKILL)"},
               {"ts_ns": T0 + 9 * S + 900 * MS, "label": "parked closed with 207 in backlog on blue; blue restarted"}]
    svg = timeline.svg(_capture(tmp_path, rows, markers))
    texts = re.findall(r"<text[^>]*>(?:<title>[^<]*</title>)?([^<]*)</text>", svg)
    assert not [m["label"] for m in markers if m["label"] in texts]
    boxes = _boxes(svg)
    assert sorted(t for t, *_ in boxes) == ["1", "2", "A"]  # s2's kill is a fault, the others are steps
    assert all(end <= timeline.W - timeline.RIGHT for *_, end, _ in boxes)
    assert len({(round(left), y) for _, left, _, y in boxes}) == 3 and len({y for *_, y in boxes}) >= 2
