"""Requirement id -> findings, read off docs/findings.md (headings, "X fails" sentences, the table
of MUSTs), so every failing requirement in a bundle can link to what explains it; and each finding's scope
line (releases, fix, topology, store, client), parsed strictly, so a finding links only cells it holds for
(issue 47: F-188-13, fixed in 4.0.1, no longer explains a 4.2.4 failure)."""
from __future__ import annotations

import pytest

from pulsar_conformance.conformance.harness import findings
from pulsar_conformance.conformance.harness.findings import Context, FindingsError, parse_scope

ANY = "*Scope:* releases any; fixed in none; topology any; store any; client any"
SAMPLE = f"""# Findings
## F-121-2 Java AutoClusterFailover never tries another secondary
*Scope:* releases 3.0.7, 4.2.4; fixed in none; topology any; store any; client java
On a secondary, Java only ever probes the primary.
PIP121-R08 (SHOULD, the C++ rule) fails for the Java client; PIP121-R07 is the same blind spot.

## PIP-188 blue-green migration
### F-188-4 A send in flight at termination can fence the topic for good (MUST PIP188-R03 fails)
{ANY}
so a certification of 4.2.4 fails PIP188-R13 with this evidence.
### F-188-8 A replication backlog holds producers through refusals (R08)
{ANY}
### F-136-5 Divergence needs no race (MUST PIP136-R01, R02)
*Scope:* releases 3.0.0-4.0.0; fixed in 4.0.1 (apache/pulsar#23534); topology cluster; store zookeeper; client any
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


def test_a_finding_links_to_its_heading_and_says_its_scope():
    f = findings.parse(SAMPLE)["PIP121-R08"][0]
    assert f.to_json() == {"id": "F-121-2", "title": "Java AutoClusterFailover never tries another secondary",
                           "href": "docs/findings.md#f-121-2-java-autoclusterfailover-never-tries-another-secondary",
                           "scope": "releases 3.0.7, 4.2.4; fixed in none; topology any; store any; client java"}
    assert f.text.startswith("## F-121-2 ") and "PIP121-R07 is the same blind spot" in f.text


def test_the_projects_findings_explain_the_failures_issue_28_names():
    index = findings.index()
    assert "F-121-2" in [f.id for f in index["PIP121-R08"]]
    assert "F-188-12" in [f.id for f in index["PIP188-R16"]]
    assert "F-188-4" in [f.id for f in index["PIP188-R03"]]


def test_every_finding_of_the_project_has_a_scope_that_parses():
    """A malformed scope line in docs/findings.md is an error (load raises FindingsError): this test is where it shows."""
    found = findings.load().findings
    assert len(found) >= 50, sorted(found)
    assert all(f.scope is not None for f in found.values())


@pytest.mark.parametrize("fid, cell, inside", [
    # issue 47's four: each finding explains the cells inside its scope, and only those
    ("F-188-13", Context(pulsar="3.2.0", topology="standalone", store="rocksdb", clients=frozenset({"python"})), True),
    ("F-188-13", Context(pulsar="4.0.1", topology="standalone", store="rocksdb", clients=frozenset({"python"})), False),
    ("F-188-13", Context(pulsar="5.0.0-M1", topology="standalone", store="rocksdb", clients=frozenset({"java"})), False),
    ("F-136-9", Context(pulsar="4.2.4", topology="cluster", store="zookeeper", clients=frozenset({"python"})), True),
    ("F-136-9", Context(pulsar="4.2.4", topology="standalone", store="rocksdb", clients=frozenset({"python"})), False),
    ("F-454-13", Context(pulsar="4.2.4", topology="cluster", store="zookeeper", clients=frozenset({"python"})), True),
    ("F-454-13", Context(pulsar="5.0.0-M1", topology="standalone", store="zookeeper", clients=frozenset({"python"})),
     False),
    ("F-188-16", Context(pulsar="4.2.4", topology="cluster", store="zookeeper", clients=frozenset({"python"})), True),
    ("F-188-16", Context(pulsar="3.0.0", topology="standalone", store="rocksdb", clients=frozenset({"python"})), False),
    # a client's finding holds for that client's checks and its release
    ("F-121-1", Context(pulsar="4.2.4", java=None, clients=frozenset({"java"})), True),
    ("F-121-1", Context(pulsar="5.0.0-M1", java="4.2.4", clients=frozenset({"java"})), True),  # the client's release
    ("F-121-1", Context(pulsar="5.0.0-M1", clients=frozenset({"java"})), False),
    ("F-121-1", Context(pulsar="4.2.4", clients=frozenset({"python"})), False),
    ("F-188-7", Context(pulsar="4.2.4", python="3.4.0", clients=frozenset({"python"})), True),
    ("F-188-7", Context(pulsar="4.2.4", python="3.13.0", clients=frozenset({"python"})), False),
    ("F-188-12", Context(pulsar="3.0.0", python="3.13.0", clients=frozenset({"python"})), False),  # F-188-13's there
    # a backported fix: before it on its line, after it, a line without the fix, a later line
    ("F-188-14", Context(pulsar="3.3.2"), True),
    ("F-188-14", Context(pulsar="4.0.1"), True),
    ("F-188-14", Context(pulsar="4.0.7"), False),
    ("F-188-14", Context(pulsar="3.2.3"), True),
    ("F-188-14", Context(pulsar="4.2.4"), False),
])
def test_the_project_scopes_place_issue_47s_cells(fid, cell, inside):
    assert findings.finding(fid).scope.covers(cell) is inside, findings.finding(fid).scope.outside(cell)


def test_scopes_read_ranges_fixes_and_unknowns():
    scope = parse_scope("releases 3.0.0-3.0.2, 3.0.11-3.0.x, 4.0.4+; fixed in none; topology any; store any; "
                        "client any")
    inside = [r for r in ("3.0.0", "3.0.2", "3.0.7", "3.0.11", "3.0.15", "3.1.0", "4.0.1", "4.0.4", "4.2.4", "5.0.0-M1")
              if scope.covers(Context(pulsar=r))]
    assert inside == ["3.0.0", "3.0.2", "3.0.11", "3.0.15", "4.0.4", "4.2.4", "5.0.0-M1"]
    assert parse_scope("releases 4.2.4-5.0.0-M1; fixed in none; topology any; store any; client any").covers(
        Context(pulsar="5.0.0-M1"))
    assert not parse_scope("releases 4.2.4-5.0.0-M1; fixed in none; topology any; store any; client any").covers(
        Context(pulsar="5.0.0"))  # a milestone comes before its release
    # a value the run did not record is outside every scope that names one (never linked where not known to hold)
    zk = parse_scope("releases any; fixed in none; topology any; store zookeeper; client any")
    assert not zk.covers(Context(pulsar="4.2.4", store=None)) and zk.outside(Context()) == \
        "only with a zookeeper configuration store"
    assert not parse_scope("releases 4.2.4; fixed in none; topology any; store any; client any").covers(Context())
    assert parse_scope("releases any; fixed in none; topology any; store any; client any").covers(Context())


@pytest.mark.parametrize("line, says", [
    ("releases any; fixed in none; topology any; store any", "4 field(s)"),
    ("releases any; fixed in none; store any; topology any; client any", "expected 'topology ...'"),
    ("releases 4.2; fixed in none; topology any; store any; client any", "release '4.2'"),
    ("releases 4.2.4-3.0.0; fixed in none; topology any; store any; client any", "ends before it starts"),
    ("releases any; fixed in 4.0.1, 4.0.2; topology any; store any; client any", "one release line twice"),
    ("releases any; fixed in soon; topology any; store any; client any", "'fixed in soon'"),
    ("releases any; fixed in none; topology k8s; store any; client any", "'topology k8s'"),
    ("releases any; fixed in none; topology any; store etcd; client any", "'store etcd'"),
    ("releases any; fixed in none; topology any; store any; client go", "'client go'"),
    ("releases any; fixed in none; topology any; store any; client any 3.13.0", "releases only after python or java"),
    ("releases any; fixed in none; topology any; store any; client java 4.2", "release '4.2'"),
])
def test_a_malformed_scope_is_an_error_naming_it_and_the_fix(line, says):
    with pytest.raises(FindingsError, match="fix: write the line") as error:
        parse_scope(line, "findings.md:7: F-1-1's scope")
    assert says in str(error.value) and "findings.md:7" in str(error.value)


@pytest.mark.parametrize("text, says", [
    ("## F-1-1 A finding\nNo scope here.\n", "F-1-1 has no scope line"),
    (f"## F-1-1 A finding\n{ANY}\n\n{ANY}\n", "not right under a finding's heading"),
    (f"## F-1-1 A finding\n{ANY}\n| PIP1-R01 | F-9-9 |\n", "which no heading of the file defines"),
    (f"## F-1-1 A finding\n{ANY}\n## F-1-1 Again\n{ANY}\n", "second heading"),
])
def test_a_file_whose_findings_lack_or_misplace_a_scope_is_refused(text, says):
    with pytest.raises(FindingsError, match=says):
        findings.parse(text)


def test_a_context_limits_the_links_to_the_scopes_that_hold():
    index = findings.parse_index(SAMPLE)
    on_424 = Context(pulsar="4.2.4", topology="standalone", store="rocksdb", clients=frozenset({"python"}))
    assert [f.id for f in index.for_requirement("PIP136-R01", on_424)] == []
    old_cluster = Context(pulsar="3.3.2", topology="cluster", store="zookeeper", clients=frozenset({"python"}))
    assert [f.id for f in index.for_requirement("PIP136-R01", old_cluster)] == ["F-136-5"]
    assert [f.id for f in index.for_requirement("PIP121-R08", on_424)] == []  # the Java client's, not run here
    assert [f.id for f in index.for_requirement("PIP121-R08", on_424.with_clients({"java"}))] == ["F-121-2"]
    assert [f.id for f in index.for_requirement("PIP136-R01")] == ["F-136-5"]  # no context: every link
