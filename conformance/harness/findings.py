"""Which findings (docs/findings.md) explain a requirement's failure: requirement id -> findings.

Read off the findings' own text, so a finding links itself by naming what it breaks:

- a finding's heading (``### F-188-4 ... (MUST PIP188-R03 fails)``; a short ``R08`` takes the
  prefix of the heading's other ids, else the finding's PIP: ``F-188-8 ... (R08)`` is PIP188-R08);
- a sentence of its body that says an id fails (``PIP121-R08 (SHOULD, the C++ rule) fails``,
  ``a certification of 4.2.4 fails PIP188-R03``);
- the table of MUSTs and the findings that explain them (``| PIP188-R03 | F-188-4, F-188-11 |``).

The report shows these links beside every failing requirement, and says so where none exists
(a failure no finding explains yet). docs/ is not packaged: an install without the checkout has
no index (an empty one, and the report says the index was not found).
"""
from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from pathlib import Path

DOC = Path(__file__).resolve().parents[2] / "docs" / "findings.md"

_HEADING = re.compile(r"^(#{2,4})\s+(F-(\d+|[A-Z]+)-[A-Z]?\d+)\s+(.*?)\s*$")
_ANY_HEADING = re.compile(r"^#{1,4}\s")
_ID = r"(?:PIP\d+|[A-Z]{2,})-R\d{2}"
_FULL = re.compile(rf"\b({_ID})\b")
_SHORT = re.compile(r"(?<![-\w])R(\d{2})\b")
_FAILS_AFTER = re.compile(rf"\b({_ID})\b(?:\s*\([^)]*\))?\s+fails?\b")
_FAILS_BEFORE = re.compile(rf"\bfails?\s+({_ID})\b")
_TABLE_ROW = re.compile(rf"^\|\s*({_ID})\s*\|\s*((?:F-[\w-]+)(?:\s*,\s*F-[\w-]+)*)\s*\|")


@dataclass(frozen=True)
class Finding:
    id: str
    title: str

    @property
    def anchor(self) -> str:
        """The heading's anchor as GitHub renders docs/findings.md."""
        text = f"{self.id} {self.title}".lower()
        text = re.sub(r"[^\w\- ]", "", text)
        return text.replace(" ", "-")

    def to_json(self) -> dict:
        return {"id": self.id, "title": self.title, "href": f"docs/findings.md#{self.anchor}"}


def parse(text: str) -> dict[str, list[Finding]]:
    """Requirement id -> the findings that say it fails, in the order of the file."""
    index: dict[str, list[Finding]] = {}
    findings: dict[str, Finding] = {}
    current: Finding | None = None

    def link(rid: str, finding: Finding | None) -> None:
        if finding is not None and finding not in index.setdefault(rid, []):
            index[rid].append(finding)

    for line in text.splitlines():
        heading = _HEADING.match(line)
        if heading:
            _, fid, area, title = heading.groups()
            current = findings.setdefault(fid, Finding(fid, title))
            full = _FULL.findall(title)
            prefix = full[-1].rsplit("-", 1)[0] if full else (f"PIP{area}" if area.isdigit() else area)
            for rid in full + [f"{prefix}-R{n}" for n in _SHORT.findall(_FULL.sub("", title))]:
                link(rid, current)
            continue
        if _ANY_HEADING.match(line):
            current = None
            continue
        row = _TABLE_ROW.match(line)
        if row:
            for fid in re.split(r"\s*,\s*", row.group(2)):
                link(row.group(1), findings.get(fid) or Finding(fid, ""))
            continue
        for rid in _FAILS_AFTER.findall(line) + _FAILS_BEFORE.findall(line):
            link(rid, current)
    return index


@functools.cache
def index(path: Path = DOC) -> dict[str, list[Finding]]:
    return parse(path.read_text()) if path.exists() else {}


def for_requirement(rid: str, path: Path = DOC) -> list[dict]:
    return [f.to_json() for f in index(path).get(rid, [])]
