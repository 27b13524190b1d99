"""Re-read the kept sweep bundles with the judges of issue 47 and print every cell whose verdict changes.

What it reads: docs/tables/sweep-*/bundles/<profile>/pulsar-<release>/summary.json (tenant-migration,
metadata-migration, cluster-migration, client-failover). Those bundles keep summary.json alone, no capture and
no outcome.json, so ``pulsar-conformance judge BUNDLE`` cannot judge them again from their outcomes (it carries
such rows over as recorded). This script does what can be done instead: it takes each recorded check row and
re-reads it from what the row itself stores (its ``details``: the judges' figures; its ``evidence`` text where
the figures are not in ``details``), through today's judge functions where they take those figures, then
combines the rows into requirement verdicts as the report does (reports/bundle/verdicts.requirement_rows) and counts
failing requirements and distinct failing events (reports/bundle/events.summary_counts).

The changes it knows (issue 47), each applied only where the row's stored figures show the case:

- tenant-migration: ``duplicates-after-switch`` is an observation (``Checks.observes``: reads ``differs``), after
  checking that ``judge.figure_checks`` on the stored figures gives the recorded verdicts of it and of
  ``duplicates-within-spec-bound``; ``backlog-outlives-ttl`` (TM-R11, retired) is dropped and its figures become
  the TTL hazard (``judge.ttl_hazard``) on the scenario's other rows; ``existing-backlog-on-b`` of the documented
  ``earliest`` run is ``not applicable`` where ``judge.documented_earliest_taken_as_latest`` holds on its figures
  and its ``start-as-configured`` row failed (TM-R08's event).
- metadata-migration: ``versions-preserved`` is judged again by ``judge.versions`` on the counts parsed back out of
  its evidence (a regular expression: a row whose evidence does not match is left as recorded); the
  ``coordinator-killed``/``oxia-killed`` ``phases`` row that failed with no end phase, phases in order and a
  failed ``rollback`` is unknown, the same event (what ``judge.one_event_for_no_end`` decides on the whole record,
  here decided on the two rows' verdicts and evidence text, since the record is not kept).
- cluster-migration: ``stranded-restart/spark/lost`` is unknown, the same event as ``parked/backlog-drained``,
  where Spark's lost count (from its evidence) equals what parked never got from blue (from backlog-drained's
  evidence) and every stored example is parked's (``judge.one_event_for_stranded_backlog``'s rule).
- the event ids the new judges give, so that the failing events can be counted.

Limits: this is a reading, not a judgement. It runs no scenario and no Spark check, sees only what each row
kept (evidence cut short or figures not stored cannot be re-read), changes no bundle and writes nothing (it
prints), computes no run verdict and no test outcome, and knows only the changes listed above: a judge
changed later is not reflected. Where a rule is decided on evidence text rather than on the record, a
wording change of the recorded evidence makes the rule skip the row (it is then left as recorded). A verdict
that matters is settled by running the scenario again.

Run it from a checkout (the bundles are not in the wheel), with an environment that has the suite installed:
``.tox/reports/bin/python docs/examples/rejudge_kept_bundles.py [TABLES_DIR]`` (default: docs/tables).
docs/releases.md ("Judged again since issue 47") quotes its output for the sweep at e7171e1 and b183aea.
"""
from __future__ import annotations

import copy
import json
import re
import sys
from pathlib import Path
from types import SimpleNamespace

from pulsar_conformance.conformance.protocols.metadata_migration import judge as mm
from pulsar_conformance.conformance.protocols.tenant_migration import judge as tm
from pulsar_conformance.conformance.protocols.tenant_migration.checks import CHECKS as TM_CHECKS
from pulsar_conformance.conformance.protocols.tenant_migration.outcome import Figures
from pulsar_conformance.conformance.run import verdict_of
from pulsar_conformance.reports.bundle.events import summary_counts
from pulsar_conformance.reports.bundle.verdicts import load_requirements, requirement_rows

PROFILES = ("tenant-migration", "metadata-migration", "cluster-migration", "client-failover")
FIGURES = tuple(Figures.__dataclass_fields__)
# the scenario of each replicationStartAt value the tenant-migration profile asks for
START_AT = {"existing-data-earliest": "earliest", "existing-data-messageid-earliest": "-1:-1:-1"}
VERSIONS = re.compile(r"(\d+) persistent ZooKeeper nodes .*?: (\d+) with the same value and version, (\d+) same value "
                      r"but another version.*?, (\d+) another value, (\d+) missing, (\d+) modified since")


def tenant_migration(c: dict, by: dict, notes: list[str]) -> dict | None:
    """One tenant-migration row as today's judge records it (None: no row any more)."""
    name, d = c["check"], c.get("details") or {}
    last = name.rsplit("/", 1)[-1]
    if last == "backlog-outlives-ttl":
        dropped = None if d.get("old") is None else d["old"] - d["old_on_b"]
        notes.append(f"{name}: {c['verdict']} -> no row (TM-R11 retired; hazard: old {d.get('old')}, "
                     f"on B {d.get('old_on_b')}, dropped {dropped})")
        return None
    if last == "duplicates-after-switch":
        # the stored figures must give the recorded verdicts before the observation is read off them
        figures = Figures(**{k: d[k] for k in FIGURES if k in d})
        judged = {s: ok for s, ok, _ in tm.figure_checks(figures, {"valid": True, "anomalies": {}})}
        bound = by[name.replace("duplicates-after-switch", "duplicates-within-spec-bound")]
        assert verdict_of(judged["duplicates-after-switch"]) == c["verdict"], name
        assert verdict_of(judged["duplicates-within-spec-bound"]) == bound["verdict"], name
        c["details"]["observation"] = TM_CHECKS.observes(name)
    if last == "existing-backlog-on-b":
        start_at = START_AT[name.split("/")[1]]
        configured = by[name.replace("existing-backlog-on-b", "start-as-configured")]
        run = SimpleNamespace(plan=SimpleNamespace(start_at=start_at), setting={"effective": start_at})
        if configured["verdict"] == "fail" and tm.documented_earliest_taken_as_latest(run, d):
            notes.append(f"{name}: {c['verdict']} -> not applicable (TM-R08's event)")
            c["verdict"] = "not applicable"
    ttl_row = name.endswith("/unexpired-on-b") or (name.startswith("tenant-migration/message-ttl") and last == "nothing-lost")
    if ttl_row and (d.get("ttl_s") is not None or last == "nothing-lost"):
        figures = d if "old" in d else by[name.rsplit("/", 1)[0] + "/unexpired-on-b"]["details"]
        if "old" in figures:
            c["details"]["hazard"] = [tm.ttl_hazard(figures)]
    return c


def metadata_migration(c: dict, by: dict, notes: list[str]) -> dict:
    name = c["check"]
    last, scenario = name.rsplit("/", 1)[-1], name.split("/")[1]
    if last == "versions-preserved" and c["verdict"] in ("pass", "fail", "unknown"):
        counts = VERSIONS.search(c["evidence"])
        if counts:
            compared, same, version_changed, value_differs, missing, rewritten = map(int, counts.groups())
            server = re.search(r"target: ([^;]*)", c["evidence"])
            doc = {"phases": [], "target_server": server.group(1) if server else None,
                   "comparison": {"compared": compared, "same": same, "version_changed": version_changed,
                                  "value_differs": value_differs, "missing": missing,
                                  "rewritten_after_cutover": rewritten, "examples": {"version_changed": []}}}
            now = verdict_of(mm.versions(doc)[0])
            if now != c["verdict"]:
                notes.append(f"{name}: {c['verdict']} -> {now} ({value_differs} another value, {version_changed} "
                             f"versions changed, {doc['target_server']})")
                c["verdict"] = now
    if last == "phases" and c["verdict"] == "fail" and scenario in ("coordinator-killed", "oxia-killed"):
        rollback = by.get(f"metadata-migration/{scenario}/rollback")
        no_end = ("no end phase within" in c["evidence"] and "out of the PIP's order" not in c["evidence"]
                  and "as-proposed: NOT a behaviour" not in c["evidence"])
        if rollback and rollback["verdict"] == "fail" and no_end:
            notes.append(f"{name}: fail -> unknown (the same event as {scenario}/rollback, PIP454-R07)")
            c["verdict"] = "unknown"
            c["details"]["event"] = f"metadata-migration/{scenario}/no-failed-after-fault"
    if last == "rollback" and c["verdict"] == "fail" and by.get(f"metadata-migration/{scenario}/phases", {}).get("verdict") == "fail":
        c.setdefault("details", {})["event"] = f"metadata-migration/{scenario}/no-failed-after-fault"
    return c


def cluster_migration(c: dict, by: dict, notes: list[str]) -> dict:
    name, d = c["check"], c.get("details") or {}
    drained = by.get("stranded-restart/parked/backlog-drained")
    if name.endswith("stranded-restart/spark/lost") and c["verdict"] == "fail" and drained:
        missing = re.search(r"(\d+) of blue's messages never reached it", drained.get("evidence", ""))
        lost = re.search(r"'lost': (\d+)", c["evidence"])
        examples = (d.get("examples") or {}).get("lost") or []
        if (drained["verdict"] == "fail" and missing and lost and int(missing.group(1)) == int(lost.group(1))
                and examples and all(e.get("subscription") == "parked" for e in examples)):
            notes.append(f"{name}: fail -> unknown (the same event as stranded-restart/parked/backlog-drained)")
            c["verdict"] = "unknown"
    if name.startswith("stranded-restart/") and (drained or {}).get("verdict") == "fail":
        segments = name.split("/")
        shared = c["verdict"] in ("fail", "unknown") and (
            ("parked" in segments[:-1] and segments[-1] in ("drained-before-green", "trace")) or name.endswith("spark/lost"))
        if name == "stranded-restart/parked/backlog-drained" or shared:
            c.setdefault("details", {})["event"] = "stranded-restart/parked/backlog-left-on-blue"
    return c


def client_failover(c: dict, by: dict, notes: list[str]) -> dict:
    # no verdict changes (R09 keeps its failure, its own text broken too): only the event both rows name
    if c["check"] in ("client-failover/java-stale-failure/waited-for-delay",
                      "client-failover/java-stale-failure/switches-apart") and c["verdict"] == "fail":
        c.setdefault("details", {})["event"] = "client-failover/java-stale-failure/failover-on-a-stale-failure"
    return c


def reread(checks: list[dict]) -> tuple[list[dict], list[str]]:
    """The rows as today's judges record them, and a note per row that changed."""
    rows, notes = [], []
    by = {c["check"]: c for c in checks}
    for recorded in checks:
        c = copy.deepcopy(recorded)
        c.setdefault("details", {})
        name = c["check"]
        if name.startswith("tenant-migration/"):
            c = tenant_migration(c, by, notes)
        elif name.startswith("metadata-migration/"):
            c = metadata_migration(c, by, notes)
        elif name.startswith("client-failover/"):
            c = client_failover(c, by, notes)
        else:
            c = cluster_migration(c, by, notes)
        if c is not None:
            rows.append(c)
    return rows, notes


def main(tables: Path) -> int:
    requirements = load_requirements()
    for path in sorted(tables.glob("sweep-*/bundles/*/pulsar-*/summary.json")):
        summary = json.loads(path.read_text())
        if summary.get("profile") not in PROFILES:
            continue
        was = {r["id"]: r["verdict"] for r in summary["requirements"]}
        checks, notes = reread(summary["checks"])
        now = {r["id"]: r["verdict"] for r in requirement_rows(requirements, checks)}
        changed = {rid: (was[rid], v) for rid, v in now.items() if was.get(rid) not in (None, v)}
        cell = "/".join(path.parts[-5:-1])
        counts = summary_counts(checks, requirements)
        if changed or notes:
            print(f"{cell}: " + ", ".join(f"{rid} {a} -> {b}" for rid, (a, b) in sorted(changed.items()))
                  + f"  [events: {counts}]")
            for note in notes:
                print("    " + note)
        else:
            print(f"{cell}: unchanged  [events: {counts}]")
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parents[1] / "tables"))
