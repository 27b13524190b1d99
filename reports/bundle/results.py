"""``results BUNDLE|ARCHIVE`` and ``verify BUNDLE|ARCHIVE``: what a certification bundle says, after
checking that it is the one certify wrote (like ``sonobuoy results``; docs/certify.md).

``results`` prints the verdict and its reasons, the requirements certified, the failures with their
evidence (HTTP error bodies decoded: reports/bundle/readable.py) and findings (those the bundle cites, whose text it
carries in findings.html; for a failure it cites none, those docs/findings.md names now within the run's scope),
what got no verdict; ``--json`` the same as one document. It checks the
bundle against its SHA-256 manifest first (reports/bundle/archive.py) and refuses a bundle that does not
match it (exit 64: its verdict cannot be trusted); a bundle without a manifest (written before
manifests) is read and said to be unverified. Its exit code is the run's (0 pass, 1 fail,
2 unknown, 130 interrupted), so a CI job can gate on a downloaded archive.

``verify`` only checks: exit 0 every file matches, 1 a file changed, is missing or was added,
2 there is no manifest to check against, 64 not a bundle.
"""
from __future__ import annotations

from pathlib import Path

from pulsar_conformance.conformance.harness import findings as findings_index
from pulsar_conformance.errors import EXIT_FAIL, EXIT_PASS, EXIT_UNKNOWN, UsageError
from pulsar_conformance.output import emit

from . import archive
from .archive import Integrity
from .readable import evidence_text
from .reading import load_checked, verify
from .verdicts import exit_code, summary_context

EVIDENCE_SHOWN = 3  # per failing requirement in the text; --json has them all


def report(summary: dict, integrity: Integrity, path: str) -> dict:
    """The document ``results --json`` prints."""
    rows = [r for r in summary.get("requirements", []) if isinstance(r, dict)]
    declared = summary.get("declared") or []
    excluded = (summary.get("narrowed") or {}).get("excluded") or []
    versions = summary.get("versions") or {}

    def brief(r: dict, **more) -> dict:
        return {"id": r["id"], "strength": r.get("strength"), "text": r.get("text"), "verdict": r["verdict"], **more}

    return {
        "bundle": path, "integrity": integrity.to_json(),
        "run_id": summary.get("run_id"), "profile": summary.get("profile"), "verdict": summary["verdict"],
        "reasons": summary.get("reasons", []), "interrupted": bool(summary.get("interrupted")),
        "seconds": summary.get("seconds"), "finished": summary.get("finished"), "seed": summary.get("seed"),
        "product": summary.get("product"),
        "suite": {"version": versions.get("suite"), "commit": versions.get("suite_commit")},
        "versions": versions,
        "certified": [brief(r) for r in rows if r["verdict"] == "pass" and (not declared or r["id"] in declared)],
        "passed_outside_profile": [r["id"] for r in rows if r["verdict"] == "pass" and declared
                                   and r["id"] not in declared],
        "failures": [brief(r, evidence=_failing_evidence(r), findings=r.get("findings") or [],
                           findings_now=_findings_now(summary, r),
                           hazards=r.get("hazards") or [], runs=r.get("failing_runs"))
                     for r in rows if r["verdict"] == "fail"],
        "unknown": [brief(r, evidence=r.get("evidence") or []) for r in rows if r["verdict"] == "unknown"],
        "no_verdict": [{"id": rid, "verdict": _verdict_of(rows, rid)} for rid in declared
                       if rid not in excluded and _verdict_of(rows, rid) not in
                       ("pass", "fail", "unknown", "differs", "not applicable")],
        "excluded": excluded,
        "not_applicable": [brief(r, evidence=r.get("evidence") or []) for r in rows
                           if r["verdict"] == "not applicable"],
        "differs": [brief(r, evidence=r.get("evidence") or []) for r in rows if r["verdict"] == "differs"],
        "tests_not_passed": [{"name": t.get("name"), "outcome": t.get("outcome"), "message": t.get("message")}
                             for t in summary.get("tests", []) if isinstance(t, dict) and t.get("outcome") != "passed"],
        "series": summary.get("series"),
    }


def _verdict_of(rows: list[dict], rid: str) -> str:
    return next((r["verdict"] for r in rows if r["id"] == rid), "absent")


def _findings_now(summary: dict, row: dict) -> list[dict]:
    """The findings docs/findings.md of this suite has now for a failure its bundle recorded none for (a finding
    written after the run), narrowed to the run's scope; none where the bundle already names one or the suite has
    no docs/findings.md."""
    if row.get("findings") or not findings_index.DOC.exists():
        return []
    try:
        context = summary_context(summary, row["id"])
    except (ValueError, TypeError, AttributeError):  # a release or client the summary spells oddly: not linked
        return []
    return findings_index.for_requirement(row["id"], context=context)


def _failing_evidence(row: dict) -> list[str]:
    """The evidence of the checks that failed it (``check: fail (...)``): they are why; all of it if none says."""
    evidence = [e for e in row.get("evidence") or [] if isinstance(e, str)]
    return [e for e in evidence if e.split(" (", 1)[0].endswith(": fail")] or evidence


def text(doc: dict) -> str:
    product = doc.get("product") or {}
    versions = doc.get("versions") or {}
    suite = doc["suite"]
    commit = f", commit {suite['commit']}" if suite.get("commit") else ""
    integrity = doc["integrity"]
    lines = [
        f"Bundle     {doc['bundle']}",
        f"Integrity  {_integrity_text(integrity)}",
        f"Run        {doc.get('run_id')}: profile {doc.get('profile')}, seed {doc.get('seed')}, "
        f"{doc.get('seconds')} s{', interrupted' if doc['interrupted'] else ''}",
        f"Product    {product.get('name')} {product.get('version')} ({product.get('vendor')}, {product.get('type')})",
        f"Versions   Pulsar {versions.get('pulsar') or '?'}, pulsar-client {versions.get('pulsar_client_python') or '?'}"
        f" (C++ {versions.get('pulsar_client_cpp') or '?'}), suite {suite.get('version') or '?'}{commit}",
        "",
        f"Verdict: {doc['verdict'].upper()}",
        *[f"  - {r}" for r in doc["reasons"]],
        "",
    ]
    lines.append(f"Certified ({len(doc['certified'])}):" if doc["certified"] else "Certified: none")
    lines += [f"  {r['id']:<12} {r['strength'] or '':<6} {_short(r['text'], 90)}" for r in doc["certified"]]
    if doc["passed_outside_profile"]:
        lines.append(f"  also passed, not certified by this profile: {', '.join(doc['passed_outside_profile'])}")
    if doc["failures"]:
        lines += ["", f"Failed ({len(doc['failures'])}):"]
        for r in doc["failures"]:
            kind = "" if r["strength"] == "MUST" else "  (a deviation: not a MUST)"
            lines.append(f"  {r['id']:<12} {r['strength'] or '':<6} {_short(r['text'], 90)}{kind}")
            lines += [f"      evidence: {_short(evidence_text(e), 300)}" for e in r["evidence"][:EVIDENCE_SHOWN]]
            if len(r["evidence"]) > EVIDENCE_SHOWN:
                lines.append(f"      (and {len(r['evidence']) - EVIDENCE_SHOWN} more: --json)")
            for f in r["findings"]:
                lines.append(f"      finding:  {f.get('id')} {_short(f.get('title'), 100)} ({f.get('href')})")
            for f in r.get("findings_now") or ():
                lines.append(f"      finding:  {f.get('id')} {_short(f.get('title'), 100)} (docs/findings.md now; "
                             "the bundle predates it)")
            if not r["findings"] and not r.get("findings_now"):
                lines.append("      finding:  no finding explains this failure yet (docs/findings.md)")
            for h in r["hazards"]:
                lines.append(f"      hazard:   {h.get('name')}: {h.get('says')}; fix: {h.get('fix')}")
    if doc["unknown"]:
        lines += ["", f"Unknown ({len(doc['unknown'])}):"]
        for r in doc["unknown"]:
            lines.append(f"  {r['id']:<12} {r['strength'] or '':<6} {_short(r['text'], 90)}")
            lines += [f"      evidence: {_short(evidence_text(e), 300)}" for e in r["evidence"][:1]]
    if doc["no_verdict"]:
        lines += ["", f"No verdict ({len(doc['no_verdict'])} the profile certifies): "
                  + ", ".join(f"{r['id']} ({r['verdict']})" for r in doc["no_verdict"])]
    if doc["excluded"]:
        lines.append(f"Excluded by the user (--exclude): {', '.join(doc['excluded'])}")
    for key, title in (("not_applicable", "Not applicable to this release"),
                       ("differs", "Differs (an observation, no conformance failure)")):
        if doc[key]:
            lines.append(f"{title}: {', '.join(r['id'] for r in doc[key])}")
    if doc["tests_not_passed"]:
        lines += ["", f"Tests that did not pass ({len(doc['tests_not_passed'])}):"]
        lines += [f"  {t['outcome']}: {t['name']}: {_short(t.get('message') or '', 200)}"
                  for t in doc["tests_not_passed"]]
    if doc.get("series"):
        lines += ["", "Runs: " + ", ".join(f"{r.get('run')} {r.get('verdict')}" for r in doc["series"].get("runs", []))]
    lines += ["", "Details: report.html in the bundle."]
    return "\n".join(lines)


def _integrity_text(integrity: dict) -> str:
    if integrity["ok"]:
        return f"verified: {integrity['files']} files ({integrity['bytes']} bytes) match their SHA-256 manifest"
    return "NOT VERIFIED: " + "; ".join(integrity["problems"][:3])


def _short(value, limit: int) -> str:
    value = " ".join(str(value or "").split())
    return value if len(value) <= limit else value[:limit - 1] + "…"


def run_results(path: str, options) -> int:
    summary, integrity = load_checked(path)
    doc = report(summary, integrity, str(path))
    emit(options, doc, lambda: text(doc))
    return exit_code(summary["verdict"], interrupted=bool(summary.get("interrupted")))


def run_verify(path: str, options) -> int:
    where = Path(path)
    if not where.exists():
        raise UsageError(f"{path}: no such file or folder",
                         "pass the folder certify wrote (its --out) or the .tar.gz beside it")
    if where.is_file() and where.name == "summary.json":
        where = where.parent
    integrity = verify(where)
    def said() -> str:
        if integrity.manifest and integrity.problems:
            return "\n".join([f"{path}: DOES NOT MATCH {archive.MANIFEST} ({len(integrity.problems)} difference(s)):",
                              *(f"  {p}" for p in integrity.problems)])
        return f"{path}: {integrity.text()}"

    emit(options, integrity.to_json(), said)
    if integrity.ok:
        return EXIT_PASS
    return EXIT_FAIL if integrity.manifest else EXIT_UNKNOWN
