"""``releases BUNDLE_OR_DIR...``: the per-release, per-requirement table (docs/certify.md, docs/releases.md).

Inputs are certification bundles (a folder with summary.json) and the output folders of ``certify
--repeat`` (run-N/ bundles) and ``--matrix`` (AXIS-V/ cells, each a bundle or a --repeat folder), read
with compare's loading and validation (reports/bundle/compare.py), so malformed input is exit 64 naming the
field. A column is a release (Pulsar, and the client, the Java client or a configuration of the run where
those vary: the protocols' options that are a --matrix axis, pulsar_conformance/protocols/), a cell the
verdict of one profile's requirement over the column's runs with its count (k/n) and the findings that
explain it (reports/bundle/verdicts.py, conformance/harness/findings.py).

A verdict that differs between two columns is called a **release difference** only when nothing
else can explain it: both columns were run by the same suite version and commit with the same
options (the certify command without its release, seed and --out), they differ in one release
component only, and each ran more than once with every run giving the verdict. Otherwise the cells
are marked with what stands in the way ("1 run", "other suite commit", ...).
"""
from __future__ import annotations

import json
import os
import re
import shlex
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from pulsar_conformance.conformance.harness import findings as findings_index
from pulsar_conformance.conformance.harness.findings import DOC as FINDINGS_DOC
from pulsar_conformance.errors import EXIT_PASS, UsageError
from pulsar_conformance.files import check_output_path, write_atomic
from pulsar_conformance.output import emit
from pulsar_conformance.protocols import protocol_options

from ..bundle.compare import JUDGED
from ..bundle.reading import FIX_SUMMARY, Bundle, load
from ..bundle.verdicts import aggregate, store_of, summary_context, summary_topology

# certify options that name the release or the run, not the question asked: a column differs in them (the
# protocols' options that are a --matrix axis too, run_options())
RUN_OPTIONS = frozenset({"--out", "--seed", "--pulsar-version", "--client-version", "--vendor", "--product", "--json",
                         "--topology"})
_REPEAT_RUN = re.compile(r"run-\d+")
# verdicts that show no check of the requirement ran: a row of these only is left out unless declared
_NOTHING_RAN = ("not run", "uncovered", "absent", "skipped")
# a finding explains a verdict that is not a pass; beside a pass it would read as a failure
_EXPLAINED = ("fail", "unknown", "differs")
# a column's release: these versions, then each key of the bundle's configuration (configuration_names())
# (the topology too: a standalone and a cluster of several brokers and bookies of one release are two columns that
# ask the same question, so a verdict that differs over agreeing runs of one suite commit is the topology's)
COMPONENTS = (("pulsar", "pulsar"), ("client", "client"), ("java", "java client"), ("topology", "topology"))


def run_options() -> frozenset[str]:
    """RUN_OPTIONS and the protocols' options that are a --matrix axis (a Java client release, a TLS mode):
    one bundle per value, so two columns may differ in them and still ask the same question."""
    return RUN_OPTIONS | {o.flag for o in protocol_options() if o.axis}


def configuration_names(keys) -> list[tuple[str, str, str | None]]:
    """(key, name, default) of each configuration key, named as its descriptor's --matrix axis and with its
    declared default (a key no descriptor declares: its own name, no default), sorted by key."""
    declared = {o.field: o for o in protocol_options()}
    return [(key, (declared[key].axis or declared[key].flag.lstrip("-")) if key in declared else key,
             declared[key].configuration_default if key in declared else None) for key in sorted(set(keys))]


@dataclass
class Column:
    """One release of one profile: the runs of a bundle, of a --repeat folder or of a matrix cell."""

    source: Path
    runs: list[Bundle]
    label: str = ""
    rows: dict = field(default_factory=dict)

    @property
    def profile(self) -> str:
        return self.runs[0].summary["profile"]

    @property
    def release(self) -> dict:
        versions = self.runs[0].summary.get("versions") or {}
        pulsar, java = versions.get("pulsar"), versions.get("pulsar_client_java")
        return {"pulsar": pulsar, "client": versions.get("pulsar_client_python"),
                # the Java client of the release itself is part of the release, as certify defaults it
                "java": None if java is None else "own" if java == pulsar else java,
                "topology": topology_of(self.runs[0]),
                # the run's configuration (the descriptors' configuration options, e.g. PIP-188's TLS mode)
                **(self.runs[0].summary.get("configuration") or {})}

    def suites(self) -> set:
        return {((r.summary.get("versions") or {}).get("suite"), (r.summary.get("versions") or {}).get("suite_commit"))
                for r in self.runs}

    def options(self) -> set:
        return {options_of(r) for r in self.runs}

    def releases(self) -> set:
        return {json.dumps(Column(self.source, [r]).release, sort_keys=True) for r in self.runs}


def topology_of(run: Bundle) -> str:
    """What ran per cluster: the bundle's ``topology`` (bundles since issue 31), else the --topology of its command
    (older cluster runs), else a standalone (every run before the cluster topology existed)."""
    if not run.summary.get("topology"):
        command_options(run)  # a malformed command is the summary's error, named
    return summary_topology(run.summary)


def components(columns) -> list[tuple[str, str]]:
    """(key, name) of what a release is made of over these columns: COMPONENTS and their configuration keys."""
    keys = {key for c in columns for key in c.release if key not in dict(COMPONENTS)}
    return [*COMPONENTS, *((key, name) for key, name, _ in configuration_names(keys))]


def options_of(run: Bundle):
    """The certify command's options that ask the question (profile, narrowing, deployment), or None."""
    pairs = command_options(run)
    return None if pairs is None else tuple(sorted(p for p in pairs if p[0] not in run_options()))


def command_options(run: Bundle) -> list[tuple[str, str]] | None:
    """The (flag, value) pairs of the bundle's certify command, in order, or None when it recorded none."""
    command = run.summary.get("command")
    if command is None:
        return None
    where = run.path / "summary.json"
    try:
        words = shlex.split(command)
    except ValueError as error:
        raise UsageError(f"{where}: field command is not a command line ({error})", FIX_SUMMARY) from None
    if words[:2] != ["pulsar-conformance", "certify"]:
        raise UsageError(f"{where}: field command is {command[:60]!r}, expected a pulsar-conformance certify command",
                         FIX_SUMMARY)
    pairs, i = [], 2
    while i < len(words):
        flag, eq, value = words[i].partition("=")
        if flag.startswith("--") and not eq and i + 1 < len(words) and not words[i + 1].startswith("--"):
            value, i = words[i + 1], i + 1
        pairs.append((flag, value))
        i += 1
    return pairs


# --- loading ---------------------------------------------------------------------------------------------------

_MISSING = object()


def _bad(where, name: str, value, expected: str) -> UsageError:
    """reading.check_summary's message: the field named, what it holds, what was expected."""
    got = "missing" if value is _MISSING else f"{type(value).__name__} {json.dumps(value, default=str)[:60]}"
    return UsageError(f"{where}: field {name} is {got}, expected {expected}", FIX_SUMMARY)


def _optional(doc: dict, name: str, types, expected: str, where, prefix: str = ""):
    """An optional field (absent or null), of its type when present."""
    value = doc.get(name)
    if value is not None and (not isinstance(value, types) or isinstance(value, bool)):
        raise _bad(where, prefix + name, value, expected)
    return value


def check_table_fields(summary: dict, where) -> None:
    """The fields this table reads beyond those compare checks (reports/bundle/reading.check_summary)."""
    if summary.get("interrupted") is True:  # its "not run" rows are Ctrl-C's, not the release's
        raise UsageError(f"{where}: the run was interrupted (field interrupted is true), so its verdicts say nothing "
                         "of the release", "run that cell again (delete its folder: docs/examples/release-sweep.sh "
                         "re-runs a cell without summary.json) or leave it out of the table")
    versions = summary.get("versions") or {}
    for name in ("suite", "suite_commit", "pulsar", "pulsar_client_python", "pulsar_client_java"):
        _optional(versions, name, str, "a string or null", where, "versions.")
    _optional(summary, "command", str, "a certify command line or null", where)
    _optional(summary, "topology", str, "a topology (standalone, cluster) or null", where)
    configuration = _optional(summary, "configuration", dict, "an object or null", where) or {}
    for name in configuration:  # whatever the descriptors declare: each a value (a mode, a release) or null
        if name in dict(COMPONENTS):
            raise _bad(where, f"configuration.{name}", configuration[name], "no key named as a release component")
        _optional(configuration, name, str, "a string or null", where, "configuration.")
    for j, rid in enumerate(_optional(summary, "declared", list, "a list of requirement ids", where) or ()):
        if not isinstance(rid, str):
            raise _bad(where, f"declared[{j}]", rid, "a requirement id")
    for i, row in enumerate(summary["requirements"]):
        at = f"requirements[{i}]."
        for j, finding in enumerate(_optional(row, "findings", list, "a list of findings", where, at) or ()):
            name = f"{at}findings[{j}]"
            if not isinstance(finding, dict):
                raise _bad(where, name, finding, "an object with id, title and href")
            for key in ("id", "href"):
                if not isinstance(finding.get(key, _MISSING), str):
                    raise _bad(where, f"{name}.{key}", finding.get(key, _MISSING), "a string")
            _optional(finding, "title", str, "a string", where, name + ".")
    series = _optional(summary, "series", dict, "an object or null", where)
    if series is not None:
        runs = series.get("runs", _MISSING)
        if not isinstance(runs, list) or not runs:
            raise _bad(where, "series.runs", runs, "a non-empty list of the series' runs")
        for i, run in enumerate(runs):
            if not isinstance(run, dict):
                raise _bad(where, f"series.runs[{i}]", run, "an object")
            if not isinstance(run.get("bundle", _MISSING), str) or not run["bundle"]:
                raise _bad(where, f"series.runs[{i}].bundle", run.get("bundle", _MISSING), "the folder of a run")


def load_columns(path: str | Path) -> list[Column]:
    """The columns under one argument: a bundle is one, a --repeat folder one, a --matrix folder one per cell."""
    top = load(path)
    check_table_fields(top.summary, top.path / "summary.json")
    series = top.summary.get("series")
    if not series:
        return [Column(top.path, [top])]
    members = [_member(top, i, run["bundle"]) for i, run in enumerate(series["runs"])]
    if all(_REPEAT_RUN.fullmatch(run["bundle"]) for run in series["runs"]):
        runs = [leaf for member in members for column in load_columns(member) for leaf in column.runs]
        strays = [r for r in runs if r.summary["profile"] != top.summary["profile"]]
        if strays:  # one column is one profile's question
            raise UsageError(f"{strays[0].path / 'summary.json'}: field profile is {strays[0].summary['profile']!r}, "
                             f"expected {top.summary['profile']!r} as in the series' own summary", FIX_SUMMARY)
        return [Column(top.path, runs)]
    return [column for member in members for column in load_columns(member)]


def _member(top: Bundle, i: int, folder: str) -> Path:
    """A series member's folder, inside the series' own (a summary cannot send the reader elsewhere or round)."""
    root = top.path.resolve()
    try:
        where = (root / folder).resolve()
    except (OSError, ValueError, RuntimeError):  # a NUL byte, a symlink loop
        where = root
    if where == root or not where.is_relative_to(root):
        raise UsageError(f"{top.path / 'summary.json'}: field series.runs[{i}].bundle is {folder!r}, expected a "
                         "folder inside the series' own", FIX_SUMMARY)
    if not (where / "summary.json").is_file():
        raise UsageError(f"{top.path / 'summary.json'}: series.runs[{i}].bundle {folder!r} has no summary.json "
                         f"({where})", "pass the whole folder certify --repeat/--matrix wrote, with every run's bundle")
    return where


# --- the table -------------------------------------------------------------------------------------------------

def version_key(text: str | None) -> tuple:
    """3.2.0 < 3.10.0 < 5.0.0-M1 < 5.0.0; a release not observed sorts last."""
    if not text:
        return (1,)
    match = re.match(r"(\d+(?:\.\d+)*)(.*)", text)
    if not match:
        return (1, text)
    return (0, tuple(int(n) for n in match.group(1).split(".")), 0 if match.group(2) else 1, match.group(2))


def _column_key(column: Column, configuration: list) -> tuple:
    release = column.release
    return (version_key(release["pulsar"]), version_key(release["client"]),
            version_key(None if release["java"] == "own" else release["java"]), release["topology"] != "standalone",
            release["topology"], *(release.get(key) or default or "" for key, _, default in configuration), str(column.source))


def _label(column: Column, varying: list[str], configuration: list) -> str:
    release = column.release
    parts = [f"pulsar {release['pulsar'] or '?'}"]
    if "client" in varying:
        parts.append(f"client {release['client'] or '?'}")
    if "java" in varying:
        java = release["java"]
        parts.append(f"java client {release['pulsar'] if java == 'own' else java or '-'}")
    if "topology" in varying:
        parts.append(f"topology {release['topology']}")
    parts += [f"{name} {release.get(key) or default or '-'}" for key, name, default in configuration if key in varying]
    return " / ".join(parts)


def _cell(column: Column, rid: str) -> dict:
    row = column.rows.get(rid)
    if row is None:
        return {"verdict": "absent", "counts": {}, "n": len(column.runs), "text": "absent", "findings": []}
    counts = row["counts"]
    verdict = row["verdict"]
    ordered = [verdict] + [v for v in counts if v != verdict]
    findings = _explaining(column, rid) if verdict in _EXPLAINED else {}
    return {"verdict": verdict, "counts": counts, "n": len(column.runs),
            "text": ", ".join(f"{v} {counts[v]}" for v in ordered if v in counts) or verdict,
            "findings": list(findings.values()), "agree": len(counts) == 1,
            "unexplained": verdict == "fail" and not findings}


def _explaining(column: Column, rid: str) -> dict[str, dict]:
    """The findings that explain ``rid``'s verdict in the column, by id: those whose scope holds for a run of it
    that did not pass (its release, topology, configuration store, and the clients whose checks gave the verdict:
    reports/bundle/verdicts.summary_context). docs/findings.md as it is now where the checkout has it (a finding written
    after the sweep's commit explains its cells too, and its link is the one the reader can follow), else what each
    run's bundle recorded at its commit (an install without docs/), narrowed by the scope it recorded."""
    findings: dict[str, dict] = {}
    for run in column.runs:
        row = next((r for r in run.summary["requirements"] if r["id"] == rid), None)
        if row is None or row.get("verdict") not in _EXPLAINED:
            continue
        context = summary_context(run.summary, rid)
        if FINDINGS_DOC.exists():
            for f in findings_index.for_requirement(rid, FINDINGS_DOC, context=context):
                findings.setdefault(f["id"], f)
            continue
        for f in row.get("findings") or ():
            if f.get("scope") and not findings_index.parse_scope(f["scope"]).covers(context):
                continue
            findings.setdefault(f["id"], _bundle_relative(f, run.path))
    return findings


def _bundle_relative(finding: dict, bundle: Path) -> dict:
    """A finding as a bundle recorded it, its link made to reach the page from anywhere: the checkout's docs/ where it
    names them (``source``, or an older bundle's href), else the bundle's own findings page."""
    href = finding.get("source") or finding["href"]
    if href.startswith("docs/") or "://" in href:
        return dict(finding, href=href)
    return dict(finding, href=str((bundle / href).resolve()))


def _self_reasons(column: Column, cell: dict) -> list[str]:
    reasons = []
    if cell["n"] == 1:
        reasons.append("1 run")
    elif not cell["agree"]:
        reasons.append("runs disagree")
    if len(column.suites()) > 1:
        reasons.append("runs of several suite commits")
    elif any(commit is None for _, commit in column.suites()):
        reasons.append("suite commit not recorded")
    if None in column.options():
        reasons.append("options not recorded")
    elif len(column.options()) > 1:
        reasons.append("runs with several options")
    if len(column.releases()) > 1:
        reasons.append("runs of several releases")
    return reasons


def _pair_reasons(a: Column, b: Column) -> list[str]:
    reasons = []
    suites_a, suites_b = a.suites(), b.suites()
    if len(suites_a) == len(suites_b) == 1 and suites_a != suites_b:
        (va, ca), (vb, cb) = next(iter(suites_a)), next(iter(suites_b))
        if va != vb:
            reasons.append("other suite version")
        elif ca and cb:
            reasons.append("other suite commit")
    options_a, options_b = a.options(), b.options()
    if None not in options_a | options_b and options_a != options_b:
        reasons.append("other options")
    differ = [name for key, name in components([a, b]) if a.release.get(key) != b.release.get(key)]
    if not differ:
        reasons.append("same release")
    elif len(differ) > 1:
        reasons.append(f"{' and '.join(differ)} differ")
    return reasons


def _judge_row(columns: list[Column], cells: list[dict]) -> None:
    """Mark each judged cell of a row whose judged verdicts differ: a release difference, or what stands in the way."""
    judged = [i for i, c in enumerate(cells) if c["verdict"] in JUDGED]
    if len({cells[i]["verdict"] for i in judged}) < 2:
        return
    for i in judged:
        others = [j for j in judged if cells[j]["verdict"] != cells[i]["verdict"]]
        mine = _self_reasons(columns[i], cells[i])
        blockers = []
        for j in others:
            pair = _pair_reasons(columns[i], columns[j])
            theirs = [f"{columns[j].label}: {r}" for r in _self_reasons(columns[j], cells[j])]
            if not mine and not pair and not theirs:
                cells[i]["release_difference"] = True
                cells[i].setdefault("against", []).append(columns[j].label)
            blockers += pair + (theirs if not mine and not pair else [])
        if not cells[i].get("release_difference"):
            cells[i]["reasons"] = list(dict.fromkeys(mine + blockers))


def build(columns: list[Column], arguments) -> dict:
    """The table's document: per profile, its columns (sorted by release) and rows (catalog order)."""
    profiles: dict[str, list[Column]] = {}
    for column in columns:
        profiles.setdefault(column.profile, []).append(column)
    groups = []
    for profile, mine in profiles.items():
        configuration = configuration_names(key for c in mine for key in c.release if key not in dict(COMPONENTS))
        mine.sort(key=lambda c: _column_key(c, configuration))
        varying = [key for key, _ in components(mine)[1:] if len({json.dumps(c.release.get(key)) for c in mine}) > 1]
        for column in mine:
            column.label = _label(column, varying, configuration)
            doc = aggregate([(r.path.name, r.summary) for r in column.runs], profile, column.source.name)
            column.rows = {r["id"]: r for r in doc["requirements"]}
        seen = Counter(c.label for c in mine)
        for column in mine:
            if seen[column.label] > 1:  # the same release twice: told apart by folder
                column.label += f" ({column.source.name})"
        declared = {rid for c in mine for r in c.runs for rid in r.summary.get("declared") or ()}
        order: list[str] = []
        texts: dict[str, dict] = {}
        for column in mine:
            for rid, row in column.rows.items():
                texts.setdefault(rid, row)
                if rid not in order and (rid in declared or any(v not in _NOTHING_RAN for v in row["runs"].values())):
                    order.append(rid)
        rows = []
        for rid in order:
            cells = [_cell(column, rid) for column in mine]
            _judge_row(mine, cells)
            rows.append({"id": rid, "strength": texts[rid].get("strength"), "text": texts[rid].get("text"),
                         "declared": rid in declared, "cells": cells})
        groups.append({"profile": profile, "columns": [_column_doc(c) for c in mine], "rows": rows,
                       "release_differences": [r["id"] for r in rows
                                               if any(c.get("release_difference") for c in r["cells"])],
                       "other_differences": [r["id"] for r in rows if any(c.get("reasons") for c in r["cells"])
                                             and not any(c.get("release_difference") for c in r["cells"])]})
    return {"inputs": [str(a) for a in arguments], "profiles": groups,
            "generated": datetime.now(UTC).isoformat(timespec="seconds")}


def _column_doc(column: Column) -> dict:
    suites = sorted(column.suites(), key=str)
    options = column.options()
    release = column.release
    java = release["pulsar"] if release["java"] == "own" else release["java"]
    clients = ", ".join(part for part in (f"python {release['client']}" if release["client"] else "",
                                          f"java {java}" if java else "") if part)
    return {"label": column.label, "release": release, "clients": clients or "not recorded",
            "source": str(column.source), "runs": len(column.runs),
            "seeds": [r.summary.get("seed") for r in column.runs],
            "verdicts": [r.summary["verdict"] for r in column.runs],
            "suite": ", ".join(f"{v or '?'} @ {c or 'commit not recorded'}" for v, c in suites),
            "options": ("not recorded" if None in options else
                        "; ".join(" ".join(f"{k} {v}".strip() for k, v in o) or "(none)" for o in sorted(options)))}


# --- output ----------------------------------------------------------------------------------------------------

def _findings_href(href: str, out: Path) -> str:
    """A finding's link (docs/findings.md#..., from the checkout's root, or a bundle's own page by its absolute
    path) made relative to the written files."""
    path, _, anchor = href.partition("#")
    if path.startswith("docs/"):
        target = FINDINGS_DOC.parents[1] / path
    elif Path(path).is_absolute():
        target = Path(path)
    else:
        return href
    return os.path.relpath(target, out) + (f"#{anchor}" if anchor else "")


def _checkout() -> Path:
    return FINDINGS_DOC.parents[1]


def kept_href(source: str | Path, out: Path) -> str | None:
    """The link from the table in ``out`` to a bundle folder, or None when the table must not point at it: it is
    not there, or the table is written into the checkout (docs/tables/) and the bundle lies outside it (a folder of
    the machine that ran it, which a reader of the repository does not have)."""
    where = Path(source)
    if not where.is_absolute():
        where = Path.cwd() / where
    where = where.resolve()
    if not where.exists():
        return None
    root = _checkout().resolve()
    if out.resolve().is_relative_to(root) and not where.is_relative_to(root):
        return None
    return os.path.relpath(where, out.resolve())


def _md(text) -> str:
    return str(text or "").replace("|", "\\|").replace("\n", " ")


NO_FINDING = "no finding explains this cell"


def cell_markdown(cell: dict) -> str:
    parts = [_md(cell["text"])]
    parts += [f"[{_md(f['id'])}]({f['href']})" for f in cell["findings"]]
    if cell.get("unexplained"):
        parts.append(f"_{NO_FINDING}_")
    if cell.get("release_difference"):
        parts.append(f"**release difference** (vs {_md(', '.join(cell['against']))})")
    elif cell.get("reasons"):
        parts.append(f"_not a release difference: {_md('; '.join(cell['reasons']))}_")
    return " ".join(parts)


LEGEND = ("A cell is the requirement's verdict over the column's runs (the worst, as certify --repeat counts it) "
          "and how many runs gave each verdict (k/n). Where two columns' verdicts differ, a cell says "
          "**release difference** only when both were run by the same suite commit with the same options, differ "
          "in one release component (Pulsar, a client, a configuration, or the topology: a standalone or a cluster of "
          "several brokers and bookies) and every one of their runs (more than one) gave the verdict; otherwise it "
          "names what stands in the way. Findings (docs/findings.md) are linked beside verdicts that are not a pass, "
          "only where the cell's release, topology, configuration store and client are inside the finding's scope; a "
          "failing cell no finding covers says so.")
NOT_KEPT = "not kept"


def inputs_text(doc: dict) -> str:
    """The table's inputs: those a reader of the table can open, and how many were not kept."""
    links = doc.get("input_links") or [{"path": i, "kept": True} for i in doc["inputs"]]
    kept = [f"`{_md(i['path'])}`" for i in links if i["kept"]]
    gone = len(links) - len(kept)
    if gone:
        kept.append(f"{gone} bundle folder{'s' if gone > 1 else ''} not kept in the repository (they stayed on the "
                    "machine that ran them)")
    return ", ".join(kept)


def markdown(doc: dict) -> str:
    lines = [f"Generated by `pulsar-conformance releases` from {inputs_text(doc)}: do not edit the cells by hand."]
    if doc.get("relinked"):
        lines.append("")
        lines.append(RELINKED.format(**doc["relinked"]))
    lines += ["", LEGEND, ""]
    for group in doc["profiles"]:
        columns = group["columns"]
        lines += [f"## {group['profile']}", "", "| release | clients | runs | verdicts | suite | options | bundle |",
                  "|---|---|---|---|---|---|---|"]
        lines += [f"| {_md(c['label'])} | {_md(c['clients'])} | {c['runs']} (seeds {', '.join(map(str, c['seeds']))}) | "
                  f"{_md(', '.join(c['verdicts']))} | {_md(c['suite'])} | {_md(c['options'])} | {_bundle_markdown(c)} |"
                  for c in columns]
        lines += ["", "| requirement | level | " + " | ".join(_md(c["label"]) for c in columns) + " |",
                  "|---|---|" + "---|" * len(columns)]
        lines += [f"| {r['id']} | {r['strength'] or ''} | " + " | ".join(cell_markdown(c) for c in r["cells"]) + " |"
                  for r in group["rows"]]
        lines += ["", f"Release differences: {', '.join(group['release_differences']) or 'none'}. "
                      f"Differences not called release differences: {', '.join(group['other_differences']) or 'none'}.",
                  ""]
    return "\n".join(lines)


def _bundle_markdown(column: dict) -> str:
    if column.get("bundle"):
        return f"[{_md(column['source'])}]({column['bundle']})"
    return NOT_KEPT


def render_html(doc: dict) -> str:
    from jinja2 import Environment, FileSystemLoader, select_autoescape

    env = Environment(loader=FileSystemLoader(Path(__file__).parent / "templates"),
                      autoescape=select_autoescape(["html", "j2"]))
    return env.get_template("releases.html.j2").render(doc=doc, legend=LEGEND, inputs=inputs_text(doc),
                                                         relinked=RELINKED.format(**doc["relinked"])
                                                         if doc.get("relinked") else None,
                                                         no_finding=NO_FINDING, not_kept=NOT_KEPT)


def summary_text(doc: dict, out: Path) -> str:
    lines = [f"wrote {out / 'releases.md'} and {out / 'releases.html'}"]
    for g in doc["profiles"]:
        lines.append(f"{g['profile']}: {len(g['columns'])} release(s) x {len(g['rows'])} requirement(s); release "
                     f"differences: {', '.join(g['release_differences']) or 'none'}; other differences: "
                     f"{', '.join(g['other_differences']) or 'none'}")
    return "\n".join(lines)


@dataclass(frozen=True)
class ReleasesRequest:
    """``releases``' options, checked at the CLI's edge (reports/runner/cli.py): the bundles loaded, the folder writable."""

    columns: tuple[Column, ...]
    inputs: tuple[str, ...]
    out: Path
    json: bool = False


def releases_request(paths, out: str | None, json_mode: bool) -> ReleasesRequest:
    option_out = out or f"reports/releases-{datetime.now(UTC).strftime('%Y%m%d-%H%M%S')}"
    target = check_output_path(option_out, kind="dir", option="--out")
    seen: dict[Path, str] = {}
    for path in paths:
        where = Path(path).resolve()
        where = where.parent if where.name == "summary.json" else where
        if where in seen:
            raise UsageError(f"{path} is given twice (also as {seen[where]})", "pass each bundle or folder once")
        seen[where] = path
    columns = tuple(column for path in paths for column in load_columns(path))
    return ReleasesRequest(columns, tuple(paths), target, json_mode)


def run_releases(request: ReleasesRequest) -> int:
    doc = build(list(request.columns), request.inputs)
    for group in doc["profiles"]:
        for column in group["columns"]:
            column["bundle"] = kept_href(column["source"], request.out)
        for row in group["rows"]:
            for cell in row["cells"]:
                cell["findings"] = [dict(f, href=_findings_href(f["href"], request.out)) for f in cell["findings"]]
    doc["input_links"] = [{"path": i, "kept": kept_href(i, request.out) is not None} for i in request.inputs]
    request.out.mkdir(parents=True, exist_ok=True)
    write_atomic(request.out / "releases.md", markdown(doc))
    write_atomic(request.out / "releases.html", render_html(doc))
    doc["written"] = [str(request.out / "releases.md"), str(request.out / "releases.html")]
    emit(request, doc, lambda: summary_text(doc, request.out))
    return EXIT_PASS


# --- re-linking a table whose bundles were not kept ---------------------------------------------------------------
# Several tables under docs/tables/ were generated from bundles that stayed on the machine that ran them. Their
# verdicts cannot be computed again, but what the table keeps (each column's release, clients and runs, each cell's
# verdict and counts, the release-difference marks) is enough to link the findings as docs/findings.md's scopes say
# now and to drop the links to folders no reader has. ``relink`` does only that: no cell's verdict changes.

RELINKED = ("Findings re-linked on {date} from docs/findings.md's scopes (`python -m "
            "pulsar_conformance.reports.view.releases_table --relink {folder}`): the verdicts, counts and marks are the "
            "table's own{generated}, from bundles that were not kept; each column's release and clients are read from "
            "the table, its topology only where its label names one.")
_VERDICT = re.compile(r"^(not applicable|not run|fail|unknown|pass|differs|uncovered|absent|skipped)\b")
_LINK = re.compile(r"\s*\[(F-[\w-]+)\]\([^)]*\)")
_PIPE = re.compile(r"(?<!\\)\|")


def _cells_of(line: str) -> list[str]:
    return [c.strip().replace("\\|", "|") for c in _PIPE.split(line.strip())[1:-1]]


def parse_cell(text: str) -> dict:
    """A cell as cell_markdown wrote it: its verdict text, the finding ids it linked and its marks."""
    cell: dict = {"findings": []}
    rest = text.strip()
    difference = re.search(r"\s*\*\*release difference\*\* \(vs (.*)\)$", rest)
    if difference:
        cell.update(release_difference=True, against=difference.group(1).split(", "))
        rest = rest[:difference.start()]
    reasons = re.search(r"\s*_not a release difference: (.*)_$", rest)
    if reasons:
        cell["reasons"] = reasons.group(1).split("; ")
        rest = rest[:reasons.start()]
    rest = rest.replace(f"_{NO_FINDING}_", "")
    cell["linked"] = _LINK.findall(rest)
    rest = _LINK.sub("", rest).strip()
    verdict = _VERDICT.match(rest)
    if not verdict:
        raise UsageError(f"a cell {text!r} names no verdict", "relink only a table pulsar-conformance releases wrote")
    counts = dict(re.findall(r"(not applicable|not run|[a-z]+) (\d+/\d+)", rest))
    cell.update(text=rest, verdict=verdict.group(1), counts=counts,
                n=int(next(iter(counts.values())).split("/")[1]) if counts else 0, agree=len(counts) == 1)
    return cell


def parse_markdown(text: str) -> dict:
    """The document a releases.md was written from, as far as the file keeps it (markdown()'s inverse)."""
    lines = text.splitlines()
    if not lines or not lines[0].startswith("Generated by `pulsar-conformance releases` from "):
        raise UsageError("not a table pulsar-conformance releases wrote (its first line says where it came from)",
                         "pass a folder with a releases.md that the releases command generated")
    said = lines[0].split(" from ", 1)[1].rsplit(": do not edit", 1)[0]
    inputs = re.findall(r"`([^`]+)`", said)
    gone = re.search(r"(\d+) bundle folders? not kept", said)
    doc: dict = {"inputs": inputs, "profiles": [], "gone": int(gone.group(1)) if gone else 0}
    group = None
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("## "):
            group = {"profile": line[3:].strip(), "columns": [], "rows": []}
            doc["profiles"].append(group)
        elif group is not None and line.startswith("| release | clients |"):
            i += 2
            while i < len(lines) and lines[i].startswith("|"):
                label, clients, runs, verdicts, suite, options, bundle = _cells_of(lines[i])
                count = re.match(r"(\d+) \(seeds (.*)\)", runs)
                source = re.match(r"^(?:`(.*)`|\[(.*)\]\(.*\))$", bundle)
                group["columns"].append({
                    "label": label, "clients": clients, "runs": int(count.group(1)) if count else 0,
                    "seeds": count.group(2).split(", ") if count else [], "verdicts": verdicts.split(", "),
                    "suite": suite, "options": options,
                    "source": (source.group(1) or source.group(2)) if source else ""})
                i += 1
            continue
        elif group is not None and line.startswith("| requirement | level |"):
            i += 2
            while i < len(lines) and lines[i].startswith("|"):
                rid, strength, *cells = _cells_of(lines[i])
                group["rows"].append({"id": rid, "strength": strength or None, "cells": [parse_cell(c) for c in cells]})
                i += 1
            continue
        elif group is not None and line.startswith("Release differences: "):
            found = re.match(r"Release differences: (.*)\. Differences not called release differences: (.*)\.$", line)
            group["release_differences"] = [] if found.group(1) == "none" else found.group(1).split(", ")
            group["other_differences"] = [] if found.group(2) == "none" else found.group(2).split(", ")
        i += 1
    return doc


def column_context(profile: str, column: dict) -> findings_index.Context:
    """What a column of a kept table ran on, read from its label (pulsar, java client, topology) and its clients."""
    parts = {}
    for part in re.sub(r" \([^)]*\)$", "", column["label"]).split(" / "):
        name = next((n for n in ("java client", "pulsar", "client", "topology") if part.startswith(n + " ")), None)
        if name:
            parts[name] = part[len(name) + 1:]
    clients = dict(c.split(" ", 1) for c in column["clients"].split(", ") if " " in c)
    java = parts.get("java client")
    java = None if java in (None, "-") else java
    topology = parts.get("topology")
    return findings_index.Context(
        pulsar=parts.get("pulsar"), python=clients.get("python"), java=clients.get("java") or java,
        topology=topology, store=store_of(profile, topology, "local"),
        clients=frozenset(name for name, release in (("python", clients.get("python")),
                                                     ("java", clients.get("java") or java)) if release))


def relink(folder: Path, today: str | None = None) -> dict:
    """Link a kept table's cells to the findings whose scope holds for them, and write it again (md and html)."""
    folder = Path(folder)
    table = folder / "releases.md"
    if not table.is_file():
        raise UsageError(f"{folder}: no releases.md", "pass a folder the releases command wrote")
    doc = parse_markdown(table.read_text())
    page = folder / "releases.html"
    stamp = re.search(r"\((\d{4}-\d\d-\d\dT[\d:]+[+-]\d\d:\d\d)\)", page.read_text()) if page.is_file() else None
    doc["generated"] = stamp.group(1) if stamp else "not recorded"
    doc["input_links"] = ([{"path": i, "kept": kept_href(i, folder) is not None} for i in doc["inputs"]]
                          + [{"path": "", "kept": False}] * doc.pop("gone"))
    doc["relinked"] = {"date": today or datetime.now(UTC).date().isoformat(),
                       "folder": os.path.relpath(folder.resolve(), _checkout().resolve())
                       if folder.resolve().is_relative_to(_checkout().resolve()) else folder.name,
                       "generated": f" (generated {stamp.group(1)})" if stamp else ""}
    # lazy: start-up: the table's own command
    from ..bundle.verdicts import load_requirements

    texts = {r.id: r.text for r in load_requirements()}  # the rows' tooltips: the table keeps no text
    for group in doc["profiles"]:
        contexts = [column_context(group["profile"], c) for c in group["columns"]]
        for column in group["columns"]:
            column["bundle"] = kept_href(column["source"], folder) if column["source"] else None
        for row in group["rows"]:
            row["text"] = texts.get(row["id"])
            for cell, context in zip(row["cells"], contexts, strict=True):
                linked = (findings_index.for_requirement(row["id"], FINDINGS_DOC, context=context)
                          if cell["verdict"] in _EXPLAINED else [])
                cell["findings"] = [dict(f, href=_findings_href(f["href"], folder)) for f in linked]
                cell["unexplained"] = cell["verdict"] == "fail" and not linked
                cell.pop("linked", None)
    write_atomic(table, markdown(doc))
    write_atomic(page, render_html(doc))
    return doc


def main(argv: list[str] | None = None) -> int:
    """``python -m pulsar_conformance.reports.view.releases_table --relink FOLDER...``: re-link kept tables (see relink)."""
    # lazy: start-up: the module's command line alone
    import argparse

    parser = argparse.ArgumentParser(prog="python -m pulsar_conformance.reports.view.releases_table")
    parser.add_argument("--relink", nargs="+", required=True, metavar="FOLDER",
                        help="a folder the releases command wrote, whose bundles were not kept")
    options = parser.parse_args(argv)
    for folder in options.relink:
        doc = relink(Path(folder))
        print(f"re-linked {folder}: {sum(len(g['rows']) for g in doc['profiles'])} row(s)")
    return EXIT_PASS


if __name__ == "__main__":
    raise SystemExit(main())
