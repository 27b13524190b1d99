"""The Java client's recorded cluster-level run (tests/data/migration/cluster-migration-java-4.2.4: a
``certify --profile cluster-migration --migration-client java`` on Pulsar 4.2.4 with Java client 4.2.4,
README there) judged offline by the same judge the live scenario calls, and edited the way a faulty
client or broker would have left it: each edit fails the check that judges it (mutants)."""
from __future__ import annotations

import json
import shutil
from dataclasses import replace
from types import SimpleNamespace

import pytest

from pulsar_conformance.conformance.harness import evidence
from pulsar_conformance.conformance.harness import outcome as saved
from pulsar_conformance.conformance.protocols.cluster_migration import judge, observe
from pulsar_conformance.conformance.protocols.cluster_migration.checks import CHECKS
from pulsar_conformance.conformance.protocols.cluster_migration.outcome import Outcome
from pulsar_conformance.conformance.run import verdict_of

from .recorded import DATA

JAVA = DATA.parent / "cluster-migration-java-4.2.4"
EXCLUSIVE = "persistent://mig/live-java/exclusive"
PREFIX = "cluster-migration-java"


@pytest.fixture
def out(tmp_path) -> Outcome:
    """The recorded outcome, loaded from a copy (its capture's rows read from there)."""
    shutil.copytree(JAVA, tmp_path / "run")
    loaded = saved.load(Outcome, tmp_path / "run")
    return replace(loaded, run_dir=tmp_path / "run")


def _verdicts(out: Outcome) -> dict[str, str]:
    rows = judge.judge(out)
    assert not any(r.raised for r in rows), [r.evidence for r in rows if r.raised]
    for r in rows:
        CHECKS.requirements(r.check, r.requirements)  # every row is a declared check of its scenario
    return {r.check: verdict_of(r.ok) for r in rows}


def test_the_recorded_java_run_is_judged_as_it_was_recorded(out):
    recorded = {json.loads(x)["check"]: json.loads(x)["verdict"] for x in (JAVA / "checks.jsonl").read_text().splitlines()}
    assert _verdicts(out) == recorded
    # what the Java client itself did: every producer redirected, every subscription drained blue first
    assert recorded[f"{PREFIX}/exclusive/p-new/client-follows-redirect"] == "pass"
    assert all(v == "pass" for c, v in recorded.items() if c.endswith("/drained-before-green") and "/reader/" not in c)


def test_the_reader_green_refused_fails_r09_only_with_greens_refusal(out):
    """The recorded run predates the green_refused fact: given green's log lines of that run (kept beside it),
    resources-on-green fails; without them, the reader that read nothing from green proves nothing."""
    assert _verdicts(out)[f"{PREFIX}/resources-on-green"] == "pass"
    log = (JAVA / "green-refusals.log").read_text()
    out.facts["green_refused"] = observe.green_refusals(SimpleNamespace(broker_log=lambda cluster: log))
    row = next(r for r in judge.judge(out) if r.check == f"{PREFIX}/resources-on-green")
    assert row.ok is False and CHECKS.requirements(row.check) == ["PIP188-R09"]
    assert "reader 'reader' of exclusive (a non-durable subscription) read 349 from blue and nothing from green" in row.evidence
    # the same refusal for a subscription that did read from green is no stranded reader
    out.sub_types[(EXCLUSIVE, "reader")] = "Exclusive"
    assert next(r for r in judge.judge(out) if r.check == f"{PREFIX}/resources-on-green").ok is True


def _with_columns(out: Outcome, cols: dict) -> Outcome:
    return replace(out, columns=cols)


def test_a_redelivery_after_ack_fails_the_trace(out):
    """Mutant: subscription 'fast' of the Exclusive topic gets one green message again after acking it."""
    cols = {k: list(v) for k, v in out.columns.items()}
    place = out.topics[EXCLUSIVE].placement.by_uid
    n = len(cols["ts_ns"])
    acked = next(i for i in range(n) if cols["kind"][i] == "ack" and cols["topic"][i] == EXCLUSIVE
                 and cols["subscription"][i] == "fast" and place.get(cols["uid"][i]) == "green")
    receive = next(i for i in range(n) if cols["kind"][i] == "receive" and cols["uid"][i] == cols["uid"][acked]
                   and cols["subscription"][i] == "fast")
    for name in cols:
        cols[name].append(cols[name][receive])
    cols["ts_ns"][-1] = cols["ts_ns"][acked] + 1_000_000
    verdicts = _verdicts(_with_columns(out, cols))
    assert verdicts[f"{PREFIX}/exclusive/p-live-java-exclusive/fast/trace"] == "fail"
    trace = next(r for r in judge.judge(_with_columns(out, cols))
                 if r.check == f"{PREFIX}/exclusive/p-live-java-exclusive/fast/trace")
    assert "PIP188-R15" in trace.requirements


def test_a_blue_message_read_after_green_fails_the_drain(out):
    """Mutant: the slow subscription reads one of blue's messages after its first message from green
    (a client that went to green before it had drained blue): drained-before-green (R02, R04) fails."""
    o = out.topics[EXCLUSIVE]
    cols = {k: list(v) for k, v in out.columns.items()}
    rows = evidence.rows(cols, kind="receive", topic=EXCLUSIVE, subscription="slow")
    first_green = min(r["ts_ns"] for r in rows if o.placement.by_uid.get(r["uid"]) == "green")
    last_blue = max((r for r in rows if o.placement.by_uid.get(r["uid"]) == "blue"), key=lambda r: r["ts_ns"])
    i = next(i for i in range(len(cols["ts_ns"])) if cols["kind"][i] == "receive" and cols["uid"][i] == last_blue["uid"]
             and cols["subscription"][i] == "slow")
    cols["ts_ns"][i] = first_green + 1
    # the judge computes slow's figures from the edited rows (judge.with_figures)
    edited = replace(out, columns=cols)
    assert _verdicts(edited)[f"{PREFIX}/exclusive/slow/drained-before-green"] == "fail"
