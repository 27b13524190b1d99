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


# what a verdict may honestly be: a run on real clusters may fail or leave a requirement unknown (issue 47:
# once, B received nothing for 90 s after the held link, and TM-R02 was rightly unknown); CI checks that
# the suite judged and said why, never that Pulsar passed on a lucky run
DECIDED = ("pass", "fail")
EXIT = {"pass": 0, "fail": 1, "unknown": 2}


def _judged_or_said_why(row: dict) -> str | None:
    """None when ``row`` is decided, or unknown with its evidence saying why; else what is wrong."""
    if row["verdict"] in DECIDED:
        return None if row["evidence"] else f"{row['id']}: {row['verdict']} without evidence"
    if row["verdict"] == "unknown" and any(row["evidence"]):
        return None
    return f"{row['id']}: {row['verdict']} with evidence {row['evidence']}"


def test_every_declared_requirement_gets_a_verdict_with_the_duplicates_measured(live):
    bundle, code, summary = live
    rows = {r["id"]: r for r in summary["requirements"]}
    wrong = [w for rid in summary["declared"] if (w := _judged_or_said_why(rows[rid]))]
    assert not wrong, (wrong, summary["reasons"])
    # the exit code is the run's verdict, and the verdict is what its requirements say
    assert code == EXIT[summary["verdict"]], (code, summary["verdict"], summary["reasons"])
    assert any(r.startswith("narrowed:") for r in summary["reasons"]), summary["reasons"]
    must_failed = [rid for rid in summary["declared"] if rows[rid]["verdict"] == "fail" and rows[rid]["strength"] == "MUST"]
    assert (summary["verdict"] == "fail") == bool(must_failed), (must_failed, summary["reasons"])
    # TM-R04 is judged by its text (issue 47): the duplicates against the spec's bound; the zero count the
    # blog's own change gives is evidence beside it, never its verdict
    assert rows["TM-R04"]["verdict"] in DECIDED, rows["TM-R04"]
    bound = [e for e in rows["TM-R04"]["evidence"] if e.split(":")[0].endswith("/duplicates-within-spec-bound")]
    measured = [e for e in rows["TM-R04"]["evidence"] if e.split(":")[0].endswith("/duplicates-after-switch")]
    assert bound and measured and all("of them acknowledged on A before" in e for e in bound + measured), rows["TM-R04"]
    # each switch run replayed through the spec (trace validation), whatever its verdict
    replays = [e for e in rows["TM-R04"]["evidence"] if e.split(":")[0].endswith("/trace")]
    assert len(replays) == 5 and all("replayed through the spec" in e or "not judged" in e for e in replays), replays
    doc = json.loads((bundle / "captures" / "synced-prefix" / "tenant-migration.json").read_text())
    assert doc["figures"]["duplicates"] >= 0 and doc["b_cursor"]["markDeletePosition"]
    # a replicator that did not catch up after the held link is recorded with what tells whose it is
    backlog = json.loads((bundle / "captures" / "backlog-on-b" / "tenant-migration.json").read_text())["b_cursor"]
    assert backlog.get("caught_up_s") is not None or {"replicator_cursor", "links", "a_log"} <= set(backlog.get("stall", {}))


# Outside CI (80 s of its hour): CI judges a B that lost an unacknowledged message offline
# (test_judge.py, test_b_losing_an_unacknowledged_message_fails); run it live with `tox -e protocols -- -m outside_ci`
@pytest.mark.outside_ci
def test_a_run_in_which_b_lost_messages_fails(tmp_path):
    """B skips its whole backlog before the switch (admin skip): the unacknowledged messages are lost."""
    code, summary = _certify(tmp_path / "bundle", "progress_synced", PULSAR_CONFORMANCE_TEST_TM_SKIP_ON_B="1000")
    rows = {r["id"]: r for r in summary["requirements"]}
    assert code == 1 and rows["TM-R02"]["verdict"] == "fail", summary["reasons"]


def test_the_operator_steps_get_verdicts_and_say_what_reached_b(live):
    """Steps 2, 4 and 5 on the default release: each of their requirements judged (or unknown with the
    reason), and each run's record says what A held, where A's replicator started and what B stored."""
    bundle, _, summary = live
    rows = {r["id"]: r for r in summary["requirements"]}
    # TM-R11 is retired into the TTL scenario's configuration hazard (issue 47): no verdict of its own
    wrong = [w for rid in ("TM-R01", "TM-R07", "TM-R08", "TM-R09", "TM-R10") if (w := _judged_or_said_why(rows[rid]))]
    assert not wrong, (wrong, summary["reasons"])
    assert "TM-R11" not in summary["declared"]
    captures = bundle / "captures"
    default = json.loads((captures / "existing-data-default" / "tenant-migration.json").read_text())
    assert default["replicator_cursor"]["markDeletePosition"] and default["on_a"]["lastConfirmedEntry"]
    cleaned = json.loads((captures / "clean-up" / "tenant-migration.json").read_text())
    assert cleaned["a_topic_gone"] is True and cleaned["b_before"] == cleaned["b_after"]
    # the TTL run says when B went away, came back and caught up, and what B then held
    ttl = json.loads((captures / "message-ttl-b-unreachable" / "tenant-migration.json").read_text())
    assert ttl["ttl"]["effective"] == ttl["plan"]["ttl_s"] and ttl["cut_ns"] < ttl["healed_ns"] < ttl["caught_up_ns"]
    assert ttl["b_stored"]
