"""The verdicts of a PIP-454 run, as pure functions of its record (``metadata-migration.json``):
the phases the status endpoint showed and those ZooKeeper's migration flag held, the metadata
writes and their answers, the two stores compared, the broker's log marks, the retry after FAILED,
and Spark's verdict on the traffic (taken after the run by record.py). What the judges count (the
registered participants: ``registered``) they count from what the run recorded.

Each returns ``(ok, evidence)``; ``ok`` None when the run never reached the state the check is
about (a start refused, no write inside the window): no evidence is never a pass. ``judge`` gives
every row a scenario records, from its outcome (outcome.py).

The phases the checks judge (``phase_source``) are the status endpoint's where they reach an end
phase, else the flag's where those do (4.2.4's status stays COPYING after the coordinator wrote
COMPLETED: docs/findings.md F-454-10), said in the evidence; PIP454-R09 (``rest``) judges the status
alone, since the status must say what happened."""
from __future__ import annotations

import re

from ...harness.itf_traces import attach
from ...harness.rows import Row, charged, from_judge, row, same_event
from . import trace
from .outcome import Outcome

READ_ONLY = ("PREPARATION", "COPYING")
DONE = ("COMPLETED", "FAILED")
# The PIP's phases in order; FAILED may follow any of them
ORDER = ("NOT_STARTED", "PREPARATION", "COPYING", "COMPLETED")


def _seconds(ns: int, since: int) -> float:
    return round((ns - since) / 1e9, 3)


def phase_source(doc: dict) -> tuple[dict, str | None]:
    """The record the phase checks judge, and None or the sentence saying its phases are not the
    status endpoint's: the status's where it reached an end phase; else ZooKeeper's flag's where
    that did (the phase the coordinator wrote); else the status's, which end nowhere."""
    status = doc["phases"]
    if any(p["phase"] in DONE for p in status):
        return doc, None
    end = flag_end(doc)
    if end is None:
        return doc, None
    flag = doc["zookeeper_flag"]
    seen = flag["seen"]
    stuck = status[-1]["phase"] if status else "unanswered"
    known = " (F-454-10)" if stuck == "COPYING" and end["phase"] == "COMPLETED" else ""
    note = (f"phases from ZooKeeper's flag, the status stuck at {stuck}{known}; {end['phase']} read from "
            f"ZooKeeper's {flag.get('path')} {_after_start(doc, end['ns'])}")
    return {**doc, "phases": seen, "status_phases": status}, note


def _after_start(doc: dict, ns: int) -> str:
    """"at +x s after the start call" (after the first phase read in records without its time)."""
    if doc["start"].get("sent_ns"):
        return f"at +{_seconds(ns, doc['start']['sent_ns'])} s after the start call"
    first = min(p["ns"] for p in doc["phases"] + ((doc.get("zookeeper_flag") or {}).get("seen") or []))
    return f"at +{_seconds(ns, first)} s after the first phase read"


def flag_end(doc: dict) -> dict | None:
    """The first end phase ZooKeeper's flag held ({"ns", "phase", ...}), if it was read and had one."""
    return next((p for p in (doc.get("zookeeper_flag") or {}).get("seen") or [] if p["phase"] in DONE), None)


def phase_path(doc: dict) -> str:
    return " -> ".join(p["phase"] for p in doc["phases"])


def read_only_span(doc: dict) -> tuple[int, int] | None:
    """From the first status answer in PREPARATION or COPYING to the first answer after them
    (COMPLETED or FAILED); None when no read-only phase was seen or it never ended."""
    phases = doc["phases"]
    first = next((i for i, p in enumerate(phases) if p["phase"] in READ_ONLY), None)
    if first is None:
        return None
    end = next((p for p in phases[first:] if p["phase"] not in READ_ONLY), None)
    return (phases[first]["ns"], end["ns"]) if end else None


def _lost(kept: dict[str, bool]) -> list[str]:
    """Accepted writes that are not there afterwards."""
    return [name for name, there in kept.items() if not there]


def _inside(write: dict, span: tuple[int, int]) -> bool:
    """Sent after the phase was seen read-only and answered before it was seen over: surely inside."""
    return span[0] <= write["sent_ns"] and write["answered_ns"] <= span[1]


def phases(doc: dict) -> tuple[bool | None, str]:
    """PIP454-R01: the phases seen follow NOT_STARTED, PREPARATION, COPYING, COMPLETED (FAILED from any)."""
    if not doc["start"]["ok"]:
        return None, f"the start was refused ({doc['start']['status']}: {str(doc['start']['body'])[:160]}): no phase to judge"
    seen = [p["phase"] for p in doc["phases"]]
    if not any(p != "NOT_STARTED" for p in seen):
        return None, f"the status never left NOT_STARTED ({phase_path(doc)})"
    bad = out_of_order(seen)
    where = "in ZooKeeper's flag" if "status_phases" in doc else "over REST"  # phase_source's record
    said = f"phases seen every 50 ms {where}: {phase_path(doc)}"
    if bad:
        return False, f"{said}; out of the PIP's order: {', '.join(bad)}"
    if seen[-1] not in ("COMPLETED", "FAILED"):
        logged = _logged_end(doc)
        if logged:
            # the coordinator ended, the status did not say so (4.2.4 reads its flag back through the
            # dual store, i.e. the copy taken while COPYING): the order is not judged on a status that
            # stopped, and the status itself is PIP454-R09's
            return None, (f"{said}; not judged: the status never left {seen[-1]}, while the broker logged the "
                          f"migration {logged} (log line {doc['log_marks'][logged.lower()]}); see the rest check")
        watched = (doc.get("fault") or {}).get("watched_s", doc["plan"]["timeout_s"])
        return False, f"{said}; no end phase within {watched:.0f} s of the start call"
    return True, said


def out_of_order(seen: list[str]) -> list[str]:
    """The transitions of ``seen`` the PIP's order does not have (FAILED may follow any phase)."""
    bad = []
    for a, b in zip(seen, seen[1:], strict=False):
        if b == "FAILED" and a != "FAILED":
            continue
        if a not in ORDER or b not in ORDER or ORDER.index(b) < ORDER.index(a):
            bad.append(f"{a} -> {b}")
    return bad


def _logged_end(doc: dict) -> str | None:
    """COMPLETED or FAILED when the broker's log says the migration ended so (scenario.LOG_MARKS)."""
    marks = doc.get("log_marks") or {}
    return "COMPLETED" if marks.get("completed") is not None else "FAILED" if marks.get("failed") is not None else None


def writes_refused(doc: dict) -> tuple[bool | None, str]:
    """PIP454-R02: every metadata write made inside PREPARATION/COPYING is refused, and none accepted is lost."""
    span = read_only_span(doc)
    if span is None:
        return None, f"no read-only phase seen to its end ({phase_path(doc)})"
    inside = [w for w in doc["writes"] if _inside(w, span)]
    if not inside:
        return None, f"no metadata write fell wholly inside the read-only phases ({_seconds(span[1], span[0])} s)"
    accepted = [w for w in inside if w["ok"]]
    lost = _lost(doc["kept"])
    by_kind = {}
    for w in inside:
        entry = by_kind.setdefault(w["kind"], [0, 0])
        entry[0 if w["ok"] else 1] += 1
    said = (f"{len(inside)} writes inside the {_seconds(span[1], span[0])} s read-only span: "
            + ", ".join(f"{k} {a} accepted / {r} refused" for k, (a, r) in sorted(by_kind.items())))
    refusal = next((w for w in inside if not w["ok"]), None)
    if refusal:
        said += f"; a refusal said {refusal['status']}: {str(refusal['body'])[:140]}"
    if lost:
        said += f"; accepted and then lost (not there after the migration): {', '.join(lost[:8])}"
    differs = (doc.get("comparison") or {}).get("value_differs") or 0
    if differs:
        # evidence here, not PIP454-R05's failure (issue 47): a node the copy holds with another value is a write
        # that reached the source after the copy passed it (F-454-3)
        said += (f"; {differs} persistent node(s) in Oxia right after COMPLETED with another value than in ZooKeeper "
                 "(the stores compared: a write that reached the source while it was copied)")
    return (not accepted and not lost), said


# where a broker and a (writable) bookie register themselves, one child each
REGISTRATIONS = {"broker": "/loadbalance/brokers/", "bookie": "/ledgers/available/"}


def registrations(paths) -> dict[str, list[str]]:
    """The broker and bookie registrations among ``paths`` (ephemeral paths of a store), by kind: a direct child
    of the kind's folder; ``/ledgers/available/readonly`` (a folder) and the read-only bookies under it are not."""
    return {kind: sorted(p for p in paths if p.startswith(prefix) and "/" not in p[len(prefix):]
                         and p != prefix + "readonly")
            for kind, prefix in REGISTRATIONS.items()}


def registered(doc: dict) -> dict[str, int] | None:
    """The brokers and bookies registered in the source store when the migration ended, by kind (each must be
    live in the target): counted from the source's ephemeral paths the run recorded (``source_ephemerals``); a
    run recorded before issue 49 kept only the scenario's counts (``participants_registered``); None: the
    source was not read for them (a standalone, one of each)."""
    paths = doc.get("source_ephemerals")
    if paths is not None:
        return {kind: len(found) for kind, found in registrations(paths).items()}
    return doc.get("participants_registered")


def ephemerals(doc: dict) -> tuple[bool | None, str]:
    """PIP454-R03: the participants recreate their ephemeral nodes in the target before the copy."""
    marks = doc.get("log_marks") or {}
    if marks.get("copy") is None:
        return None, "the broker's log shows no persistent copy starting: no copy to be before"
    found = registrations(doc.get("oxia_ephemerals") or [])
    broker, bookie = found["broker"], found["bookie"]
    before = marks.get("ephemerals") is not None and marks["ephemerals"] < marks["copy"]
    said = (f"broker log: ephemerals recreated at line {marks.get('ephemerals')}, copy started at line {marks['copy']}; "
            f"ephemeral records in Oxia after the migration: broker {broker or 'none'}, bookie {bookie or 'none'}")
    # a cluster topology says how many brokers and bookies were registered in the source at the end: every
    # one must be live in the target ("all brokers/bookies recreate ephemeral nodes"); a standalone has one of each
    counted = registered(doc)
    want = counted or {"broker": 1, "bookie": 1}
    if counted:
        said += f"; registered in the source at the end: {want['broker']} broker(s), {want['bookie']} bookie(s)"
    if doc["phases"] and doc["phases"][-1]["phase"] != "COMPLETED":
        return (False if not before else None), said
    if doc.get("comparison") is None:  # Oxia never read after COMPLETED: no record is not a missing one
        return (False if not before else None), said + "; Oxia was not read after the migration"
    return before and len(broker) >= want["broker"] and len(bookie) >= want["bookie"], said


# what became of the participant the participant fault killed and started again (F-454-13)
RESTARTED = {True: "registered as a bookie again", False: "did NOT register as a bookie again",
             None: "may or may not have registered as a bookie again (ZooKeeper unreadable)"}


def participants(doc: dict) -> tuple[bool | None, str]:
    """PIP454-R04: the coordinator waits for every registered participant (the first run, and a retry)."""
    marks = doc.get("log_marks") or {}
    before = doc.get("participants_before")
    # one a DualMetadataStore: a broker registers its own store and its BookKeeper clients' (4.2.4)
    said = f"{before} participant store(s) registered in ZooKeeper before the start"
    if marks.get("copy") is None:
        return None, said + "; no copy started"
    waited = marks.get("participants_ready") is not None and marks["participants_ready"] < marks["copy"]
    said += f"; the coordinator logged every participant ready {'before' if waited else 'NOT before'} the copy"
    held = doc.get("fault") or {}
    if "phases_while_held" in held:  # a participant paused from before the start, its session alive
        said += (f"; while {held['participant']} was paused {held['held_s']:.0f} s: phases "
                 f"{', '.join(held['phases_while_held'])}, {held['participants_at_hold_end']} participant node(s) left")
        if "registered_after_restart" in held:
            said += "; killed and started again, it " + RESTARTED[held["registered_after_restart"]]
            if held.get("participant_restart_error"):
                said += f" ({held['participant_restart_error']})"
        copied_early = set(held["phases_while_held"]) & {"COPYING", "COMPLETED"}
        if copied_early and held["participants_at_hold_end"]:
            return False, said + " (the coordinator went on while a registered participant had not acknowledged)"
        if held["phases_while_held"] != ["PREPARATION"]:
            return None, said + " (PREPARATION was not seen throughout the hold: the wait is not shown)"
    retry = doc.get("retry")
    if retry:
        phases_retry = [p["phase"] for p in retry.get("phases") or []]
        rm = retry.get("log_marks") or {}
        said += (f"; retry after FAILED: {retry['participants_registered']} participant(s) registered, start -> "
                 f"{retry['start']}, phases {' -> '.join(phases_retry) or 'none'}")
        copied = rm.get("copy") is not None or any(p in ("COPYING", "COMPLETED") for p in phases_retry)
        if copied and retry["participants_registered"] == 0:
            return False, said + " (the brokers still run, but the retry waited for none of them)"
        if copied and rm.get("participant_failed") is not None and rm["participant_failed"] < (rm.get("copy") or 0):
            return False, (said + "; the participants failed to prepare (" + "; ".join(
                x[:160] for x in retry.get("participant_errors") or []) + ") and the coordinator copied anyway"
                + (", logged the migration complete" if rm.get("completed") is not None else "")
                + f", while the status stays {phases_retry[-1] if phases_retry else '?'}")
    return bool(before) and waited, said


def versions(doc: dict) -> tuple[bool | None, str]:
    """PIP454-R05: every persistent node copied with its value is in the target with its version and
    modification count. A node with another value is no version kept or lost: it is a write the copy
    missed, PIP454-R02's evidence (``writes_refused``; F-454-3), named here and judged there (issue 47)."""
    c = doc.get("comparison")
    if not c:
        return None, f"no COMPLETED migration to compare ({phase_path(doc)})"
    ex = c["examples"]
    said = (f"{c['compared']} persistent ZooKeeper nodes against Oxia right after COMPLETED: {c['same']} with the same "
            f"value and version, {c['version_changed']} same value but another version (e.g. {ex['version_changed'][:2]}), "
            f"{c['value_differs']} another value, {c['missing']} missing, {c['rewritten_after_cutover']} modified since")
    if doc.get("target_server"):
        said += f"; target: {doc['target_server']}"
    if not c["compared"]:
        return None, said
    if c["value_differs"]:
        said += (f"; the {c['value_differs']} with another value are not judged here: a write the copy missed, "
                 "PIP454-R02's evidence (writes-refused; F-454-3), not a version lost")
    if c["version_changed"] and _drops_version_overrides(doc.get("target_server")):
        # the coordinator asks the target to keep each version; a server without the override keeps
        # none, whatever Pulsar does: that says nothing of the release (issue 28)
        return None, (said + f"; not judged: this Oxia server predates per-write version overrides (overrideVersionId, "
                      f"Oxia {'.'.join(map(str, OXIA_OVERRIDES_FROM))}), so it drops the versions the coordinator asks "
                      "it to keep; the release's oxia-client is tested against server 0.16.3: run against that")
    named = doc.get("target_server")
    if c["version_changed"] and named and _server_release(named) is None:
        # an operator's Oxia whose release the file does not give: the server may be one that drops them (an
        # outcome that names no server at all predates target_server and is judged as it was)
        return None, (said + "; not judged: the target Oxia server's release is not known, and one before "
                      f"{'.'.join(map(str, OXIA_OVERRIDES_FROM))} drops the versions whatever Pulsar does: give it as "
                      "metadata_migration.oxia_version in the deployment file")
    return c["version_changed"] == 0, said


# The first Oxia release whose server applies the version a write asks to keep (overrideVersionId and
# overrideModificationsCount: v0.15.3, and the 0.16 line; the oxia-client of Pulsar 4.2.4 (0.9.4) and
# 5.0.0-M1 (0.8.0) run their own tests against server 0.16.3; /work/notes/research/oxia.md)
OXIA_OVERRIDES_FROM = (0, 15, 3)


def _server_release(server: str | None) -> tuple[int, ...] | None:
    """The release in ``server`` as the deployment names it ("Oxia v0.14.0 standalone ..."), or None."""
    found = re.search(r"\bOxia v?(\d+)\.(\d+)\.(\d+)", server or "")
    return tuple(int(x) for x in found.groups()) if found else None


def _drops_version_overrides(server: str | None) -> bool:
    release = _server_release(server)
    return release is not None and release < OXIA_OVERRIDES_FROM


def data_plane(doc: dict, verdict: dict | None) -> tuple[bool | None, str]:
    """PIP454-R06: the traffic through the migration loses nothing (Spark over the capture). None: the
    record step never took Spark's verdict (record.py), so nothing is known of what was lost."""
    if verdict is None:
        return None, ("not judged: Spark's verdict on the capture was never taken (the record step, "
                      "metadata_migration/record.py, runs it after the scenario)")
    anomalies = verdict.get("anomalies") or {}
    said = (f"Spark over the capture: valid={verdict.get('valid')}; lost={anomalies.get('lost', {}).get('count')}, "
            f"duplicates={anomalies.get('duplicate', {}).get('count')} (allowed)")
    return verdict.get("valid"), said


def rollback(doc: dict) -> tuple[bool | None, str]:
    """PIP454-R07: a failure ends FAILED, and the cluster writes metadata again on the source."""
    seen = [p["phase"] for p in doc["phases"]]
    if not doc["start"]["ok"]:
        return None, f"the start was refused ({doc['start']['status']})"
    failed_at = next((p["ns"] for p in doc["phases"] if p["phase"] == "FAILED"), None)
    said = f"fault: {doc['plan']['fault'] or doc['plan'].get('target')}; phases {phase_path(doc)}"
    fault = doc.get("fault") or {}
    if fault.get("restart_error"):
        return False, (said + f"; the broker did not start again ({fault['restart_error']}; its log: "
                       f"{' | '.join(x.strip()[:160] for x in fault.get('broker_log') or [])}): no FAILED, no writes; "
                       f"the flag in ZooKeeper: {fault.get('flag_in_zookeeper')}")
    if failed_at is None:
        stuck = seen[-1] if seen else "?"
        return False, said + f"; no FAILED within {doc['plan']['timeout_s']:.0f} s: the cluster stays {stuck}"
    after = [w for w in doc["writes"] if w["sent_ns"] > failed_at]
    accepted = [w for w in after if w["ok"]]
    lost = _lost(doc["kept"])
    said += f"; after FAILED {len(accepted)} of {len(after)} writes accepted"
    if lost:
        said += f"; accepted and lost: {', '.join(lost[:8])}"
    if not after:
        return None, said + " (no write was made after it)"
    return len(accepted) == len(after) and not lost, said


def after_cutover(doc: dict) -> tuple[bool | None, str]:
    """PIP454-R08, as its catalog text says since issue 47: after COMPLETED the cluster runs on the target
    with metadata writes enabled again (the seed: "COMPLETED ← Migration complete, all services using
    target store ← Metadata writes ENABLED on target"): every kind of metadata write is accepted (a
    conditional policy update too) and everything accepted is there after a restart on oxia:// (the
    seed's follow-up: metadataStoreUrl=oxia://..., restart)."""
    completed = next((p["ns"] for p in doc["phases"] if p["phase"] == "COMPLETED"), None)
    if completed is None:
        return None, f"no COMPLETED ({phase_path(doc)})"
    after = [w for w in doc["writes"] if w["sent_ns"] > completed]
    kinds = {}
    for w in after:
        kinds.setdefault(w["kind"], []).append(w)
    refused_kinds = {k: ws for k, ws in kinds.items() if not any(w["ok"] for w in ws)}
    cas = doc.get("cas_after") or {}
    restarted = doc.get("restarted_on_oxia") or {}
    missing = _lost(restarted.get("kept") or {})
    said = ("after COMPLETED, metadata writes enabled on the target (the PIP: \"Metadata writes ENABLED on target\"): "
            + "writes after COMPLETED: " + ", ".join(f"{k} {sum(w['ok'] for w in ws)}/{len(ws)} accepted"
                                                   for k, ws in sorted(kinds.items()))
            + f"; conditional policy update -> {cas.get('update')}, read back {cas.get('read_back')}")
    for kind, ws in refused_kinds.items():
        said += f"; every {kind} write refused: {ws[-1]['status']} {str(ws[-1]['body'])[:120]}"
    if restarted.get("restart_error"):
        said += (f"; restarted on {restarted.get('metadata_url')}, the broker did not become healthy "
                 f"({restarted['restart_error']['error']}; its log: "
                 f"{' | '.join(x[:200] for x in restarted['restart_error']['broker_log'][-2:])})")
    if restarted:
        said += (f"; restarted on {restarted.get('metadata_url')} (stop to healthy {restarted.get('healthy_after_s')} s): "
                 f"{len(missing)} accepted write(s) missing"
                 f"{' (' + ', '.join(missing[:6]) + ')' if missing else ''}, new namespace -> {restarted.get('namespace_created')}")
    if not after:
        return None, said
    if not cas and not restarted:  # the run checked nothing after the cutover: refusals alone do not pass it
        return (False if refused_kinds else None), said + "; no conditional update and no restart on the target were made"
    ok = (not refused_kinds and cas.get("update") == 200 and not missing and not restarted.get("restart_error")
          and restarted.get("namespace_created") in (200, 204))
    return ok, said


def rest(doc: dict) -> tuple[bool | None, str]:
    """PIP454-R09: the migration is started and watched over REST (phase and target in the status)."""
    start = doc["start"]
    targets = {p.get("target") for p in doc["phases"] if p["phase"] != "NOT_STARTED"}
    said = f"POST start -> {start['status']}; status showed phases {phase_path(doc)} with target(s) {sorted(t or '' for t in targets)}"
    if not start["ok"]:
        return False, said + f"; refused: {str(start['body'])[:160]}"
    logged = _logged_end(doc)
    seen = [p["phase"] for p in doc["phases"]]
    if logged and logged not in seen:
        said += (f"; the broker logged the migration {logged} (log line "
                 f"{doc['log_marks'][logged.lower()]}) but the status never said so")
    flagged = flag_end(doc)
    if flagged and flagged["phase"] not in seen:
        said += (f"; ZooKeeper's {doc['zookeeper_flag'].get('path')} held {flagged['phase']} "
                 f"{_after_start(doc, flagged['ns'])} (polled beside the status) but the status never said so")
    if (logged and logged not in seen) or (flagged and flagged["phase"] not in seen):
        return False, said
    return bool(targets) and None not in targets, said


def window(doc: dict) -> tuple[bool | None, str, dict]:
    """PIP454-R10 (SHOULD): the read-only window (PREPARATION seen to COMPLETED seen) under 30 s;
    also the span in which writes were refused, by kind."""
    span = read_only_span(doc)
    figures = {"metadata_nodes": doc.get("metadata_nodes"), "metadata_bytes": doc.get("metadata_bytes")}
    if span is None:
        return None, f"no read-only window seen to its end ({phase_path(doc)})", figures
    figures["window_s"] = _seconds(span[1], span[0])
    refused = [w for w in doc["writes"] if not w["ok"]]
    if refused:
        first = refused[0]
        back = next((w for w in doc["writes"] if w["ok"] and w["sent_ns"] > refused[-1]["sent_ns"]), None)
        figures["refused_from_s"] = _seconds(first["sent_ns"], span[0])
        figures["refused_span_s"] = _seconds(back["answered_ns"], first["sent_ns"]) if back else None
    figures["phase_s"] = {a["phase"]: _seconds(b["ns"], a["ns"]) for a, b in zip(doc["phases"], doc["phases"][1:], strict=False)}
    said = (f"read-only window {figures['window_s']} s for {figures['metadata_nodes']} persistent nodes "
            f"({figures['metadata_bytes']} bytes); phases {figures['phase_s']}")
    if doc["phases"][-1]["phase"] != "COMPLETED":
        return None, said + "; the migration did not complete", figures
    return figures["window_s"] < 30.0, said, figures


def other_target(doc: dict, other_source: dict | None = None) -> tuple[bool | None, str]:
    """PIP454-R11 (SHOULD): a target other than Oxia is accepted, and a source other than ZooKeeper
    (``other_source``: the start's answer on a standalone on RocksDB)."""
    start = doc["start"]
    said = f"start with target {doc['plan'].get('target')} -> {start['status']}: {str(start['body'])[:200]}"
    answers = [start]
    if other_source is not None:
        answers.append(other_source)
        said += (f"; on a RocksDB standalone, start to Oxia -> {other_source['status']}: "
                 f"{str(other_source['body'])[:200]}")
    if any(a["status"] is None for a in answers):
        return None, said
    return all(a["ok"] for a in answers), said


def judge(out: Outcome) -> list[Row]:
    """The rows of the checks ``out.judged`` names; all unknown when the target server failed by itself."""
    prefix = f"metadata-migration/{out.name}"
    if out.target_broken:
        return [row(f"{prefix}/{check}", None, out.target_broken) for check in out.judged]
    status = out.to_json()
    doc, source = phase_source(status)
    rows = []
    for check in out.judged:
        name = f"{prefix}/{check}"
        if check == "phases":
            ok, said, witnesses = phases_and_trace(doc)
            rows.append(attach(row(name, ok, said), *witnesses))
        elif check == "data-plane":
            rows.append(from_judge(name, data_plane, doc, out.verdict))
        elif check == "read-only-window":
            ok, said, figures = window(doc)
            rows.append(row(name, ok, said, figures=figures))
        elif check == "other-target":
            rows.append(row(name, *other_target(doc, out.other_source), unreachable_target=out.unreachable_target))
        elif check == "rest":  # the status must say what happened: judged on its own phases
            rows.append(from_judge(name, rest, status))
        else:
            rows.append(from_judge(name, JUDGES[check], doc))
        if source and check in ON_PHASES:
            rows[-1].evidence = f"{source}; {rows[-1].evidence}"
    one_event_for_no_end(doc, rows, prefix)
    return rows


# what the scenario's plan names each fault (Plan.fault) as the evidence says it
FAULTS = {"coordinator": "the coordinator's broker killed", "oxia": "the Oxia target killed",
          "participant": "a participant paused and restarted"}


def one_event_for_no_end(doc: dict, rows: list[Row], prefix: str) -> None:
    """One event, one requirement (issue 47): a fault after which nothing wrote FAILED leaves the phases
    with no end, which the phases (PIP454-R01) and the rollback (PIP454-R07) both showed as a failure.
    It is charged to R07, whose text it breaks ("On any failure the migration ends FAILED"; the spec's
    never_stuck_read_only); R01's text is the phases' order (FAILED may follow any phase), which held as
    far as the phases went: its row says so, unknown past the event. A phase out of order, or a trace the
    spec does not allow, is R01's own and stays failed."""
    by_check = {r.check.rsplit("/", 1)[-1]: r for r in rows}
    phases_row, rollback_row = by_check.get("phases"), by_check.get("rollback")
    fault = (doc.get("plan") or {}).get("fault") or "none"
    if phases_row is None or rollback_row is None or fault not in FAULTS:
        return
    if phases_row.ok is not False or rollback_row.ok is not False or not doc["start"].get("ok"):
        return
    seen = [p["phase"] for p in doc["phases"]]
    if not seen or out_of_order(seen) or seen[-1] in DONE or trace.evidence(doc)[0] is False:
        return
    event = f"{prefix}/no-failed-after-{fault}"
    charged(rollback_row, event)
    same_event(phases_row, event, f"{prefix}/rollback (PIP454-R07)",
               f"{FAULTS[fault]} in {seen[-1]}, nothing wrote FAILED, so the phases have no end: PIP454-R07's text "
               f"(\"on any failure the migration ends FAILED\"); PIP454-R01's is the phases' order, which held up to "
               f"{seen[-1]} ({' -> '.join(seen)})", broken=False)


# the checks judged on the phases phase_source gives (the others do not read them)
ON_PHASES = ("phases", "writes-refused", "ephemerals-recreated", "versions-preserved", "rollback", "after-cutover",
             "read-only-window")


def phases_and_trace(doc: dict) -> tuple[bool | None, str, list]:
    """R01: the phases in the PIP's order, and the observed trace (faults included) a behaviour of
    the spec as proposed (trace.py); what 5.0.0-M1's model says of it is in the evidence too. With the
    behaviours the trace's validation found (itf_traces.LiveTrace), saved beside the row."""
    ok, said = phases(doc)
    behaves, trace_said, witnesses = trace.checked(doc)
    if ok is not None and behaves is not None:
        ok = ok and behaves
    return ok, f"{said}; {trace_said}", witnesses


# the checks judged by a function of the record alone
JUDGES = {"writes-refused": writes_refused, "ephemerals-recreated": ephemerals, "participants-waited": participants,
          "versions-preserved": versions, "after-cutover": after_cutover, "rest": rest, "rollback": rollback}
