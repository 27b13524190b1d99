"""``compare``'s page (templates/compare.html.j2) and the command that prints a comparison (reports/bundle/
compare.py) as text or JSON and writes the page for ``--html``."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pulsar_conformance.files import check_output_path, write_atomic
from pulsar_conformance.output import emit

from ..bundle.compare import compare, gate, load_all, text
from ..bundle.reading import Bundle


def render_html(doc: dict) -> str:
    from jinja2 import Environment, FileSystemLoader, select_autoescape

    env = Environment(loader=FileSystemLoader(Path(__file__).parent / "templates"),
                      autoescape=select_autoescape(["html", "j2"]))
    return env.get_template("compare.html.j2").render(doc=doc)


@dataclass(frozen=True)
class CompareRequest:
    """``compare``'s options, checked at the CLI's edge (reports/runner/cli.py): the bundles loaded, the page's path writable."""

    bundles: tuple[Bundle, ...]
    html: Path | None = None
    json: bool = False


def compare_request(paths, html: str | None, json_mode: bool) -> CompareRequest:
    target = check_output_path(html, kind="file", option="--html") if html else None
    return CompareRequest(tuple(load_all(paths)), target, json_mode)


def run_compare(request: CompareRequest) -> int:
    doc = compare(list(request.bundles))
    if request.html:
        write_atomic(request.html, render_html(doc))
    emit(request, doc, lambda: text(doc))
    return gate(doc)
