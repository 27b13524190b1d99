"""Counts and outcomes of the pytest run, read back from the junit.xml pytest wrote.

Each test case also carries the requirements its checks judged, as the recorder left them in
junit.xml (one ``<property name="PIP121-R08" value="differs (...); source: the C++ client does; ...">``
per requirement and check): a CI system that reads only junit.xml sees each verdict with its source
and, where it failed, its findings."""
from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

TIMEOUT_MARK = "from pytest-timeout"  # its failure message: "Timeout (>1200.0s) from pytest-timeout."


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
        # A test that raised VerdictUnknown is not a failed assertion: count it as broken.
        if outcome == "failure" and "VerdictUnknown" in message:
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
