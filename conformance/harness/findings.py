"""Which findings (docs/findings.md) explain a requirement's failure: requirement id -> findings, each with
the scope it holds in.

Read off the findings' own text, so a finding links itself by naming what it breaks:

- a finding's heading (``### F-188-4 ... (MUST PIP188-R03 fails)``; a short ``R08`` takes the
  prefix of the heading's other ids, else the finding's PIP: ``F-188-8 ... (R08)`` is PIP188-R08);
- a sentence of its body that says an id fails (``PIP121-R08 (SHOULD, the C++ rule) fails``,
  ``a certification of 4.2.4 fails PIP188-R03``);
- the table of MUSTs and the findings that explain them (``| PIP188-R03 | F-188-4, F-188-11 |``).

A requirement is not enough: F-188-13 (fixed in 4.0.1) does not explain a 4.2.4 failure of the same
requirement, nor F-136-9 (a ZooKeeper configuration store) a standalone's. So the line under each finding's
heading says where it holds, and a finding is linked to a cell only when the cell is inside it::

    *Scope:* releases 3.0.0-4.0.0; fixed in 4.0.1 (apache/pulsar#23534); topology any; store any; client any

- ``releases``: ``any``, or a comma-separated list of releases (``4.2.4``), inclusive ranges (``3.0.0-4.0.0``,
  ``3.0.11-3.0.x`` for a line's later releases) and open ranges (``4.0.4+``: that release and every later one).
  They are Pulsar's (the brokers the cell ran);
- ``fixed in``: ``none`` or the releases that first carry the fix, one per release line (``3.3.4, 4.0.2``), each
  optionally followed by a parenthesis (the PR); a release at or after the fix on its line, or on a line after
  every fixed line, is out of scope;
- ``topology``: ``any``, ``standalone`` or ``cluster`` (what ran per cluster, summary.json's ``topology``);
- ``store``: ``any``, ``zookeeper`` or ``rocksdb``: the configuration store the run's clusters kept
  (reports/bundle/verdicts.run_context says how a run's is known);
- ``client``: ``any``, ``python`` (the C++ client under pulsar-client) or ``java``: the client whose checks gave the
  cell its verdict, optionally followed by that client's releases in the same form (``client python 3.4.0-3.4.x``;
  the Java client, pulsar-client-original, is the run's Pulsar release unless the run recorded another).

The line is parsed strictly: a finding without one, a malformed one, or one that is not right under a finding's
heading is a ``FindingsError`` naming the line and the fix (tests/harness/test_findings.py reads the project's
file). A context value the run did not record (an external deployment's store) is outside every scope that
names one: a finding is never linked where it is not known to hold.

The report shows these links beside every failing requirement, and says so where none exists
(a failure no finding explains yet). docs/ is packaged with the suite (setup.py); an install without it has
no index (an empty one, and the report says the index was not found).
"""
from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field, replace
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

_SCOPE_LINE = re.compile(r"^\s*(?:\*Scope:\*|\*\*Scope:\*\*|Scope:)\s*(.*?)\s*$")
_RELEASE = r"\d+\.\d+\.\d+(?:-[A-Za-z]\w*)?"
_RELEASE_ITEM = re.compile(rf"^(?P<low>{_RELEASE})(?:(?P<plus>\+)|-(?P<high>\d+\.\d+\.(?:x|\d+(?:-[A-Za-z]\w*)?)))?$")
_FIXED = re.compile(rf"^(?P<what>none|{_RELEASE}(?:\s*,\s*{_RELEASE})*)(?:\s+\((?P<note>[^()]+)\))?$")
TOPOLOGIES = ("standalone", "cluster")
STORES = ("zookeeper", "rocksdb")
CLIENTS = ("python", "java")
FIELDS = ("releases", "fixed in", "topology", "store", "client")
FORMAT = ("*Scope:* releases any|R|A-B|A+[, ...]; fixed in none|R[, R...] [(PR)]; topology any|standalone|cluster; "
          "store any|zookeeper|rocksdb; client any|python [RELEASES]|java [RELEASES]")
FIX = f"write the line right under the finding's heading as docs/findings.md's head says: {FORMAT}"


class FindingsError(ValueError):
    """docs/findings.md is malformed where the index reads it: the message names the line, ``fix`` the remedy."""

    def __init__(self, message: str, fix: str = FIX):
        super().__init__(f"{message} (fix: {fix})")
        self.fix = fix


# --- releases ------------------------------------------------------------------------------------------------

def release_key(text: str) -> tuple:
    """3.0.7 < 3.0.11 < 3.1.0 < 5.0.0-M1 < 5.0.0; ``3.0.x`` is after every 3.0 release (a range's open end)."""
    match = re.fullmatch(r"(\d+)\.(\d+)\.(x|\d+)(?:-([A-Za-z]\w*))?", text.strip())
    if not match:
        raise ValueError(f"{text!r} is not a release (MAJOR.MINOR.PATCH[-SUFFIX])")
    major, minor, patch, suffix = match.groups()
    if patch == "x":
        return (int(major), int(minor), float("inf"), 1, "")
    return (int(major), int(minor), int(patch), 0 if suffix else 1, suffix or "")


def _line(key: tuple) -> tuple:
    return key[:2]


@dataclass(frozen=True)
class Context:
    """What a cell (a requirement's verdict in one run, or a table's column) ran on; None where it is not known."""

    pulsar: str | None = None
    java: str | None = None  # the Java client's release; None: the release's own (certify's default)
    python: str | None = None  # pulsar-client (Python)
    topology: str | None = None
    store: str | None = None
    clients: frozenset[str] | None = None  # the clients whose checks gave the verdict

    def release_for(self, client: str | None) -> str | None:
        if client == "java":
            return self.java or self.pulsar
        if client == "python":
            return self.python
        return self.pulsar

    def with_clients(self, clients) -> Context:
        return replace(self, clients=None if clients is None else frozenset(clients))


@dataclass(frozen=True)
class Scope:
    """Where a finding holds (the module's head says the line's form); ``None`` fields are ``any``."""

    line: str
    releases: tuple[tuple[tuple, tuple], ...] | None = None  # Pulsar's, inclusive (low, high) keys
    fixed: tuple[str, ...] = ()
    fixed_note: str | None = None
    topology: str | None = None
    store: str | None = None
    client: str | None = None
    client_releases: tuple[tuple[tuple, tuple], ...] | None = None  # the client's own, as ``releases``

    def outside(self, ctx: Context) -> str | None:
        """Why ``ctx`` is outside this scope, or None when it is inside."""
        if self.client is not None and (ctx.clients is None or self.client not in ctx.clients):
            return f"only the {self.client} client"
        if self.client_releases is not None:
            release = ctx.release_for(self.client)
            what = {"java": "Java client", "python": "pulsar-client"}[self.client]
            if release is None:
                return f"the {what} release was not recorded"
            if not _within(release_key(release), self.client_releases):
                return f"not seen with {what} {release}"
        if self.releases is not None or self.fixed:
            if ctx.pulsar is None:
                return "the Pulsar release was not recorded"
            key = release_key(ctx.pulsar)
            if self.releases is not None and not _within(key, self.releases):
                return f"not seen on Pulsar {ctx.pulsar}"
            if self._fixed(key):
                return f"fixed in {', '.join(self.fixed)}"
        if self.topology is not None and ctx.topology != self.topology:
            return f"only on the {self.topology} topology"
        if self.store is not None and ctx.store != self.store:
            return f"only with a {self.store} configuration store"
        return None

    def covers(self, ctx: Context) -> bool:
        return self.outside(ctx) is None

    def _fixed(self, key: tuple) -> bool:
        fixes = [release_key(f) for f in self.fixed]
        if not fixes:
            return False
        if any(_line(f) == _line(key) and key >= f for f in fixes):
            return True
        return _line(key) > max(_line(f) for f in fixes)


def _within(key: tuple, ranges) -> bool:
    return any(low <= key <= high for low, high in ranges)


def _releases(text: str, where: str) -> tuple[tuple[tuple, tuple], ...]:
    items = []
    for item in (i.strip() for i in text.split(",")):
        match = _RELEASE_ITEM.match(item)
        if not match:
            raise FindingsError(f"{where}: release {item!r}, expected a release (4.2.4), a range (3.0.0-4.0.0, "
                                "3.0.11-3.0.x), an open range (4.0.4+) or 'any'")
        low = release_key(match["low"])
        high = (release_key("9999.9999.x") if match["plus"] else
                release_key(match["high"]) if match["high"] else low)
        if high < low:
            raise FindingsError(f"{where}: range {item!r} ends before it starts")
        items.append((low, high))
    return tuple(items)


def parse_scope(text: str, where: str = "scope") -> Scope:
    """A scope line's text (after ``*Scope:*``), strictly: five fields in FIELDS' order."""
    parts = [p.strip() for p in text.split(";")]
    if len(parts) != len(FIELDS):
        raise FindingsError(f"{where}: {len(parts)} field(s) {text!r}, expected {len(FIELDS)}: {', '.join(FIELDS)}")
    values = {}
    for name, part in zip(FIELDS, parts, strict=True):
        if not part.startswith(name + " ") or not part[len(name):].strip():
            raise FindingsError(f"{where}: field {part!r}, expected '{name} ...' (fields in this order: "
                                f"{', '.join(FIELDS)})")
        values[name] = part[len(name):].strip()
    releases = None if values["releases"] == "any" else _releases(values["releases"], where)
    client, _, client_releases = values["client"].partition(" ")
    values["client"] = client
    fixed = _FIXED.match(values["fixed in"])
    if not fixed:
        raise FindingsError(f"{where}: 'fixed in {values['fixed in']}', expected 'fixed in none' or the releases that "
                            "first carry the fix (one per line: 3.3.4, 4.0.2), optionally followed by (the PR)")
    fixes = () if fixed["what"] == "none" else tuple(f.strip() for f in fixed["what"].split(","))
    if len({_line(release_key(f)) for f in fixes}) != len(fixes):
        raise FindingsError(f"{where}: 'fixed in {values['fixed in']}' names one release line twice")
    choices = {"topology": TOPOLOGIES, "store": STORES, "client": CLIENTS}
    for name, allowed in choices.items():
        if values[name] != "any" and values[name] not in allowed:
            raise FindingsError(f"{where}: '{name} {values[name]}', expected {name} any or {' or '.join(allowed)}")
    return Scope(line=text.strip(), releases=releases, fixed=fixes, fixed_note=fixed["note"],
                 topology=None if values["topology"] == "any" else values["topology"],
                 store=None if values["store"] == "any" else values["store"],
                 client=None if client == "any" else client,
                 client_releases=_client_releases(client, client_releases.strip(), where))


def _client_releases(client: str, text: str, where: str):
    if not text:
        return None
    if client == "any":
        raise FindingsError(f"{where}: 'client any {text}', expected releases only after python or java")
    return _releases(text, where)


# --- the findings ----------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Finding:
    id: str
    title: str
    scope: Scope | None = field(default=None, compare=False)
    text: str = field(default="", compare=False, repr=False)  # its section, heading included

    @property
    def anchor(self) -> str:
        """The heading's anchor as GitHub renders docs/findings.md."""
        text = f"{self.id} {self.title}".lower()
        text = re.sub(r"[^\w\- ]", "", text)
        return text.replace(" ", "-")

    def to_json(self) -> dict:
        doc = {"id": self.id, "title": self.title, "href": f"docs/findings.md#{self.anchor}"}
        if self.scope is not None:
            doc["scope"] = self.scope.line
        return doc


@dataclass
class Index:
    """Every finding of the file (by id, in its order) and requirement id -> the findings that say it fails."""

    findings: dict[str, Finding]
    links: dict[str, list[Finding]]

    def for_requirement(self, rid: str, context: Context | None = None) -> list[Finding]:
        """The findings that explain ``rid``'s failure; with a context, only those whose scope holds there."""
        linked = self.links.get(rid, [])
        if context is None:
            return list(linked)
        return [f for f in linked if f.scope is None or f.scope.covers(context)]


def _sections(text: str, where: str) -> dict[str, Finding]:
    """Each finding's heading, scope line and section text, checked strictly."""
    lines = text.splitlines()
    found: dict[str, Finding] = {}
    starts = [i for i, line in enumerate(lines) if _ANY_HEADING.match(line)] + [len(lines)]
    for n, line in enumerate(lines):
        if _SCOPE_LINE.match(line) and not (n and _HEADING.match(lines[n - 1])):
            raise FindingsError(f"{where}:{n + 1}: a scope line that is not right under a finding's heading: {line!r}",
                                "move it under its finding's heading (or remove it)")
    for n, line in enumerate(lines):
        heading = _HEADING.match(line)
        if not heading:
            continue
        _, fid, _, title = heading.groups()
        if fid in found:
            raise FindingsError(f"{where}:{n + 1}: {fid} has a second heading", "give each finding one heading")
        scope_line = _SCOPE_LINE.match(lines[n + 1]) if n + 1 < len(lines) else None
        if not scope_line:
            raise FindingsError(f"{where}:{n + 2}: {fid} has no scope line under its heading")
        scope = parse_scope(scope_line.group(1), f"{where}:{n + 2}: {fid}'s scope")
        end = next(s for s in starts if s > n)
        found[fid] = Finding(fid, title, scope, "\n".join(lines[n:end]).rstrip() + "\n")
    return found


def parse_index(text: str, where: str = "docs/findings.md") -> Index:
    """The file's findings and links, in the order of the file."""
    findings = _sections(text, where)
    links: dict[str, list[Finding]] = {}
    current: Finding | None = None

    def link(rid: str, finding: Finding | None) -> None:
        if finding is not None and finding not in links.setdefault(rid, []):
            links[rid].append(finding)

    for n, line in enumerate(text.splitlines(), 1):
        heading = _HEADING.match(line)
        if heading:
            _, fid, area, title = heading.groups()
            current = findings[fid]
            full = _FULL.findall(title)
            prefix = full[-1].rsplit("-", 1)[0] if full else (f"PIP{area}" if area.isdigit() else area)
            for rid in full + [f"{prefix}-R{num}" for num in _SHORT.findall(_FULL.sub("", title))]:
                link(rid, current)
            continue
        if _ANY_HEADING.match(line):
            current = None
            continue
        if _SCOPE_LINE.match(line):
            continue
        row = _TABLE_ROW.match(line)
        if row:
            for fid in re.split(r"\s*,\s*", row.group(2)):
                if fid not in findings:
                    raise FindingsError(f"{where}:{n}: the table names {fid}, which no heading of the file defines",
                                        "name a finding of this file, or write its section")
                link(row.group(1), findings[fid])
            continue
        for rid in _FAILS_AFTER.findall(line) + _FAILS_BEFORE.findall(line):
            link(rid, current)
    return Index(findings, links)


def parse(text: str) -> dict[str, list[Finding]]:
    """Requirement id -> the findings that say it fails, in the order of the file (every scope)."""
    return parse_index(text).links


@functools.cache
def load(path: Path = DOC) -> Index:
    return parse_index(path.read_text(), str(path)) if path.exists() else Index({}, {})


def index(path: Path = DOC) -> dict[str, list[Finding]]:
    return load(path).links


def for_requirement(rid: str, path: Path = DOC, context: Context | None = None) -> list[dict]:
    """The findings that explain ``rid``'s failure, as the bundle records them; with the cell's context, only those
    whose scope contains it (without one, every finding that names ``rid``: a caller that knows no context)."""
    return [f.to_json() for f in load(path).for_requirement(rid, context)]


def finding(fid: str, path: Path = DOC) -> Finding | None:
    return load(path).findings.get(fid)
