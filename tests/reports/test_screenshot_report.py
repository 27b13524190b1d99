"""The report of recorded runs (tests/reports/recorded_report.py) in headless Chromium at 1,280 px, as a
reader's browser lays it out (issue 51 point 8): nothing wider than the window (the coverage matrix
of 59 checks was 3,700 px), and in the pictures of every capture no text drawn over another or cut at
the picture's edge (the timeline printed each marker's label at its line: close ones overprinted and
the last ran off the right). A copy of the page with a small measuring script is what Chromium
loads; the report itself has no script. The screenshot stays in the test's folder (its path is
printed), not in the repository.
"""
from __future__ import annotations

import html
import json
import re
import subprocess
from pathlib import Path

import pytest

from tests.support.tools import unavailable

from . import recorded_report
from .chromium import FLAGS, ensure_chromium, screenshot

WIDTH = 1280

# Runs once the page has loaded, and writes what it measured into the page, which --dump-dom prints:
# the window's width, the page's and each coverage table's width, and per picture (class plot or
# timeline) every <text> whose box leaves the picture or meets another's box.
MEASURE = r"""<script>
window.addEventListener("load", function () {
  var out = {viewport: document.documentElement.clientWidth, page: document.documentElement.scrollWidth,
             tables: [], pictures: []};
  document.querySelectorAll("table.coverage, table.matrix").forEach(function (t) {
    var r = t.getBoundingClientRect();
    out.tables.push({id: t.id || t.className, right: r.right, width: t.scrollWidth});
  });
  document.querySelectorAll("svg.plot, svg.timeline").forEach(function (svg, k) {
    var box = svg.getBoundingClientRect(), texts = [], clipped = [], overlaps = [];
    svg.querySelectorAll("text").forEach(function (t) {
      var r = t.getBoundingClientRect();
      var said = Array.prototype.filter.call(t.childNodes, function (n) { return n.nodeType === 3; })
                   .map(function (n) { return n.textContent; }).join("");
      texts.push({text: said, l: r.left, r: r.right, t: r.top, b: r.bottom});
      if (r.left < box.left - 0.5 || r.right > box.right + 0.5 || r.top < box.top - 0.5 || r.bottom > box.bottom + 0.5)
        clipped.push(said);
    });
    for (var i = 0; i < texts.length; i++) for (var j = i + 1; j < texts.length; j++) {
      var a = texts[i], b = texts[j];
      if (Math.min(a.r, b.r) - Math.max(a.l, b.l) > 0.5 && Math.min(a.b, b.b) - Math.max(a.t, b.t) > 0.5)
        overlaps.push([a.text, b.text]);
    }
    var fig = svg.closest("figure"), head = (fig || svg).previousElementSibling;
    while (head && head.tagName !== "H3") head = head.previousElementSibling;
    out.pictures.push({n: k, kind: svg.getAttribute("class"), plot: fig ? fig.getAttribute("data-plot") : "timeline",
                       capture: head ? head.textContent.trim().split(" ")[0] : "?", width: box.width,
                       right: box.right, texts: texts.length, clipped: clipped, overlaps: overlaps,
                       marks: svg.querySelectorAll("text.mark-label").length});
  });
  var pre = document.createElement("pre");
  pre.id = "measured";
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
});
</script>"""


@pytest.fixture(scope="module")
def bundle(tmp_path_factory) -> Path:
    return recorded_report.build(tmp_path_factory.mktemp("screenshot") / "bundle")


@pytest.fixture(scope="module")
def browser() -> str:
    found, why = ensure_chromium()
    if not found:
        unavailable("chromium", why)
    return found


def measure(browser: str, report: Path, profile: Path) -> dict:
    page = report.read_text()
    assert "<script" not in page  # the report has none: the measuring one goes into a copy
    copy = report.with_name("measure.html")
    copy.write_text(page.replace("</body>", MEASURE + "</body>"))
    command = [browser, *FLAGS, f"--user-data-dir={profile}", f"--window-size={WIDTH},900", "--dump-dom",
               copy.resolve().as_uri()]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)
    found = re.search(r'<pre id="measured">(.*?)</pre>', done.stdout, re.S)
    assert found, f"the measuring script wrote nothing: {' '.join(command)}\n{done.stderr[-800:]}"
    return json.loads(html.unescape(found.group(1)))


def test_the_report_fits_a_1280_px_window_and_no_label_in_its_pictures_meets_another(bundle, browser, tmp_path):
    got = measure(browser, bundle / "report.html", tmp_path / "profile")
    viewport = got["viewport"]
    assert WIDTH - 20 <= viewport <= WIDTH, got["viewport"]  # the window less its scroll bar
    # nothing on the page is wider than the window: no sideways scrolling
    assert got["page"] <= viewport, f"the page is {got['page']} px wide in a {viewport} px window"
    assert got["tables"], "no coverage table measured"
    for table in got["tables"]:
        assert table["width"] <= viewport and table["right"] <= viewport, table
    # every capture's timeline and pictures: labels apart and inside the picture
    pictures = got["pictures"]
    assert {p["capture"] for p in pictures} == set(recorded_report.CAPTURES), pictures
    assert sum(p["marks"] for p in pictures) >= 40  # the letters and numbers are there to be measured
    for p in pictures:
        where = f"{p['capture']} {p['plot']}"
        assert p["right"] <= viewport, f"{where}: the picture ends at {p['right']} px"
        assert not p["clipped"], f"{where}: cut at the picture's edge: {p['clipped']}"
        assert not p["overlaps"], f"{where}: texts drawn over each other: {p['overlaps']}"


def test_a_screenshot_at_1280_px(bundle, browser, tmp_path):
    png = bundle.parent / "report-1280.png"
    screenshot(browser, bundle / "report.html", png, tmp_path / "profile", width=WIDTH, height=9000)
    head = png.read_bytes()[:24]  # the PNG signature, then the IHDR chunk: width and height, big-endian
    assert head[:8] == b"\x89PNG\r\n\x1a\n" and head[12:16] == b"IHDR"
    assert (int.from_bytes(head[16:20], "big"), int.from_bytes(head[20:24], "big")) == (WIDTH, 9000)
    print(f"screenshot: {png}")
