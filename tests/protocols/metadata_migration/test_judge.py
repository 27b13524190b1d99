"""The PIP-454 verdicts on made-up records: each one seen passing on a run that does what the PIP
says and failing on one that does not (the live runs show what 5.0.0-M1 does)."""
from __future__ import annotations

import copy

from pulsar_conformance.conformance.protocols.metadata_migration import judge, stores

S = 1_000_000_000


def _write(kind, at, ok, target=None, status=None):
    return {"kind": kind, "target": target or f"{kind}{at}", "sent_ns": int(at * S), "answered_ns": int((at + 0.02) * S),
            "status": status or (200 if ok else 500), "body": "" if ok else "Write operations not allowed during migrations",
            "ok": ok}


def conforming() -> dict:
    """A migration as the PIP tells it: writes refused from PREPARATION to COMPLETED, then accepted."""
    phases = [("NOT_STARTED", 0), ("PREPARATION", 1.0), ("COPYING", 1.5), ("COMPLETED", 3.0)]
    writes = [_write(k, t, not (1.0 <= t < 3.0)) for t, k in
              ((0.5, "namespace"), (1.2, "namespace"), (1.6, "policy"), (2.0, "topic"), (3.2, "namespace"),
               (3.3, "policy"), (3.4, "topic"))]
    return {
        "plan": {"fault": "none", "target": None, "timeout_s": 120.0},
        "start": {"status": 200, "body": None, "ok": True},
        "phases": [{"ns": int(t * S), "phase": p, "target": None if p == "NOT_STARTED" else "oxia://x/default"}
                   for p, t in phases],
        "writes": writes,
        "kept": {w["target"]: True for w in writes if w["ok"]},
        "participants_before": 2,
        "log_marks": {"ephemerals": 10, "participants_ready": 20, "copy": 21, "copied": 40, "completed": 41},
        "oxia_ephemerals": ["/loadbalance/brokers/127.0.0.1:8080", "/ledgers/available/bk-0"],
        "comparison": {"compared": 100, "same": 95, "missing": 0, "version_changed": 0, "value_differs": 0,
                       "rewritten_after_cutover": 5, "examples": {"version_changed": []}},
        "cas_after": {"update": 200, "read_back": {"retentionTimeInMinutes": 77}},
        "restarted_on_oxia": {"metadata_url": "oxia://x/default", "kept": {"namespace3.2": True}, "namespace_created": 204},
        "metadata_nodes": 100, "metadata_bytes": 5000, "retry": None, "fault": {},
    }


def _both(fn, broken):
    good = conforming()
    ok, said = fn(good)
    assert ok is True, said
    bad = copy.deepcopy(good)
    broken(bad)
    ok, said = fn(bad)
    assert ok is False, said
    return said


def test_phases_out_of_order_fail():
    _both(judge.phases, lambda d: d["phases"].insert(3, {"ns": int(2.5 * S), "phase": "PREPARATION", "target": "x"}))


def test_a_write_accepted_while_copying_fails():
    said = _both(judge.writes_refused, lambda d: d["writes"].__setitem__(2, _write("policy", 1.6, True)))
    assert "policy 1 accepted / 0 refused" in said


def test_an_accepted_write_lost_fails_even_if_refusals_were_right():
    said = _both(judge.writes_refused, lambda d: d["kept"].__setitem__("namespace0.5", False))
    assert "lost" in said


def test_no_write_inside_the_window_is_unknown():
    doc = conforming()
    doc["writes"] = [w for w in doc["writes"] if not (1.0 <= w["sent_ns"] / S < 3.0)]
    assert judge.writes_refused(doc)[0] is None


def test_ephemerals_after_the_copy_fail():
    _both(judge.ephemerals, lambda d: d["log_marks"].__setitem__("ephemerals", 30))


def test_retry_waiting_for_no_participant_fails():
    def broken(d):
        d["retry"] = {"participants_registered": 0, "start": 200, "phases": [{"ns": 1, "phase": "COPYING"}]}
    said = _both(judge.participants, broken)
    assert "waited for none" in said


def test_versions_not_kept_fail():
    def broken(d):
        d["comparison"]["version_changed"] = 3
        d["comparison"]["examples"]["version_changed"] = [{"path": "/admin", "zookeeper": 0, "oxia": [76, 0]}]
    _both(judge.versions, broken)


def test_versions_dropped_by_an_oxia_server_without_overrides_are_unknown_not_failed():
    # issue 28: v0.14.0 predates overrideVersionId; its changed versions were charged to Pulsar
    doc = conforming()
    doc["comparison"]["version_changed"] = 3
    doc["target_server"] = "Oxia v0.14.0 standalone (built from the Go module proxy)"
    ok, said = judge.versions(doc)
    assert ok is None and "predates per-write version overrides" in said
    doc["target_server"] = "Oxia v0.16.3 standalone"
    assert judge.versions(doc)[0] is False
    doc["target_server"] = "Oxia v0.14.0 standalone"
    # issue 47: a value that differs is a write the copy missed (R02's, F-454-3), not a version lost: it no
    # longer fails R05 on the server that drops versions (5.0.0-M1's migrate on Oxia v0.14.0 did)
    doc["comparison"]["value_differs"] = 1
    ok, said = judge.versions(doc)
    assert ok is None and "PIP454-R02's evidence" in said and "predates per-write version overrides" in said
    # an operator's Oxia whose release the deployment file does not give may be one that drops them
    doc["comparison"]["value_differs"] = 0
    doc["target_server"] = "the deployment's own Oxia server (release not given: metadata_migration.oxia_version)"
    ok, said = judge.versions(doc)
    assert ok is None and "metadata_migration.oxia_version" in said
    doc["target_server"] = "Oxia v0.16.3 (as the deployment file says)"
    assert judge.versions(doc)[0] is False


def test_data_plane_follows_spark():
    doc = conforming()
    assert judge.data_plane(doc, {"valid": True, "anomalies": {}})[0] is True
    assert judge.data_plane(doc, {"valid": False, "anomalies": {"lost": {"count": 3}}})[0] is False


def test_rollback_needs_failed_and_writes_back():
    doc = conforming()
    doc["plan"]["fault"] = "oxia"
    doc["phases"][-1]["phase"] = "FAILED"
    assert judge.rollback(doc)[0] is True
    stuck = copy.deepcopy(doc)
    stuck["phases"].pop()
    assert judge.rollback(stuck)[0] is False
    read_only_after = copy.deepcopy(doc)
    read_only_after["writes"][-1] = _write("topic", 3.4, False)
    assert judge.rollback(read_only_after)[0] is False
    dead = copy.deepcopy(doc)
    dead["fault"] = {"restart_error": "RuntimeError: cluster zeta exited while starting"}
    assert judge.rollback(dead)[0] is False


def test_a_kind_of_write_refused_after_the_cutover_fails():
    said = _both(judge.after_cutover, lambda d: d["writes"].__setitem__(6, _write("topic", 3.4, False)))
    assert "every topic write refused" in said


def test_lost_on_restart_fails():
    _both(judge.after_cutover, lambda d: d["restarted_on_oxia"]["kept"].__setitem__("namespace3.2", False))


def test_rest_start_refused_fails():
    _both(judge.rest, lambda d: d["start"].update(status=404, ok=False, body="Not Found"))


def test_window_over_thirty_seconds_fails():
    ok, said, figures = judge.window(conforming())
    assert ok is True and figures["window_s"] == 2.0
    doc = conforming()
    doc["phases"][-1]["ns"] = int(40 * S)
    assert judge.window(doc)[0] is False


def test_other_target_refused_fails():
    doc = conforming()
    doc["plan"]["target"] = "zk:127.0.0.1:2181/migrated"
    assert judge.other_target(doc)[0] is True
    assert judge.other_target(doc, {"status": 200, "body": None, "ok": True})[0] is True
    assert judge.other_target(doc, {"status": 400, "body": "not on ZooKeeper", "ok": False})[0] is False
    doc["start"] = {"status": 400, "body": "only oxia:// targets", "ok": False}
    assert judge.other_target(doc)[0] is False


def test_comparison_tells_lost_rewritten_and_renumbered_nodes_apart():
    zk = {"/a": stores.Node("d1", 0, 0, False), "/b": stores.Node("d2", 3, 3, False), "/c": stores.Node("d3", 1, 1, False),
          "/d": stores.Node("d4", 2, 2, False), "/e": stores.Node("d5", 0, 0, True)}
    oxia = {"/a": stores.Node("d1", 0, 0, False), "/b": stores.Node("d2", 77, 0, False),
            "/c": stores.Node("dX", 9, 4, False)}
    c = stores.compare(zk, oxia)
    assert (c.compared, c.same, c.missing, c.rewritten) == (4, 1, ["/d"], ["/c"])
    assert c.version_changed == [{"path": "/b", "zookeeper": 3, "oxia": [77, 0]}]


def test_unhealthy_after_the_restart_on_oxia_fails():
    said = _both(judge.after_cutover, lambda d: d["restarted_on_oxia"].update(restart_error={
        "error": "TimeoutError: cluster(s) zeta not ready after 90 s",
        "broker_log": ["ERROR ManagedLedgerImpl - Error creating ledger", "Caused by: Bad ledger metadata version"]}))
    assert "did not become healthy" in said


def test_retry_copying_after_its_participants_failed_fails():
    def broken(d):
        d["retry"] = {"participants_registered": 2, "start": 200, "phases": [{"ns": 1, "phase": "PREPARATION"}],
                      "log_marks": {"participant_failed": 3, "copy": 9, "completed": 12},
                      "participant_errors": ["ERROR DualMetadataStore - Failed during migration preparation"]}
    said = _both(judge.participants, broken)
    assert "copied anyway" in said


def test_trace_validation_tells_a_spec_behaviour_from_one_that_is_not():
    from pulsar_conformance.conformance.protocols.metadata_migration import trace

    doc = conforming()
    assert trace.evidence(doc)[0] is True
    doc["plan"]["fault"] = "oxia"
    doc["fault"] = {"injected_in": "PREPARATION"}
    # Oxia gone before the copy began, then COMPLETED: the spec cannot copy to a lost target
    ok, said = trace.evidence(doc)
    assert ok is False and "NOT a behaviour" in said, said
    doc["phases"][-1]["phase"] = "FAILED"
    assert trace.evidence(doc)[0] is True


def test_a_status_stuck_in_copying_after_a_logged_completion_fails_rest_and_leaves_the_order_unjudged():
    # 4.2.4: the coordinator logs "Metadata Migration Complete", the status keeps answering COPYING
    doc = conforming()
    doc["phases"] = [p for p in doc["phases"] if p["phase"] != "COMPLETED"]
    doc["log_marks"] = {**doc["log_marks"], "completed": None}
    assert judge.phases(doc)[0] is False  # no end phase and nothing logged: the release never ended it
    doc["log_marks"]["completed"] = 512
    ok, said = judge.phases(doc)
    assert ok is None and "never left COPYING" in said and "COMPLETED" in said
    ok, said = judge.rest(doc)
    assert ok is False and "never said so" in said
    doc["phases"].append({"ns": doc["phases"][-1]["ns"] + 1, "phase": "COMPLETED", "target": doc["phases"][-1].get("target")})
    assert judge.rest(doc)[0] is True


def test_the_log_marks_read_both_releases_lines():
    # 4.2.4 puts the count in the message; the suite looked for 5.0.0-M1's words only and failed R03 on 4.2.4
    from pulsar_conformance.conformance.protocols.metadata_migration.scenario import _log_marks

    for line in ("INFO  DualMetadataStore - Found 3 local ephemeral nodes to recreate",
                 "INFO  DualMetadataStore - Found local ephemeral nodes to recreate {\"count\":3}"):
        assert _log_marks(f"start\n{line}\nStarting persistent data copy...")["ephemerals"] == 1
    assert _log_marks("All data copied. total records=800")["copied"] == 0


# ZooKeeper's migration flag polled beside the status (observe.ZooKeeperFlag); 4.2.4's status stays
# COPYING after the coordinator wrote COMPLETED there (docs/findings.md F-454-10)
FLAG = "/pulsar/migration-coordinator/migration"


def _flag(*phases):
    return {"path": FLAG, "errors": 0, "seen": [
        {"ns": int(t * S), "phase": p, "target": None if p == "NOT_STARTED" else "oxia://x/default",
         "version": None if p == "NOT_STARTED" else v} for v, (p, t) in enumerate(phases, start=-1)]}


def stuck_at_copying(flag_end="COMPLETED") -> dict:
    """4.2.4 as it ran: the coordinator logged the migration complete and wrote COMPLETED in
    ZooKeeper, the status went on answering COPYING; the scenario compared and restarted after the flag."""
    doc = conforming()
    doc["phases"] = [p for p in doc["phases"] if p["phase"] != "COMPLETED"]
    doc["zookeeper_flag"] = _flag(("NOT_STARTED", 0), ("PREPARATION", 0.98), ("COPYING", 1.48), (flag_end, 2.97))
    doc["start"]["sent_ns"] = int(0.9 * S)
    return doc


def _judged(doc: dict, checks=("phases", "writes-refused", "ephemerals-recreated", "participants-waited",
                               "versions-preserved", "after-cutover", "rest", "read-only-window")):
    from pathlib import Path

    from pulsar_conformance.conformance.protocols.metadata_migration.outcome import Outcome, Plan

    fields = {k: v for k, v in doc.items() if k != "plan"}
    out = Outcome("migrate", Plan(**doc["plan"]), Path("."), **{k: fields.pop(k) for k in ("start", "phases", "writes")},
                  participants_before=fields.pop("participants_before"), judged=tuple(checks), **fields)
    return {r.check.rsplit("/", 1)[-1]: r for r in judge.judge(out)}


def test_a_status_stuck_at_copying_is_judged_on_zookeepers_flag_and_says_so():
    rows = _judged(stuck_at_copying())
    verdicts = {k: r.ok for k, r in rows.items()}
    # on the status alone (the old judge) every one of these was unknown
    assert verdicts == {"phases": True, "writes-refused": True, "ephemerals-recreated": True, "participants-waited": True,
                        "versions-preserved": True, "after-cutover": True, "rest": False, "read-only-window": True}
    said = ("phases from ZooKeeper's flag, the status stuck at COPYING (F-454-10); COMPLETED read from ZooKeeper's "
            f"{FLAG} at +2.07 s after the start call")
    for check in ("phases", "writes-refused", "versions-preserved", "after-cutover", "read-only-window"):
        assert rows[check].evidence.startswith(said), rows[check].evidence
    assert "in ZooKeeper's flag: NOT_STARTED -> PREPARATION -> COPYING -> COMPLETED" in rows["phases"].evidence
    assert rows["read-only-window"].details["figures"]["window_s"] == 1.99  # the flag's PREPARATION to its COMPLETED
    # the status must say what happened: R09 is the status's alone, and it never said COMPLETED
    assert "ZooKeeper's" not in rows["rest"].evidence.split(";")[0]
    assert "never said so" in rows["rest"].evidence


def test_the_flag_judges_a_write_accepted_inside_its_window():
    doc = stuck_at_copying()
    doc["writes"][2] = _write("policy", 1.6, True)  # accepted while the flag said COPYING
    assert _judged(doc, ("writes-refused",))["writes-refused"].ok is False
    doc = stuck_at_copying()
    doc["writes"][-1] = _write("topic", 3.4, False)  # refused after the flag said COMPLETED
    assert _judged(doc, ("after-cutover",))["after-cutover"].ok is False


def test_neither_the_status_nor_the_flag_completing_stays_unknown():
    # a mutant: the broker logged the migration complete, but neither the status nor ZooKeeper's flag
    # ever said COMPLETED (the scenario then compares and restarts nothing); no evidence is no pass
    doc = stuck_at_copying(flag_end="COPYING")
    doc["zookeeper_flag"]["seen"].pop()
    doc["comparison"] = doc["cas_after"] = doc["restarted_on_oxia"] = None
    rows = _judged(doc)
    for check in ("phases", "writes-refused", "versions-preserved", "after-cutover", "read-only-window"):
        assert rows[check].ok is None, (check, rows[check].evidence)
        assert "ZooKeeper's flag" not in rows[check].evidence
    assert rows["rest"].ok is False
    # even with the after-cutover evidence at hand, no end phase anywhere leaves the window and the cutover unjudged
    doc = stuck_at_copying(flag_end="COPYING")
    doc["zookeeper_flag"]["seen"].pop()
    rows = _judged(doc)
    assert {rows[c].ok for c in ("phases", "writes-refused", "after-cutover", "read-only-window")} == {None}


def test_a_status_that_reaches_its_end_keeps_its_verdicts_whatever_the_flag_says():
    # 5.0.0-M1: the status says COMPLETED (or FAILED); the flag read beside it changes nothing
    for end in ("COMPLETED", "FAILED"):
        plain = conforming()
        plain["phases"][-1]["phase"] = end
        with_flag = copy.deepcopy(plain)
        with_flag["zookeeper_flag"] = _flag(("NOT_STARTED", 0), ("PREPARATION", 0.5), ("COPYING", 0.6), (end, 9.0))
        before, after = _judged(plain), _judged(with_flag)
        assert {k: r.ok for k, r in after.items()} == {k: r.ok for k, r in before.items()}, end
        assert all(a.evidence == b.evidence for a, b in zip(after.values(), before.values(), strict=True))
        # a status that says another end than the coordinator wrote did not say what happened
        with_flag["zookeeper_flag"]["seen"][-1]["phase"] = "FAILED" if end == "COMPLETED" else "COMPLETED"
        assert _judged(with_flag, ("rest",))["rest"].ok is False
    # a 5.0.0-M1 failure stays a failure: a write accepted inside the status's window
    doc = conforming()
    doc["writes"][2] = _write("policy", 1.6, True)
    doc["zookeeper_flag"] = _flag(("NOT_STARTED", 0), ("PREPARATION", 0.98), ("COPYING", 1.48), ("COMPLETED", 2.97))
    assert _judged(doc, ("writes-refused",))["writes-refused"].ok is False


def test_rest_fails_when_the_flag_ended_and_the_status_never_said_so():
    # without the broker's log line too: the flag alone shows what the status failed to say
    doc = stuck_at_copying()
    doc["log_marks"]["completed"] = None
    ok, said = judge.rest(doc)
    assert ok is False and f"ZooKeeper's {FLAG} held COMPLETED at +2.07 s after the start call" in said
    doc["phases"].append({"ns": int(4 * S), "phase": "COMPLETED", "target": "oxia://x/default"})
    assert judge.rest(doc)[0] is True


def test_a_failed_flag_judges_the_rollback():
    doc = stuck_at_copying(flag_end="FAILED")
    doc["plan"]["fault"] = "oxia"
    row_ = _judged(doc, ("rollback",))["rollback"]
    assert row_.ok is True and row_.evidence.startswith("phases from ZooKeeper's flag, the status stuck at COPYING; FAILED")
    doc["writes"][-1] = _write("topic", 3.4, False)  # refused after the flag said FAILED
    assert _judged(doc, ("rollback",))["rollback"].ok is False


def test_a_cutover_nobody_looked_at_is_unknown_not_failed():
    # a record whose stores were never read after COMPLETED (a run before the flag was read, judged on
    # a flag added to it): empty Oxia ephemerals and no conditional update are no evidence either way
    doc = stuck_at_copying()
    doc["comparison"] = doc["cas_after"] = doc["restarted_on_oxia"] = None
    doc["oxia_ephemerals"] = []
    rows = _judged(doc, ("ephemerals-recreated", "after-cutover", "versions-preserved"))
    assert {c: r.ok for c, r in rows.items()} == {"ephemerals-recreated": None, "after-cutover": None,
                                                  "versions-preserved": None}
    assert "Oxia was not read" in rows["ephemerals-recreated"].evidence
    doc["log_marks"]["ephemerals"] = 30  # after the copy: that much the log shows alone
    assert judge.ephemerals(_judged_doc(doc))[0] is False
    doc["writes"][-1] = _write("topic", 3.4, False)  # every topic write after COMPLETED refused: shown alone
    assert judge.after_cutover(_judged_doc(doc))[0] is False


def _judged_doc(doc):
    return judge.phase_source(doc)[0]


def test_on_a_cluster_topology_every_running_broker_and_bookie_must_be_in_the_target():
    """R03 on a topology: one of two bookies registered in the source missing from Oxia fails, where a
    standalone's one would pass."""
    def topology(d):
        d["participants_registered"] = {"broker": 1, "bookie": 2}
        d["oxia_ephemerals"] = ["/loadbalance/brokers/127.0.0.1:8080", "/ledgers/available/bk-0",
                                "/ledgers/available/readonly",  # the readonly folder is no bookie,
                                "/ledgers/available/readonly/bk-9"]  # nor a read-only bookie under it
    said = _both(judge.ephemerals, topology)
    assert "registered in the source at the end: 1 broker(s), 2 bookie(s)" in said
    doc = conforming()
    topology(doc)
    doc["oxia_ephemerals"].append("/ledgers/available/bk-1")
    assert judge.ephemerals(doc)[0] is True


def _held(phases_seen, left=1):
    return {"injected_in": "PREPARATION", "participant": "bookie-2", "held_s": 6.0,
            "phases_while_held": phases_seen, "participants_at_hold_end": left}


def test_a_coordinator_that_copies_while_a_paused_participant_is_registered_fails():
    said = _both(judge.participants, lambda d: d.__setitem__("fault", _held(["COPYING", "PREPARATION"])))
    assert "went on while a registered participant had not acknowledged" in said
    doc = conforming()
    doc["fault"] = _held(["PREPARATION"])
    ok, said = judge.participants(doc)
    assert ok is True and "bookie-2 was paused 6 s: phases PREPARATION, 1 participant node(s) left" in said
    doc["fault"] = _held(["NOT_STARTED"])  # the start had not shown PREPARATION yet: the wait is not shown
    assert judge.participants(doc)[0] is None


def test_the_registered_participants_are_the_source_stores_broker_and_bookie_registrations():
    def node(ephemeral: bool) -> stores.Node:
        return stores.Node("d", 0, 0, ephemeral, 1)

    source = {"/loadbalance/brokers/127.0.0.1:1": node(True), "/loadbalance/brokers/127.0.0.1:2": node(True),
              "/ledgers/available/127.0.0.1:3": node(True), "/ledgers/available/readonly": node(False),
              "/ledgers/available/readonly/127.0.0.1:4": node(True),  # a read-only bookie: not one that writes
              "/loadbalance/brokers": node(False), "/admin/policies/t": node(False)}
    # the scenario records the source's ephemeral paths (stores.ephemerals); the judge counts the registrations
    assert judge.registered({"source_ephemerals": stores.ephemerals(source)}) == {"broker": 2, "bookie": 1}
    # a run recorded before issue 49 kept the scenario's counts alone; a standalone's run read none
    assert judge.registered({"participants_registered": {"broker": 1, "bookie": 3}}) == {"broker": 1, "bookie": 3}
    assert judge.registered({"source_ephemerals": None, "participants_registered": None}) is None


def test_the_restarted_participants_fate_and_the_watched_window_are_said():
    doc = conforming()
    doc["fault"] = _held(["PREPARATION"]) | {"registered_after_restart": False}
    assert "did NOT register as a bookie again" in judge.participants(doc)[1]
    doc["phases"] = doc["phases"][:2]  # PREPARATION and nothing after, nor any end in the log
    doc["log_marks"] = {"ephemerals": 10}
    doc["fault"] = {"injected_in": "PREPARATION", "restart_error": "RuntimeError: x", "watched_s": 12.3}
    ok, said = judge.phases(doc)
    assert ok is False and "no end phase within 12 s of the start call" in said, said


def test_r05_judges_versions_only_and_a_differing_value_is_r02s_evidence():
    """Issue 47: PIP454-R05 failed on 5.0.0-M1 on one node with another value, F-454-3's lost write. R05
    judges the versions and modification counts of what was copied; the value is named in R02's row."""
    doc = conforming()
    doc["comparison"]["value_differs"] = 1
    ok, said = judge.versions(doc)
    assert ok is True and "1 another value" in said and "PIP454-R02's evidence" in said  # was False
    refused_ok, refused_said = judge.writes_refused(doc)
    assert refused_ok is True and "1 persistent node(s) in Oxia right after COMPLETED with another value" in refused_said
    doc["comparison"]["version_changed"] = 2  # a version lost is still R05's failure, with or without the value
    assert judge.versions(doc)[0] is False


def coordinator_killed() -> dict:
    """5.0.0-M1's and 4.2.4's coordinator-killed as they ran: the broker killed in PREPARATION, nothing
    writes FAILED, the status stays PREPARATION (F-454-1)."""
    doc = conforming()
    doc["plan"]["fault"] = "coordinator"
    doc["phases"] = doc["phases"][:2]
    doc["fault"] = {"injected_in": "PREPARATION", "watched_s": 10.0}
    doc["log_marks"] = {"ephemerals": 10}  # the killed broker logged no end
    doc["comparison"] = None
    return doc


def test_the_coordinators_loss_is_one_event_charged_to_r07_not_r01():
    """Issue 47: the phases (R01) and the rollback (R07) both failed on the one event. R07's text is broken
    (no FAILED after a failure); R01's order held up to PREPARATION: unknown past it, the same event."""
    rows = _judged(coordinator_killed(), ("phases", "rollback"))
    rollback, phases = rows["rollback"], rows["phases"]
    assert rollback.ok is False and rollback.details["event"] == "metadata-migration/migrate/no-failed-after-coordinator"
    assert phases.ok is None  # was False: a second failure of the same event
    assert phases.details["event"] == rollback.details["event"]
    assert phases.details["same_event_as"] == "metadata-migration/migrate/rollback (PIP454-R07)"
    assert phases.evidence.startswith("the same event as metadata-migration/migrate/rollback (PIP454-R07), not a "
                                      "second independent failure"), phases.evidence
    assert "no end phase within 10 s" in phases.evidence  # what was observed is kept


def test_a_phase_out_of_order_after_the_coordinators_loss_stays_r01s_failure():
    doc = coordinator_killed()
    doc["phases"].append({"ns": int(1.2 * S), "phase": "NOT_STARTED", "target": None})
    rows = _judged(doc, ("phases", "rollback"))
    assert rows["phases"].ok is False and "event" not in rows["phases"].details
    # without a fault the phases that never end are R01's own: no other requirement's text covers them
    plain = coordinator_killed()
    plain["plan"]["fault"] = "none"
    assert _judged(plain, ("phases", "rollback"))["phases"].ok is False


def test_r08s_catalog_text_is_what_its_check_checks_in_the_seeds_words():
    """Issue 47: PIP454-R08 said "no participant reads or writes the target before COMPLETED" while its check
    judges the writes after COMPLETED; its text and quote now say what after_cutover checks."""
    from pathlib import Path

    from pulsar_conformance.spec.catalog import requirements

    r08 = next(r for r in requirements() if r.id == "PIP454-R08")
    seed = Path(__file__).resolve().parents[3].parent / "shared" / "seeds" / "pip-454-metadata-store-migration.md"
    if seed.exists():  # the seeds sit beside the checkout where the suite is developed
        assert r08.quote in seed.read_text()
    for said in ("After COMPLETED", "every kind of metadata write is accepted", "conditional", "restarted on the target"):
        assert said in r08.text, r08.text
    assert "before COMPLETED" not in r08.text
    ok, evidence = judge.after_cutover(conforming())
    assert ok is True and "Metadata writes ENABLED on target" in evidence
