"""``judge BUNDLE [--out DIR]``: a saved certification bundle judged again with today's judges.

A live run leaves each scenario's outcome in the bundle (``captures/<scenario>/outcome.json``,
conformance/harness/outcome.py), and its judge is a pure function of it (Jepsen's checkers are the
model). This command judges those outcomes again, as the test modules did, and writes a new bundle:
a fix to a judge re-judges every kept run, and a vendor can re-judge last year's bundle.

1. The input (a bundle folder or its ``.tar.gz``) is untrusted: it is copied into a new folder and the
   copy checked against its SHA-256 manifest, as ``results`` and ``verify`` do. A copy that does not
   match it, or no certification bundle at all, is refused (exit 64) and nothing is left written. A
   bundle without a manifest (kept before manifests, or summary.json alone) is judged and said to be
   unverified. The input is never changed: the output is ``--out DIR`` (new or empty), by default
   ``<BUNDLE>-rejudged-<time>`` beside it.
2. Each capture with an ``outcome.json`` whose run recorded rows from it is judged again: the protocol
   that saves that outcome type declares its judge, checks and client (conformance/protocols/<p>/
   rejudge.py), and the rows go through the recorder itself (conformance/harness/rejudge.py), so the
   live rules hold: a judge that raises leaves its requirements unknown, the run's configuration
   hazards (summary.json's ``configuration``) make the failures they explain unknown, a row names its
   client. A capture whose test stopped before recording anything is not judged (what it saved may be
   incomplete): judging it would give verdicts the run never reached.
3. Every other row is carried over as recorded, and summary.json's ``rejudged`` says why: a model
   check (``spec check``, mutants), a row recorded without a capture (a release's answer), a capture
   without ``outcome.json``, an outcome type no protocol declares. Spark's verdicts are data of the
   outcome (its ``verdict``): read as recorded, not run again.
4. A test whose rows were judged again gets its junit outcome from ``Recorder.finish``'s rules (failed
   on a failed MUST, broken on an unknown); one that broke or was skipped for another reason keeps its
   outcome. The requirement verdicts and the run's come from reports/bundle/verdicts.py as certify's do, and
   the report, requirements.junit.xml, the allure labels, reproduce.md and the findings the rows cite
   (reports/bundle/bundle_findings.py) from reports/bundle/contents.py's functions and the page from reports/view/report_page.py; then a new manifest and archive. The exit code is the new verdict's (0 pass, 1 fail, 2 unknown).
"""
from __future__ import annotations

import contextlib
import importlib
import importlib.util
import json
import os
import re
import shutil
import tarfile
import time
import traceback
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from datetime import UTC, datetime
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from pulsar_conformance import __version__
from pulsar_conformance.conformance.harness import itf_traces
from pulsar_conformance.conformance.harness import rejudge as harness
from pulsar_conformance.conformance.profiles import PROFILES
from pulsar_conformance.conformance.run import CertifyRun
from pulsar_conformance.errors import UsageError
from pulsar_conformance.files import check_output_path
from pulsar_conformance.output import emit, progress
from pulsar_conformance.protocols import PROTOCOLS, protocol_options

from ..bundle import archive, bundle_findings, contents, events
from ..bundle.junit import read_junit, write_requirements_junit
from ..bundle.reading import FIX_TAMPERED
from ..bundle.reading import load as load_bundle
from ..bundle.verdicts import (
    exit_code,
    load_requirements,
    requirement_rows,
    run_context,
    run_verdict,
    summary_topology,
)
from ..view import failover, report_page, values

FORMAT = "pulsar-conformance-rejudge/1"
CHECKS_FILE = "checks.jsonl"
JUNIT_FILE = "junit.xml"
FIX_NOT_A_BUNDLE = "pass the folder certify wrote (its --out) or the .tar.gz beside it"
FIX_SERIES = "judge each run's bundle of the series (OUT/run-1, OUT/run-2, ...) on its own"
# the junit outcomes a test's recorder gave it (Recorder.finish): the only ones judging again can change;
# a test broken by anything else (a deployment, a fixture, a time-out) keeps what it was
_FINISHED = re.compile(r"VerdictUnknown: not reached: ")


@dataclass
class Capture:
    """One capture folder of the bundle and what became of it."""

    name: str
    protocol: str | None = None
    saved_type: str | None = None
    test: str | None = None
    client: str | None = None
    recorded: list[int] = field(default_factory=list)  # indexes of its recorded rows
    rows: list[dict] = field(default_factory=list)  # its rows judged again
    raised: str | None = None  # what the judge or the recorder raised (the live test broke there)
    why_not: str | None = None  # not judged again: why (its rows are carried over)
    checks: object = None  # the protocol's Checks (for the test's outcome)

    @property
    def path(self) -> str:
        return f"captures/{self.name}"

    def to_json(self) -> dict:
        doc = {"capture": self.path, "protocol": self.protocol, "outcome": self.saved_type, "test": self.test}
        if self.why_not:
            return doc | {"rejudged": False, "why": self.why_not, "recorded_rows": len(self.recorded)}
        return doc | {"rejudged": True, "client": self.client, "recorded_rows": len(self.recorded),
                      "rows": len(self.rows), "raised": self.raised}


def run_judge(bundle_path: str, out: str | None, options) -> int:
    started = time.time()
    summary, target = rejudge(bundle_path, out, say=progress)
    doc = document(summary, target, time.time() - started)
    emit(options, doc, lambda: text(doc))
    return exit_code(summary["verdict"], interrupted=bool(summary.get("interrupted")))


def rejudge(bundle_path: str | Path, out: str | Path | None = None, *, say=lambda _text: None) -> tuple[dict, Path]:
    """Judge the bundle at ``bundle_path`` again into ``out``: the new summary and where it is."""
    source = _source(bundle_path)
    target = _target(source, out)
    staging = target.with_name(f".{target.name}.rejudging-{os.getpid()}")
    if staging.exists():
        raise UsageError(f"{staging} exists (a judge of the same output still running, or killed)",
                         f"remove {staging}, or pass another --out")
    made = _first_missing(staging)  # removed again, with what it holds, if anything goes wrong
    try:
        integrity = _stage(source, staging)
        _drop_judged_traces(staging)
        summary = _rejudge_staged(staging, source, target, integrity, say)
        archive.write_manifest(staging)  # before the rename: the folder's name is in no file it hashes
        if target.exists():
            target.rmdir()  # new or empty (check_output_path): the staged folder takes its place
        staging.rename(target)
    except BaseException:
        shutil.rmtree(made, ignore_errors=True)
        raise
    archive.write_archive(target)
    return summary, target


def _suite_version() -> str:
    """The installed suite's version (from git at build time), as summary.json's versions say it."""
    try:
        return version("pulsar-conformance")
    except PackageNotFoundError:
        return f"{__version__} (not installed)"


# ------------------------------------------------------------------------------------------- the input


def _first_missing(path: Path) -> Path:
    """The outermost folder of ``path`` that does not exist yet (``path`` itself if its parent does)."""
    while not path.parent.exists():
        path = path.parent
    return path


def _source(bundle_path: str | Path) -> Path:
    where = Path(bundle_path).expanduser()
    if where.is_file() and where.name == "summary.json":
        where = where.parent
    if not where.exists():
        raise UsageError(f"{bundle_path}: no such file or folder", FIX_NOT_A_BUNDLE)
    if where.is_dir():
        if not (where / "summary.json").is_file():
            raise UsageError(f"{bundle_path}: no certification bundle here (no summary.json)", FIX_NOT_A_BUNDLE)
    elif not archive.is_archive(where):
        raise UsageError(f"{bundle_path}: neither a bundle folder nor a bundle archive ({archive.SUFFIX})",
                         FIX_NOT_A_BUNDLE)
    return where.resolve()


def _target(source: Path, out: str | Path | None) -> Path:
    """The output folder: ``--out`` (new or empty), else ``<bundle>-rejudged-<time>`` beside the bundle;
    never the bundle, a folder inside it, or one it is inside of (the input stays as it was)."""
    if out is None:
        stem = source.name.removesuffix(archive.SUFFIX).removesuffix(".tgz")
        out = source.with_name(f"{stem}-rejudged-{datetime.now().strftime('%Y%m%d-%H%M%S')}")
        if out.exists():
            raise UsageError(f"{out} exists", "pass --out DIR with a new or empty folder")
    target = check_output_path(out, kind="dir", option="--out", empty=True)
    if target == source or source in target.parents or (source.is_dir() and target in source.parents):
        raise UsageError(f"--out {out} is the bundle, inside it or around it: judging again never changes the "
                         "bundle it reads", "pass --out DIR with a new folder beside the bundle")
    beside = archive.archive_path(target)
    if beside.exists():
        raise UsageError(f"--out {out}: {beside} exists, and the new bundle's archive is written there",
                         f"remove {beside}, or pass another --out")
    return target


def _drop_judged_traces(staging: Path) -> None:
    """The live traces' ITF files an earlier judging wrote (captures/*/traces/, harness/itf_traces.py) are its
    output, not the run's record: removed from the copy, so the new bundle holds those today's judges write
    and none a fixed judge no longer does."""
    for folder in (staging / "captures").glob(f"*/{itf_traces.FOLDER}"):
        if folder.is_dir():
            shutil.rmtree(folder)


def _stage(source: Path, staging: Path) -> archive.Integrity:
    """The bundle's regular files copied (or extracted) into ``staging``, and the copy checked against
    its manifest: what is judged is what was checked. A copy that does not match is refused."""
    if source.is_dir():
        staging.mkdir(parents=True)
        for rel in [*archive.bundle_files(source), *([archive.MANIFEST] if (source / archive.MANIFEST).is_file() else [])]:
            (staging / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source / rel, staging / rel)  # a new file: writing it never touches the input
    else:
        checked = archive.verify(source)  # links, paths outside the bundle: the archive's own problems
        if checked.manifest and checked.problems:
            raise UsageError(f"{source}: {checked.text()}", FIX_TAMPERED)
        staging.mkdir(parents=True)
        _extract(source, staging)
    integrity = archive.verify(staging)
    if integrity.manifest and integrity.problems:
        raise UsageError(f"{source}: {integrity.text()}", FIX_TAMPERED)
    integrity.path = str(source)
    return integrity


def _extract(source: Path, staging: Path) -> None:
    """Each regular file of the archive into ``staging`` (archive._members refuses links and paths
    outside the bundle's folder; nothing else is written)."""
    scratch = archive.Integrity(str(source), "archive")
    with archive.open_archive(source) as tar:
        for member, rel in archive._members(source, tar, scratch):
            path = staging / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            try:
                with tar.extractfile(member) as stream, open(path, "wb") as sink:
                    shutil.copyfileobj(stream, sink)
            except (tarfile.TarError, OSError, EOFError) as error:
                raise UsageError(f"{source}: {rel} cannot be read ({type(error).__name__}: {error})",
                                 FIX_TAMPERED) from None
    if scratch.problems:
        raise UsageError(f"{source}: {'; '.join(scratch.problems[:3])}", FIX_TAMPERED)


def _recorded_checks(staging: Path, summary: dict, source: Path) -> list[dict]:
    """The bundle's rows: checks.jsonl, else (a bundle kept as summary.json alone) the summary's."""
    path = staging / CHECKS_FILE
    if path.is_file():
        rows = []
        for n, line in enumerate(path.read_text().splitlines(), 1):
            if not line.strip():
                continue
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError as error:
                raise UsageError(f"{source}: {CHECKS_FILE} line {n} is not JSON ({error.msg})", FIX_TAMPERED) from None
    else:
        rows = summary.get("checks")
        if not isinstance(rows, list):
            raise UsageError(f"{source}: neither {CHECKS_FILE} nor summary.json's checks", FIX_NOT_A_BUNDLE)
    for n, row in enumerate(rows, 1):
        if not (isinstance(row, dict) and isinstance(row.get("check"), str) and row.get("kind") in ("deployment", "model")
                and isinstance(row.get("requirements"), list) and isinstance(row.get("verdict"), str)
                and isinstance(row.get("details") or {}, dict)):
            raise UsageError(f"{source}: recorded row {n} ({str(row)[:80]}) is not a check row (check, kind, "
                             "requirements, verdict)", FIX_TAMPERED)
    return rows


def _recorded_tests(staging: Path, summary: dict) -> dict:
    """The tests as read_junit gives them: from junit.xml, else from summary.json (kept without it)."""
    if (staging / JUNIT_FILE).is_file():
        return read_junit(staging / JUNIT_FILE)
    cases = [dict(c) for c in summary.get("tests") or [] if isinstance(c, dict) and isinstance(c.get("name"), str)]
    return _counted(cases)


def _counted(cases: list[dict]) -> dict:
    counts = {"total": 0, "passed": 0, "failed": 0, "errors": 0, "skipped": 0, "timed_out": 0}
    for case in cases:
        counts["total"] += 1
        if case.get("outcome") in counts:
            counts[case["outcome"]] += 1
    return {**counts, "cases": cases}


# ------------------------------------------------------------------------------------------ the judging


def registry() -> list[tuple[str, object]]:
    """(area, Judged) of every protocol whose package declares how its saved runs are judged
    (conformance/protocols/<p>/rejudge.py: ``JUDGED``), found from the descriptors' checks module."""
    found = []
    for p in PROTOCOLS:
        if not p.checks:
            continue
        name = p.checks.partition(":")[0].rsplit(".", 1)[0] + ".rejudge"
        if importlib.util.find_spec(name) is None:
            continue
        found += [(p.area, entry) for entry in importlib.import_module(name).JUDGED]
    return found


@contextlib.contextmanager
def _configuration(summary: dict):
    """The run's configuration (summary.json's ``configuration``) in the variables its protocols' checks
    read, while judging: a hazard of the run (``--migration-tls on-no-tls-url``) applies again."""
    given = summary.get("configuration") or {}
    wanted = {o.env: str(given[o.field]) for o in protocol_options() if isinstance(given, dict) and given.get(o.field)}
    before = {name: os.environ.get(name) for name in wanted}
    os.environ.update(wanted)
    try:
        yield
    finally:
        for name, value in before.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def _captures(staging: Path, recorded: list[dict]) -> list[Capture]:
    found = {p.parent.name: Capture(p.parent.name) for p in sorted((staging / "captures").glob("*/outcome.json"))}
    for i, row in enumerate(recorded):
        where = (row.get("details") or {}).get("capture")
        if row["kind"] == "deployment" and isinstance(where, str) and where.startswith("captures/"):
            capture = found.get(where.removeprefix("captures/"))
            if capture is not None:
                capture.recorded.append(i)
    return list(found.values())


def _judge(staging: Path, summary: dict, recorded: list[dict], captures: list[Capture]) -> None:
    """Each capture judged again into its ``rows`` (or why not), through the live recorder."""
    entries = registry()
    # the recorder appends to checks.jsonl: the recorded rows are in memory, the file gets the new ones
    (staging / CHECKS_FILE).unlink(missing_ok=True)
    run = CertifyRun(out=staging, profile=str(summary.get("profile")), seed=int(summary.get("seed") or 1))
    with _configuration(summary):
        for capture in captures:
            run_dir = staging / capture.path
            try:
                capture.saved_type = json.loads((run_dir / "outcome.json").read_text()).get("type")
            except (OSError, UnicodeDecodeError, json.JSONDecodeError, AttributeError) as error:
                capture.why_not = f"its outcome.json is not readable ({type(error).__name__})"
                continue
            tests = list(dict.fromkeys(recorded[i].get("test") for i in capture.recorded))
            capture.test = tests[0] if tests else None
            match = next(((area, e) for area, e in entries if e.matches(str(capture.saved_type))), None)
            if match is None:
                capture.why_not = (f"no protocol declares how its outcome type {capture.saved_type!r} is judged "
                                   "(conformance/protocols/<protocol>/rejudge.py)")
                continue
            capture.protocol, entry = match
            capture.checks = entry.checks
            if not capture.recorded:
                capture.why_not = ("its test recorded no row from it (it stopped before judging, so what it saved "
                                   "may be incomplete): judging it now would give verdicts the run never reached")
                continue
            if len(tests) > 1:
                capture.why_not = f"rows of more than one test ({', '.join(map(str, tests))}) name it"
                continue
            try:
                loaded = entry.load(run_dir)
                capture.client = entry.client(loaded)
            except Exception as error:  # noqa: BLE001 - an outcome today's type cannot read: carried over, said why
                capture.why_not = (f"its outcome.json does not load as today's {entry.outcome.__qualname__} "
                                   f"({type(error).__name__}: {error})")
                continue
            rec = harness.recorder_of(entry, run, loaded, capture.test or "")
            try:
                rec.record(entry.judge(loaded))
            except Exception as error:  # noqa: BLE001 - the live test broke here: its rows so far stand
                where = traceback.extract_tb(error.__traceback__)[-1]
                capture.raised = (f"judging again raised {type(error).__name__}: {error} (at "
                                  f"{where.filename.rsplit('/', 1)[-1]}:{where.lineno}); the rows before it stand")
            capture.rows = list(rec.rows)


def _merged(recorded: list[dict], captures: list[Capture]) -> tuple[list[dict], list[dict]]:
    """The new rows in the recorded order (a capture's new rows where its first recorded row was), and
    each carried-over row with why it was carried over."""
    judged = [c for c in captures if not c.why_not]
    owner = {i: c for c in judged for i in c.recorded}
    not_judged = {i: c for c in captures if c.why_not for i in c.recorded}
    rows, carried, placed = [], [], set()
    for i, row in enumerate(recorded):
        capture = owner.get(i)
        if capture is not None:
            if capture.name not in placed:
                rows += capture.rows
                placed.add(capture.name)
            continue
        rows.append(row)
        carried.append({"check": row["check"], "capture": (row.get("details") or {}).get("capture"),
                        "why": _why_carried(row, not_judged.get(i))})
    return rows, carried


def _why_carried(row: dict, capture: Capture | None) -> str:
    if row["kind"] == "model":
        return "a model check (spec check, mutants): the spec's result, no outcome to judge"
    if capture is not None:
        return capture.why_not
    where = (row.get("details") or {}).get("capture")
    if not where:
        return "recorded without a capture (a release's answer, a check made before any traffic)"
    return f"{where} has no outcome.json (a check recorded without a saved outcome)"


# ------------------------------------------------------------------------------------------ the tests


def junit_name(nodeid: str) -> str:
    """A pytest node id as read_junit names its junit case (``classname::name``)."""
    path, *rest = nodeid.split("::")
    module = (path[:-3] if path.endswith(".py") else path).replace("/", ".")
    return "::".join([".".join([module, *rest[:-1]]), rest[-1]]) if rest else module


def _retest(tests: dict, rows: list[dict], captures: list[Capture]) -> list[dict]:
    """The junit outcome of each test whose rows were judged again, as its recorder would finish it;
    what changed (name, was, now)."""
    changed = []
    by_name = {c["name"]: c for c in tests["cases"]}
    for capture in captures:
        if capture.why_not or not capture.test:
            continue
        case = by_name.get(junit_name(capture.test))
        if case is None or case.get("rejudged"):
            continue
        if not (case["outcome"] == "passed" or (case["outcome"] == "failed" and "product defect" in (case.get("message") or ""))
                or (case["outcome"] == "errors" and _FINISHED.search(case.get("message") or ""))):
            continue  # broken, skipped or timed out for a reason of its own: judging again does not change that
        mine = [r for r in rows if r.get("test") == capture.test]
        outcome, message, properties = harness.outcome_of_test(mine, capture.test, capture.checks)
        raised = [c.raised for c in captures if c.raised and c.test == capture.test]
        if raised:  # the live test broke where the judge raised: no verdict of the test's own
            outcome, message = "errors", "; ".join(raised)
        was = case["outcome"]
        case.update(outcome=outcome, message=message[:500], rejudged=True,
                    requirements=[{"id": rid, "said": said} for rid, said in properties])
        if was != outcome:
            changed.append({"test": case["name"], "was": was, "now": outcome})
    counted = _counted(tests["cases"])
    tests.clear()
    tests.update(counted)
    return changed


def _rewrite_junit(path: Path, tests: dict) -> None:
    """junit.xml with each re-judged test's outcome and properties as its recorder would leave them."""
    tree = ET.parse(path)
    cases = {c["name"]: c for c in tests["cases"] if c.get("rejudged")}
    for suite in tree.getroot().iter("testsuite"):
        for node in suite.iter("testcase"):
            case = cases.get(f"{node.get('classname')}::{node.get('name')}")
            if case is None:
                continue
            for child in [c for c in node if c.tag in ("failure", "error", "properties")]:
                node.remove(child)
            if case["requirements"]:
                props = ET.Element("properties")
                for p in case["requirements"]:
                    ET.SubElement(props, "property", name=p["id"], value=p["said"])
                node.insert(0, props)
            tag = {"failed": "failure", "errors": "error"}.get(case["outcome"])
            if tag:
                ET.SubElement(node, tag, message=case["message"]).text = case["message"]
        all_cases = list(suite.iter("testcase"))
        suite.set("failures", str(sum(1 for c in all_cases if c.find("failure") is not None)))
        suite.set("errors", str(sum(1 for c in all_cases if c.find("error") is not None)))
    tree.write(path, encoding="utf-8", xml_declaration=True)


def _pytest_exit(summary: dict, tests: dict) -> int:
    """What pytest exited with in the recorded run, as far as its verdict used it."""
    if summary.get("interrupted"):
        return 130
    said = next((m for r in summary.get("reasons") or [] if (m := re.search(r"pytest exited (\d+)", str(r)))), None)
    if said:
        return int(said.group(1))
    return 1 if tests.get("failed") or tests.get("errors") else 0


# -------------------------------------------------------------------------------------- the new bundle


def _rejudge_staged(staging: Path, source: Path, target: Path, integrity, say) -> dict:
    summary = load_bundle(staging).summary
    if summary.get("series"):
        raise UsageError(f"{source}: a series of runs (certify --repeat or --matrix), not one bundle", FIX_SERIES)
    recorded = _recorded_checks(staging, summary, source)
    tests = _recorded_tests(staging, summary)
    captures = _captures(staging, recorded)
    say(f"judge: {len(captures)} saved outcome(s) in {source}; judging them with today's judges...")
    _judge(staging, summary, recorded, captures)
    checks, carried = _merged(recorded, captures)
    tests_changed = _retest(tests, checks, captures)
    requirements = load_requirements()
    # as certify's bundle: each row links only the findings whose scope holds for the run (its release,
    # topology, configuration store), and the bundle carries their text as today's docs/findings.md says it
    context = run_context(summary.get("profile"), summary.get("versions") or {}, summary_topology(summary),
                          summary.get("deployment") or "local")
    rows = requirement_rows(requirements, checks, context=context)
    bundle_findings.write(staging, rows, contents.suite_commit())
    narrowed = summary.get("narrowed") or {}
    failing = events.summary_counts(checks, requirements)
    verdict, reasons = run_verdict(rows, tests, _pytest_exit(summary, tests), declared=summary.get("declared") or [],
                                   excluded=narrowed.get("excluded") or [], selected=narrowed.get("selected"),
                                   failing=failing)
    rejudged = [c for c in captures if not c.why_not]
    was = {r["id"]: r["verdict"] for r in summary.get("requirements") or [] if isinstance(r, dict) and "id" in r}
    known = {r.id for r in requirements}
    record = {
        "format": FORMAT, "from": str(source), "at": datetime.now(UTC).isoformat(timespec="seconds"),
        "suite": {"version": _suite_version(), "commit": contents.suite_commit()},
        "input": integrity.to_json() | {"verified": integrity.ok},
        "recorded": {"verdict": summary.get("verdict"), "reasons": summary.get("reasons"),
                     "suite_commit": (summary.get("versions") or {}).get("suite_commit")},
        "captures": [c.to_json() for c in captures],
        "rows": {"rejudged": sum(len(c.rows) for c in rejudged), "carried_over": len(carried),
                 "replaced": sum(len(c.recorded) for c in rejudged)},
        "carried_over": carried,
        "changed": {
            "verdict": None if summary.get("verdict") == verdict else {"was": summary.get("verdict"), "now": verdict},
            "requirements": [{"id": r["id"], "was": was.get(r["id"], "absent"), "now": r["verdict"]} for r in rows
                             if was.get(r["id"], "absent") != r["verdict"] and not (r["id"] not in was and r["verdict"]
                                                                                  in ("not run", "uncovered"))],
            "tests": tests_changed,
            "gone": sorted(set(was) - {r["id"] for r in rows}),  # ids today's catalog no longer has
        },
        # a recorded row naming an id today's catalog lacks judges nothing in the new verdicts
        "unknown_ids": sorted({q for c in checks for q in c["requirements"] if q not in known}),
        "spark": "Spark's verdicts (verdict.json, an outcome's verdict) are read as recorded, not run again",
    }
    note = (f"judged again on {record['at'][:10]} by suite {record['suite']['version']} ({record['suite']['commit'] or 'no checkout'}): "
            f"{record['rows']['rejudged']} row(s) of {len(rejudged)} saved outcome(s) re-judged, "
            f"{len(carried)} carried over as recorded (summary.json's rejudged)")
    if not integrity.ok:
        note += f"; the input was not verified ({integrity.text()})"
    new = dict(summary)
    new.update(verdict=verdict, reasons=[*reasons, note], requirements=rows, checks=checks, tests=tests["cases"],
               counts={"requirements": contents._count(rows), "tests": {k: v for k, v in tests.items() if k != "cases"},
                       "failing": failing},
               rejudged=record, explore=contents._explore_digest(staging))
    new["bundle"] = {**(summary.get("bundle") or {}), "archive": archive.archive_path(target).name,
                     "manifest": archive.MANIFEST}
    _write(staging, new, rows, checks, tests)
    return new


def _write(staging: Path, summary: dict, rows: list[dict], checks: list[dict], tests: dict) -> None:
    (staging / CHECKS_FILE).write_text("".join(json.dumps(c, default=str) + "\n" for c in checks))
    (staging / "summary.json").write_text(json.dumps(summary, indent=2, default=str))
    if (staging / JUNIT_FILE).is_file():
        _rewrite_junit(staging / JUNIT_FILE, tests)
    write_requirements_junit(staging, summary)
    profile = PROFILES.get(summary.get("profile"))
    if profile is not None and (staging / "reproduce.md").is_file():
        (staging / "reproduce.md").write_text(contents._reproduce(summary, profile))
    if (staging / "allure-results").is_dir():
        contents._allure_extras(staging, summary)
    spec = summary.get("spec") or {"checks": [], "mutants": []}
    (staging / "report.html").write_text(report_page.render(summary, rows, checks, contents._captures(staging), spec,
                                                        values.scenarios(staging), failover.scenarios(staging),
                                                        out=staging))


# -------------------------------------------------------------------------------------------- output


def document(summary: dict, target: Path, seconds: float) -> dict:
    """What ``judge --json`` prints."""
    record = summary["rejudged"]
    return {"verdict": summary["verdict"], "was": record["recorded"]["verdict"], "out": str(target),
            "archive": str(archive.archive_path(target)), "from": record["from"], "input": record["input"],
            "rows": record["rows"], "changed": record["changed"], "captures": record["captures"],
            "reasons": summary["reasons"], "seconds": round(seconds, 1)}


def text(doc: dict) -> str:
    changed = doc["changed"]
    lines = [f"{doc['verdict'].upper()} (recorded: {str(doc['was']).upper()}), judged again from {doc['from']}",
             f"  {doc['rows']['rejudged']} row(s) of {sum(1 for c in doc['captures'] if c['rejudged'])} saved "
             f"outcome(s) re-judged with today's judges, {doc['rows']['carried_over']} carried over as recorded",
             "  input: " + ("verified against its manifest" if doc["input"]["verified"] else
                            "NOT VERIFIED (no manifest): " + "; ".join(doc["input"]["problems"][:1]))]
    for c in doc["captures"]:
        if not c["rejudged"]:
            lines.append(f"  not judged again: {c['capture']}: {c['why']}")
        elif c.get("raised"):
            lines.append(f"  {c['capture']}: {c['raised']}")
    if changed["requirements"]:
        lines.append("requirement verdicts changed:")
        lines += [f"  {r['id']}: {r['was']} -> {r['now']}" for r in changed["requirements"]]
    else:
        lines.append("requirement verdicts: as recorded")
    lines += [f"  test {t['test']}: {t['was']} -> {t['now']}" for t in changed["tests"]]
    lines += [f"  - {r}" for r in doc["reasons"]]
    lines.append(f"new bundle: {doc['out']} (report.html; archive {doc['archive']})")
    return "\n".join(lines)
