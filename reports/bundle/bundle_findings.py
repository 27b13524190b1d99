"""The findings a bundle cites, written into the bundle (findings.md and findings.html), so that its report's and
its summary's links work offline, without the suite's checkout (issue 51: "the bundle explains its FAILs").

Each requirement row's findings (reports/bundle/verdicts.requirement_rows, already narrowed to the run's scope) keep
their place in docs/findings.md as ``source`` and point at the bundle's own page as ``href``
(``findings.html#<anchor>``, the anchor GitHub gives the heading). Only the cited findings are copied, each
with its whole section as docs/findings.md has it at the suite's commit.
"""
from __future__ import annotations

import html
import re
from pathlib import Path

from pulsar_conformance.conformance.harness import findings as index

MARKDOWN = "findings.md"
PAGE = "findings.html"


def cited(rows: list[dict]) -> list[index.Finding]:
    """The findings the rows link, once each, in docs/findings.md's order (unknown ids are left out)."""
    wanted = {f["id"] for r in rows for f in r.get("findings") or ()}
    return [f for fid, f in index.load().findings.items() if fid in wanted]


def write(out: Path, rows: list[dict], commit: str | None = None) -> list[str]:
    """Write the cited findings into ``out`` and point each row's links at them; the files written (none when
    nothing is cited, or when the suite has no docs/findings.md: the links then stay as they were)."""
    found = cited(rows)
    if not found:
        return []
    anchors = {f.id: f.anchor for f in found}
    for row in rows:
        for link in row.get("findings") or ():
            if link["id"] in anchors:
                link.setdefault("source", link["href"])
                link["href"] = f"{PAGE}#{anchors[link['id']]}"
    where = f"docs/findings.md of the suite{f' at commit {commit}' if commit else ''}"
    (out / MARKDOWN).write_text(markdown(found, where))
    (out / PAGE).write_text(page(found, where))
    return [MARKDOWN, PAGE]


def markdown(found: list[index.Finding], where: str) -> str:
    head = [f"# The findings this bundle cites ({len(found)})", "",
            f"Copied from {where}: each explains a requirement's verdict in this run, and its scope line says the "
            "releases, topology, configuration store and client it holds for.", ""]
    return "\n".join(head) + "\n".join(f.text for f in found)


_INLINE = [(re.compile(r"`([^`]+)`"), r"<code>\1</code>"), (re.compile(r"\*\*([^*]+)\*\*"), r"<b>\1</b>"),
           (re.compile(r"(?<![\w*])\*([^*\n]+)\*(?![\w*])"), r"<i>\1</i>")]


def _inline(text: str) -> str:
    text = html.escape(text, quote=False)
    for pattern, replacement in _INLINE:
        text = pattern.sub(replacement, text)
    return text


def _body(lines: list[str]) -> str:
    """A finding's markdown as HTML paragraphs, list items and tables' rows kept as text: enough to read offline."""
    parts, paragraph, items = [], [], []

    def flush() -> None:
        if paragraph:
            parts.append(f"<p>{_inline(' '.join(paragraph))}</p>")
            paragraph.clear()
        if items:
            parts.append("<ul>" + "".join(f"<li>{_inline(i)}</li>" for i in items) + "</ul>")
            items.clear()

    for line in lines:
        if not line.strip():
            flush()
        elif line.startswith("- "):
            if paragraph:
                flush()
            items.append(line[2:])
        elif items and line.startswith("  "):
            items[-1] += " " + line.strip()
        else:
            if items:
                flush()
            paragraph.append(line.strip())
    flush()
    return "\n".join(parts)


def page(found: list[index.Finding], where: str) -> str:
    sections = []
    for f in found:
        lines = f.text.splitlines()[1:]  # the heading is the section's title
        scope = lines.pop(0) if lines and lines[0].lstrip("*").startswith("Scope:") else ""
        sections.append(f'<section id="{html.escape(f.anchor)}"><h2>{html.escape(f.id)} {_inline(f.title)}</h2>\n'
                        + (f'<p class="scope">{_inline(scope)}</p>\n' if scope else "") + _body(lines) + "</section>")
    return ("<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>Findings this bundle cites</title>\n"
            "<style>body{font-family:system-ui,sans-serif;margin:2em;max-width:60em;color:#222}"
            "section{border-top:1px solid #ccc;margin-top:1.5em}.scope{color:#555;font-size:.9em}"
            "code{background:#f3f3f3;padding:0 .2em}</style></head><body>\n"
            f"<h1>The findings this bundle cites ({len(found)})</h1>\n<p>Copied from {html.escape(where)}; the report "
            "links each failing requirement here. A finding's scope says the releases, topology, configuration store "
            "and client it holds for.</p>\n" + "\n".join(sections) + "\n</body></html>\n")
