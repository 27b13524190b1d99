"""``certify --profile tenant-migration`` on the default deployment (blue = A, green = B): every
requirement the profile declares gets a verdict from real clusters, the duplicates are measured
per scenario, and a run in which B lost messages fails (issue 17).

The spec checks and mutants of the profile are the spec env's job (``spec ci``); these runs narrow
the profile to its live scenarios."""
from __future__ import annotations

import json

import pytest

from ...support.certify import certify

pytestmark = [pytest.mark.pulsar, pytest.mark.spark]
SWITCH = "test_switch"  # the switch scenarios (ack holes, synced prefix, backlog on B, delayed message)
# the seed's steps 2, 4 and 5 as an operator runs them (step 4 also with restarts and with a TTL)
STEPS = "existing_data or clean_up or unloads or restarts or message_ttl"


def _certify(out, select: str, **env) -> tuple[int, dict]:
    return certify(out, "tenant-migration", select=select, env=env)


@pytest.fixture(scope="module")
def live(tmp_path_factory):
    """One certification of every live scenario, the switch's and the operator steps' (one deployment
    and one Spark session for both tests below: CI's minutes)."""
    out = tmp_path_factory.mktemp("tenant-migration") / "bundle"
    code, summary = _certify(out, f"{SWITCH} or {STEPS}")
    return out, code, summary


def test_every_declared_requirement_gets_a_verdict_with_the_duplicates_measured(live):
    bundle, code, summary = live
    rows = {r["id"]: r for r in summary["requirements"]}
    undecided = {rid: rows[rid]["verdict"] for rid in summary["declared"] if rows[rid]["verdict"] not in ("pass", "fail")}
    assert not undecided, (undecided, summary["reasons"])
    # nothing lost, no unacknowledged message skipped: Pulsar keeps the MUSTs
    assert rows["TM-R01"]["verdict"] == rows["TM-R02"]["verdict"] == "pass", summary["reasons"]
    # every requirement the profile declares judged and no MUST failed: a pass, narrowed to the live
    # scenarios (the banner says so), with the SHOULDs Pulsar does not keep named as deviations
    assert code == 0 and summary["verdict"] == "pass", summary["reasons"]
    assert "every checked MUST requirement passed" in summary["reasons"], summary["reasons"]
    assert any(r.startswith("narrowed:") for r in summary["reasons"]), summary["reasons"]
    assert any(r.startswith("deviations (SHOULD/MAY not met): TM-R04") for r in summary["reasons"]), summary["reasons"]
    # the SHOULD it does not keep, measured: acknowledged messages come again after the switch
    assert rows["TM-R04"]["verdict"] == "fail"
    measured = [e for e in rows["TM-R04"]["evidence"] if e.split(":")[0].rsplit("/", 1)[-1].startswith("duplicates-")]
    assert measured and all("of them acknowledged on A before" in e for e in measured)
    # each run replayed through the spec ends with the measured duplicates (trace validation)
    replays = [e for e in rows["TM-R04"]["evidence"] if e.split(":")[0].endswith("/trace")]
    assert len(replays) == 5 and all(": pass (" in e and "replayed through the spec" in e for e in replays), replays
    doc = json.loads((bundle / "captures" / "synced-prefix" / "tenant-migration.json").read_text())
    assert doc["figures"]["duplicates"] > 0 and doc["b_cursor"]["markDeletePosition"]


# Outside CI (80 s of its hour): CI judges a B that lost an unacknowledged message offline
# (test_judge.py, test_b_losing_an_unacknowledged_message_fails); run it live with `tox -e protocols -- -m outside_ci`
@pytest.mark.outside_ci
def test_a_run_in_which_b_lost_messages_fails(tmp_path):
    """B skips its whole backlog before the switch (admin skip): the unacknowledged messages are lost."""
    code, summary = _certify(tmp_path / "bundle", "progress_synced", PULSAR_CONFORMANCE_TEST_TM_SKIP_ON_B="1000")
    rows = {r["id"]: r for r in summary["requirements"]}
    assert code == 1 and rows["TM-R02"]["verdict"] == "fail", summary["reasons"]


def test_the_operator_steps_get_verdicts_and_say_what_reached_b(live):
    """Steps 2, 4 and 5 on the default release: each of their requirements judged, and each run's
    record says what A held, where A's replicator started and what B stored."""
    bundle, _, summary = live
    rows = {r["id"]: r for r in summary["requirements"]}
    undecided = {rid: rows[rid]["verdict"] for rid in ("TM-R01", "TM-R07", "TM-R08", "TM-R09", "TM-R10", "TM-R11")
                 if rows[rid]["verdict"] not in ("pass", "fail")}
    assert not undecided, (undecided, summary["reasons"])
    captures = bundle / "captures"
    default = json.loads((captures / "existing-data-default" / "tenant-migration.json").read_text())
    assert default["replicator_cursor"]["markDeletePosition"] and default["on_a"]["lastConfirmedEntry"]
    cleaned = json.loads((captures / "clean-up" / "tenant-migration.json").read_text())
    assert cleaned["a_topic_gone"] is True and cleaned["b_before"] == cleaned["b_after"]
    # the TTL run says when B went away, came back and caught up, and what B then held
    ttl = json.loads((captures / "message-ttl-b-unreachable" / "tenant-migration.json").read_text())
    assert ttl["ttl"]["effective"] == ttl["plan"]["ttl_s"] and ttl["cut_ns"] < ttl["healed_ns"] < ttl["caught_up_ns"]
    assert ttl["b_stored"]
