"""Counts and outcomes of the pytest run, read back from the junit.xml pytest wrote.

Each test case also carries the requirements its checks judged, as the recorder left them in
junit.xml (one ``<property name="PIP121-R08" value="differs (...); source: the C++ client does; ...">``
per requirement and check): a CI system that reads only junit.xml sees each verdict with its source
and, where it failed, its findings."""
from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

from pulsar_conformance.files import write_atomic

TIMEOUT_MARK = "from pytest-timeout"  # its failure message: "Timeout (>1200.0s) from pytest-timeout."
# the one message a judged requirement fails with (harness/recorder.py): pytest counts any exception a
# test raises as a failure, and a harness fault (a client JVM that never started, a crash) is no
# accusation against the product
PRODUCT_DEFECT_MARK = "product defect"


def read_junit(path: Path) -> dict:
    counts = {"total": 0, "passed": 0, "failed": 0, "errors": 0, "skipped": 0, "timed_out": 0, "cases": []}
    if not path.exists():
        return counts
    for case in ET.parse(path).getroot().iter("testcase"):
        outcome, message = "passed", ""
        for tag in ("failure", "error", "skipped"):
            node = case.find(tag)
            if node is not None:
                outcome, message = tag, (node.get("message") or "")[:500]
                break
        # Only a requirement the recorder judged failed fails the test: whatever else a test raised
        # (VerdictUnknown, a harness fault, a suite defect) leaves it broken, never failed.
        if outcome == "failure" and PRODUCT_DEFECT_MARK not in message:
            outcome = "error"
        # A scenario stopped at its time limit (pytest-timeout) reached no verdict: unknown, with
        # the stack it was stuck in as the failure's text, not a failed requirement.
        if outcome in ("failure", "error") and TIMEOUT_MARK in message:
            outcome = "timed_out"
        key = {"passed": "passed", "failure": "failed", "error": "errors", "skipped": "skipped",
               "timed_out": "timed_out"}[outcome]
        counts[key] += 1
        counts["total"] += 1
        counts["cases"].append({"name": f"{case.get('classname')}::{case.get('name')}",
                                "outcome": key, "seconds": float(case.get("time") or 0), "message": message,
                                "requirements": [{"id": p.get("name"), "said": p.get("value")}
                                                 for p in case.iterfind("properties/property")]})
    return counts


# --- requirements.junit.xml: one test case per requirement -------------------------------------------------
# junit.xml is pytest's: one case per test function. CI dashboards (GitLab, Jenkins, GitHub's test
# reporters) show case names, so a second file names each case after its requirement: a dashboard
# then shows PIP188-R03 failing, not test_cluster_migration_with_live_traffic. Its cases are the
# requirements this run judged or its profile certifies; the catalog's others were not asked.
REQUIREMENTS_FILE = "requirements.junit.xml"
JUDGED = ("pass", "fail", "unknown", "differs", "not applicable")


def requirements_junit(summary: dict) -> str:
    """``requirements.junit.xml`` of a certification summary: a failed MUST -> failure; a failed SHOULD or
    MAY (a deviation, RFC 2119: the run does not fail on it) -> skipped with that reason and a
    ``deviation`` property; unknown, not applicable and no verdict -> skipped with the reason; differs ->
    passed with the note in system-out. Its failures are exactly what fails the run: a PASS with two
    SHOULD deviations once read ``failures="2"``, and CI servers marked a passing gate failed (issue 51);
    a run failed by something no requirement case carries (a test that failed) gets one case, ``run``."""
    declared = summary.get("declared") or []
    excluded = (summary.get("narrowed") or {}).get("excluded") or []
    rows = [r for r in summary.get("requirements", []) if r["verdict"] in JUDGED or r["id"] in declared]
    suite = ET.Element("testsuite", name=f"pulsar-conformance requirements ({summary.get('profile')})",
                       timestamp=str(summary.get("finished") or ""), time=str(summary.get("seconds") or 0))
    counts = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    properties = ET.SubElement(suite, "properties")
    for name, value in (("run_id", summary.get("run_id")), ("profile", summary.get("profile")),
                        ("verdict", summary.get("verdict")),
                        *((f"version.{k}", v) for k, v in (summary.get("versions") or {}).items())):
        if value is not None:
            ET.SubElement(properties, "property", name=name, value=_xml_text(value))
    must_failed = False
    for row in rows:
        counts["tests"] += 1
        case = ET.SubElement(suite, "testcase", classname=f"requirements.{row.get('area') or 'other'}",
                             name=row["id"], time="0")
        props = ET.SubElement(case, "properties")
        for name, value in (("id", row["id"]), ("level", row.get("strength")), ("verdict", row["verdict"]),
                            ("text", row.get("text")), ("source", row.get("source")), ("model", row.get("model")),
                            *(("finding", f"{f['id']} {f['title']} ({f['href']})") for f in row.get("findings") or ())):
            if value is not None:
                ET.SubElement(props, "property", name=name, value=_xml_text(value))
        verdict, level = row["verdict"], row.get("strength") or "?"
        evidence = "\n".join(row.get("evidence") or []) or "(no evidence recorded)"
        if verdict == "fail":
            findings = ", ".join(f["id"] for f in row.get("findings") or []) or "none explains it yet"
            if level == "MUST":
                counts["failures"] += 1
                must_failed = True
                node = ET.SubElement(case, "failure", type=level, message=_xml_text(
                    f"{level} requirement failed: {row.get('text')}; findings: {findings}"))
            else:
                counts["skipped"] += 1
                ET.SubElement(props, "property", name="deviation", value=_xml_text(
                    f"{level} requirement not met: a deviation the report lists; the run does not fail on it"))
                node = ET.SubElement(case, "skipped", message=_xml_text(
                    f"deviation: {level} requirement not met (RFC 2119: the run does not fail on it): "
                    f"{row.get('text')}; findings: {findings}"))
            node.text = _xml_text(evidence)
        elif verdict == "pass":
            ET.SubElement(case, "system-out").text = _xml_text(evidence)
        elif verdict == "differs":
            ET.SubElement(case, "system-out").text = _xml_text(
                "differs: the client differs from the implementation this requirement was taken from; an "
                f"observation, no conformance failure\n{evidence}")
        else:
            counts["skipped"] += 1
            if verdict == "unknown":
                why = f"unknown: the state this requirement is about was not reached; {_first(row, verdict)}"
            elif verdict == "not applicable":
                why = f"not applicable: the release lacks the feature; {_first(row, verdict)}"
            elif row["id"] in excluded:
                why = "excluded from this run with --exclude"
            else:
                why = f"no verdict ({verdict}): the profile certifies it but no check of this run judged it"
            ET.SubElement(case, "skipped", message=_xml_text(why)).text = _xml_text(evidence)
    if summary.get("verdict") == "fail" and not must_failed:
        # failed by a test, not by a requirement case above: the gate must still read a failure
        counts["tests"] += 1
        counts["failures"] += 1
        case = ET.SubElement(suite, "testcase", classname="requirements.run", name="run", time="0")
        ET.SubElement(case, "failure", type="run", message=_xml_text(
            "the run failed: " + "; ".join(summary.get("reasons") or ["(no reason recorded)"])))
    for name, value in counts.items():
        suite.set(name, str(value))
    root = ET.Element("testsuites", name="pulsar-conformance requirements",
                      **{k: str(v) for k, v in counts.items()})
    root.append(suite)
    ET.indent(root)
    return ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"


def write_requirements_junit(out: Path, summary: dict) -> Path:
    path = out / REQUIREMENTS_FILE
    write_atomic(path, requirements_junit(summary))
    return path


def _first(row: dict, verdict: str) -> str:
    """The first evidence of a check that gave the requirement its verdict (``check: verdict (...)``)."""
    evidence = row.get("evidence") or []
    said = [e for e in evidence if e.split(" (", 1)[0].endswith(f": {verdict}")]
    return (said or evidence or ["no evidence recorded"])[0]


# XML 1.0 allows tab, newline, carriage return and these ranges; a control character in evidence
# (a broker's message) would make the whole file unreadable to a CI parser.
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _xml_text(value) -> str:
    return _NOT_XML.sub("\ufffd", str(value))
