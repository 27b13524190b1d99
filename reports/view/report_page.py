"""report.html: one bundle's page, from templates/report.html.j2 (the rows in the order view/report_view.py
arranges them, each capture's pictures from view/plots.py and its timeline from view/timeline.py, evidence as
reports/bundle/readable.py decodes it). certify's bundle (reports/runner/build.py) and a re-judged one
(reports/runner/rejudge.py) are written through here."""
from __future__ import annotations

from pathlib import Path

from ..bundle.readable import evidence_text
from . import plots
from .report_view import MODEL_WORDS, arrange, evidence_split
from .timeline import svg


def render(summary, rows, checks, captures, spec, policy_values=(), failovers=(), out: Path | None = None) -> str:
    """report.html of a bundle: ``summary`` and its ``rows`` and ``checks``, ``captures`` and ``spec``
    (reports/bundle/contents.py), the policy values and failover timelines (view/values.py, view/failover.py);
    ``out``, the bundle's folder, for each capture's pictures (none without it)."""
    from jinja2 import Environment, FileSystemLoader, select_autoescape

    env = Environment(loader=FileSystemLoader(Path(__file__).parent / "templates"),
                      autoescape=select_autoescape(["html", "j2"]))
    columns = sorted({c["check"] for c in checks} | {cid for r in rows for cid in r["checks"]},
                     key=lambda c: (c.startswith("spec:"), c))
    cells = {}
    for c in checks:
        for rid in c["requirements"]:
            cells[(rid, c["check"])] = c["verdict"]
    captures = [_pictured(cap, out) for cap in captures]
    return env.get_template("report.html.j2").render(
        s=summary, rows=rows, groups=arrange(rows, summary.get("declared")),
        model_words=MODEL_WORDS, model_checks={c["check"] for c in checks if c.get("kind") == "model"},
        columns=columns, cells=cells, captures=captures, spec=spec, policy_values=policy_values,
        failovers=failovers, evidence_text=evidence_text, evidence_split=evidence_split,
        failing=[c for c in summary["tests"] if c["outcome"] != "passed"])


def _pictured(capture: dict, out: Path | None) -> dict:
    """A capture with its pictures (latency, delivered vs sent, replication lag) and its timeline, drawn from its
    folder in the bundle ``out``; without the folder at hand, none."""
    if out is None:
        return dict(capture, plots=None, svg=capture.get("svg", ""))
    where = out / capture["path"]
    return dict(capture, plots=plots.pictures(where), svg=svg(where) if (where / "events").exists() else "")
