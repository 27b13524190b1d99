"""Requirement id -> findings, read off docs/findings.md (headings, "X fails" sentences, the table
of MUSTs), so every failing requirement in a bundle can link to what explains it."""
from __future__ import annotations

from pulsar_conformance.conformance.harness import findings

SAMPLE = """# Findings
## F-121-2 Java AutoClusterFailover never tries another secondary
On a secondary, Java only ever probes the primary.
PIP121-R08 (SHOULD, the C++ rule) fails for the Java client; PIP121-R07 is the same blind spot.

## PIP-188 blue-green migration
### F-188-4 A send in flight at termination can fence the topic for good (MUST PIP188-R03 fails)
so a certification of 4.2.4 fails PIP188-R13 with this evidence.
### F-188-8 A replication backlog holds producers through refusals (R08)
### F-136-5 Divergence needs no race (MUST PIP136-R01, R02)
### MUSTs a certification fails
| requirement | findings | when |
|---|---|---|
| PIP188-R02 | F-188-4, F-188-8 | why |
"""


def test_links_come_from_headings_fails_sentences_and_the_table():
    index = {rid: [f.id for f in fs] for rid, fs in findings.parse(SAMPLE).items()}
    assert index == {
        "PIP121-R08": ["F-121-2"],  # "<id> (...) fails" in the body
        "PIP188-R03": ["F-188-4"],  # in the heading
        "PIP188-R13": ["F-188-4"],  # "fails <id>" in the body
        "PIP188-R08": ["F-188-8"],  # a short id takes the finding's PIP
        "PIP136-R01": ["F-136-5"], "PIP136-R02": ["F-136-5"],  # ... or the heading's other ids
        "PIP188-R02": ["F-188-4", "F-188-8"],  # the table
    }  # PIP121-R07 is mentioned, not said to fail: no link


def test_a_finding_links_to_its_heading():
    f = findings.parse(SAMPLE)["PIP121-R08"][0]
    assert f.to_json() == {"id": "F-121-2", "title": "Java AutoClusterFailover never tries another secondary",
                           "href": "docs/findings.md#f-121-2-java-autoclusterfailover-never-tries-another-secondary"}


def test_the_projects_findings_explain_the_failures_issue_28_names():
    index = findings.index()
    assert "F-121-2" in [f.id for f in index["PIP121-R08"]]
    assert "F-188-12" in [f.id for f in index["PIP188-R16"]]
    assert "F-188-4" in [f.id for f in index["PIP188-R03"]]
