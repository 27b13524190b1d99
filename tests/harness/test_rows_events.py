"""One event, one requirement (issue 47): a row names the event it is charged with or shares
(harness/rows.py ``charged``, ``same_event``), and reports/bundle/events.py counts distinct failing events
beside failing requirements."""
from __future__ import annotations

from pulsar_conformance.conformance.harness.rows import charged, row, same_event
from pulsar_conformance.conformance.run import verdict_of
from pulsar_conformance.reports.bundle.events import count_failing_events, failing_events, summary_counts
from pulsar_conformance.spec.catalog import requirements


def test_a_row_the_event_only_touches_is_unknown_never_a_pass_and_says_whose_it_is():
    touched = same_event(row("s/phases", False, "no end phase"), "s/no-failed", "s/rollback (R07)", "nothing wrote FAILED",
                         broken=False)
    assert touched.ok is None and touched.details == {"event": "s/no-failed", "same_event_as": "s/rollback (R07)"}
    assert touched.evidence == ("the same event as s/rollback (R07), not a second independent failure: nothing wrote "
                                "FAILED; not judged past it; no end phase")
    # a row whose own requirement's text the event breaks keeps its failure, named with the event
    broken = same_event(row("s/apart", False, "1.5 s apart"), "e", "s/waited (R04)", "early", broken=True)
    assert broken.ok is False and broken.evidence == "the same event as s/waited (R04): early; 1.5 s apart"
    # a pass or an unknown is never changed by the event
    assert same_event(row("s/x", True, "ok"), "e", "h", "w", broken=False).ok is True
    assert same_event(row("s/y", None, "?"), "e", "h", "w", broken=True).ok is None


def _recorded(*rows_, requirements_=None):
    return [{"check": r.check, "kind": "deployment", "requirements": requirements_ or ["PIP121-R04"],
             "verdict": verdict_of(r.ok), "details": r.details} for r in rows_]


def test_distinct_failing_events_beside_failing_requirements():
    waited = charged(row("c/stale/waited-for-delay", False, "early"), "c/stale/early")
    apart = same_event(row("c/stale/switches-apart", False, "close"), "c/stale/early", "c/stale/waited-for-delay",
                       "early", broken=True)
    other = row("c/stale/left-dead-secondary", False, "stayed")  # names no event: one of its own
    fine = row("c/stale/trace", True, "a behaviour")
    checks = (_recorded(waited) + _recorded(apart, requirements_=["PIP121-R09"])
              + _recorded(other, requirements_=["PIP121-R03"]) + _recorded(fine))
    assert count_failing_events(checks) == 2
    assert list(failing_events(checks)) == ["c/stale/early", "c/stale/left-dead-secondary"]
    assert summary_counts(checks) == {"failing_requirements": 3, "failing_events": 2}
    # an event charged once whose other rows are unknown: one failing requirement, one event
    touched = same_event(row("c/stale/switches-apart", False, "close"), "c/stale/early", "h", "w", broken=False)
    assert summary_counts(_recorded(waited) + _recorded(touched, requirements_=["PIP121-R09"])) == {
        "failing_requirements": 1, "failing_events": 1}


def test_a_row_read_as_differs_is_no_failing_event():
    """Read with the catalog, as the report reads it: an observation's fail, or the Java client not doing what
    the C++ client's code does, is ``differs`` (conformance/harness/sources.py), no failure."""
    observed = {"check": "tenant-migration/holes/duplicates-after-switch", "kind": "deployment",
                "requirements": ["TM-R04"], "verdict": "fail", "details": {"observation": "the blog's implementation"}}
    other_client = {"check": "client-failover/java-stale-failure/left-dead-secondary", "kind": "deployment",
                    "requirements": ["PIP121-R08"], "verdict": "fail", "details": {"client": "java"}}
    model = {"check": "spec/x", "kind": "model", "requirements": ["TM-R04"], "verdict": "fail", "details": {}}
    assert count_failing_events([observed, other_client, model], requirements()) == 0
    assert count_failing_events([observed, other_client]) == 2  # without the catalog: the rows' own verdicts
