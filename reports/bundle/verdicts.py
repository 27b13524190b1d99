"""From recorded check verdicts to requirement verdicts and one run verdict (three-valued).

Rules (docs/certify.md):
- a requirement's deployment verdict combines its deployment checks: any ``fail`` fails it,
  else any ``unknown`` makes it unknown, else ``pass``; ``not applicable`` only when every check
  of it says the release lacks the feature (a verdict, with its reason); no deployment check in this run:
  ``not run`` (covered by the catalog, not by this profile) or ``uncovered`` (no check exists);
- model checks are shown next to it and never make a requirement pass on the deployment;
- a requirement not taken from the PIP (catalog ``source_kind`` implementation or suite) never fails
  a client it was not taken from: such a check's ``fail`` is ``differs`` for it, an observation
  (conformance/harness/sources.py); a requirement only ``differs`` where nothing else judged it;
- a check recorded under a configuration hazard (``details.hazard``) lists the hazard on the
  requirement's row and in the run's reasons (conformance/harness/hazards.py);
- each requirement names the findings that explain its failure (docs/findings.md, parsed by
  conformance/harness/findings.py), only those whose scope holds for the run (its release, topology,
  configuration store: ``run_context``) and for the clients whose checks gave the verdict
  (``verdict_clients``);
- the run fails if a MUST requirement or a suite test fails (a failed SHOULD or MAY is listed
  as a deviation), is unknown if anything is unknown, no deployment check ran at all, a
  requirement the profile certifies got no verdict (not run, skipped, uncovered) or a test was
  skipped, and passes only otherwise. A user may narrow the profile (``--exclude``, ``--select``): the
  excluded requirements then need no verdict and skipped tests are listed, not held against the
  run; narrowing never excuses a failure that was observed.

A run's verdict is also its exit code (``exit_code``: certify, results, judge and a series exit with it), and a
series' summary (certify --repeat/--matrix, reports/runner/series.py; the release tables read it too) is
``aggregate``: per requirement the worst verdict over the runs, with counts and intermittence.
"""
from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from pulsar_conformance.conformance.harness import findings, sources
from pulsar_conformance.errors import EXIT_FAIL, EXIT_INTERRUPTED, EXIT_PASS, EXIT_UNKNOWN
from pulsar_conformance.spec.catalog import requirements as catalog_requirements

from .reading import FORMAT

# worst first; "not applicable" yields to any observed verdict of the same requirement, and
# "differs" (another client's behaviour not followed: no conformance failure) to any verdict of a
# check that judged the requirement on what it was taken from
ORDER = {"fail": 0, "unknown": 1, "pass": 2, "differs": 3, "not applicable": 4}


def combine(verdicts: list[str]) -> str:
    return min(verdicts, key=ORDER.__getitem__) if verdicts else "unknown"


def load_checks(out: Path) -> list[dict]:
    path = out / "checks.jsonl"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def load_requirements() -> list:
    """The spec catalog plus the conformance suite's own requirements (same schema)."""
    return list(catalog_requirements())


# profiles whose standalone runs on a ZooKeeper (its configuration store is then its metadata store): PIP-454
# migrates from ZooKeeper only (conformance/protocols/metadata_migration/test_metadata_migration.py starts its
# standalones with metadata="zk"); every other standalone keeps RocksDB (fixtures/deploy/metadata_sync.store_settings)
ZOOKEEPER_STANDALONE = frozenset({"metadata-migration"})
STARTED_HERE = ("local", "containers")  # the backends whose clusters the suite starts (and so knows)


def store_of(profile: str | None, topology: str | None, backend: str | None) -> str | None:
    """The configuration store the run's clusters kept: ZooKeeper on the cluster topology (fixtures/deploy/topology.py:
    the cluster's own ZooKeeper), on a standalone RocksDB unless its profile runs it on ZooKeeper; None for an
    external deployment, whose store the bundle does not say."""
    if backend not in STARTED_HERE or topology not in ("standalone", "cluster"):
        return None
    if topology == "cluster" or profile in ZOOKEEPER_STANDALONE:
        return "zookeeper"
    return "rocksdb"


def run_context(profile: str | None, versions: dict, topology: str | None, backend: str | None) -> findings.Context:
    """What a run ran on, as a finding's scope asks it (the clients are each requirement's: ``verdict_clients``):
    ``versions`` is summary.json's (identity.versions), ``topology`` and ``backend`` the run's."""
    versions = versions or {}
    return findings.Context(pulsar=versions.get("pulsar"), java=versions.get("pulsar_client_java"),
                            python=versions.get("pulsar_client_python"), topology=topology,
                            store=store_of(profile, topology, backend))


def check_client(check: dict) -> str:
    """The client a check row judged: the recorder names the Java client's rows ``java`` (and the Python client's
    ``cpp`` where a scenario runs both); a row that names none was judged on the Python client's traffic or on no
    client's, which a finding about a client's defect does not explain either way."""
    client = (check.get("details") or {}).get("client")
    return "java" if client == "java" else "python" if client in (None, "cpp") else str(client)


def verdict_clients(judged: list[tuple[dict, str]], verdict: str) -> frozenset[str]:
    """The clients of the checks that gave the requirement its verdict (``judged``: (check, its verdict for the
    requirement)); a verdict no deployment check gave (not run) has none."""
    return frozenset(check_client(c) for c, v in judged if v == verdict)


def summary_topology(summary: dict) -> str:
    """What ran per cluster in a recorded run: summary.json's ``topology`` (since issue 31), else its command's
    --topology (earlier cluster runs), else a standalone (every run before the cluster topology existed)."""
    if summary.get("topology"):
        return summary["topology"]
    words = str(summary.get("command") or "").split()
    return next((words[i + 1] for i, w in enumerate(words[:-1]) if w == "--topology"), None) or next(
        (w.split("=", 1)[1] for w in words if w.startswith("--topology=")), "standalone")


def summary_context(summary: dict, rid: str) -> findings.Context:
    """``run_context`` of a recorded run (its summary.json) for requirement ``rid``: the clients are those of the
    checks that gave its row the verdict (a ``differs`` row: the failing checks it was made of); a summary without
    its checks names the clients its versions record."""
    context = run_context(summary.get("profile"), summary.get("versions") or {}, summary_topology(summary),
                          summary.get("deployment") or "local")
    row = next((r for r in summary.get("requirements") or () if isinstance(r, dict) and r.get("id") == rid), {})
    verdict = row.get("verdict")
    checks = [c for c in summary.get("checks") or () if isinstance(c, dict) and rid in (c.get("requirements") or ())
              and c.get("kind", "deployment") == "deployment"]
    if checks:
        wanted = ("fail",) if verdict == "differs" else (verdict,)
        return context.with_clients({check_client(c) for c in checks if c.get("verdict") in wanted})
    versions = summary.get("versions") or {}
    return context.with_clients({name for name, key in (("python", "pulsar_client_python"),
                                                        ("java", "pulsar_client_java")) if versions.get(key)})


def requirement_rows(requirements, checks: list[dict], context: findings.Context | None = None) -> list[dict]:
    """The requirement rows of a run. With the run's ``context`` (``run_context``) each row links only the findings
    whose scope holds there; without one (a caller that knows no run) every finding that names the requirement."""
    rows = []
    for req in requirements:
        mine = [c for c in checks if req.id in c["requirements"]]
        deployed = [c for c in mine if c["kind"] == "deployment"]
        model = [c for c in mine if c["kind"] == "model"]
        judged = [(c, *sources.verdict_for(req, c)) for c in deployed]
        if deployed:
            verdict = combine([v for _, v, _ in judged])
        elif req.covered:
            verdict = "not run"
        else:
            verdict = "uncovered"
        hazards = []
        for c in deployed:
            for h in (c.get("details") or {}).get("hazard") or ():
                if h not in hazards:
                    hazards.append(h)
        rows.append({
            "id": req.id, "strength": req.strength, "text": req.text, "area": req.area, "quote": req.quote,
            "source_kind": sources.kind(req), "source": sources.label(req),
            "verdict": verdict, "model": combine([c["verdict"] for c in model]) if model else None,
            "evidence": [f"{c['check']}: {v} ({note + '; ' if note else ''}{c['evidence']})" for c, v, note in judged]
            + [f"{c['check']}: {c['verdict']} ({c['evidence']})" for c in model],
            "uncovered_reason": req.uncovered, "notes": req.notes,
            "checks": sorted({c["check"] for c in mine}),
            "findings": findings.for_requirement(req.id, context=None if context is None else context.with_clients(
                verdict_clients([(c, v) for c, v, _ in judged], verdict))),
            "hazards": hazards,
        })
    return rows


def run_hazards(rows: list[dict]) -> list[dict]:
    """The configuration hazards of the run, each once, with the requirements they touched."""
    found: dict[str, dict] = {}
    for r in rows:
        for h in r.get("hazards") or ():
            entry = found.setdefault(h["name"] + h["says"], dict(h, touched=[]))
            entry["touched"].append(r["id"])
    return list(found.values())


COUNTED = "counted:"  # the reason that says how many events the failures are (reports/bundle/events.py)


def run_verdict(rows: list[dict], tests: dict, pytest_exit: int, declared=(), excluded=(),
                selected: str | None = None, failing: dict | None = None) -> tuple[str, list[str]]:
    """The run's verdict and its reasons. ``failing``: reports/bundle/events.summary_counts of the run's check
    rows, said beside the failed MUSTs (one event can fail several requirements: issue 47)."""
    narrowed = [f"narrowed: certified without {', '.join(excluded)}"] if excluded else []
    if selected:
        narrowed.append(f"narrowed: only the tests matching -k {selected!r} ran")
    reasons = []
    failed_must = [r["id"] for r in rows if r["verdict"] == "fail" and r["strength"] == "MUST"]
    if failed_must:
        reasons.append(f"MUST requirement(s) failed on the deployment: {', '.join(failed_must)}")
        if failing:
            reasons.append(f"{COUNTED} {failing['failing_requirements']} failing requirement(s) from "
                           f"{failing['failing_events']} distinct failing event(s)")
    if tests.get("failed"):
        reasons.append(f"{tests['failed']} test(s) failed")
    # a hazard of the run's configuration is said whatever the verdict: it is why some are unknown
    # one a scenario is configured with on purpose (hazards.Hazard.observed) turns nothing unknown: it says what it cost
    hazards = [f"configuration hazard ({h['name']}, " + (f"observed: {h['observed']}" if h.get("observed") else
                                                        f"{', '.join(h['touched'])} unknown where it failed")
               + f"): {h['says']}; fix: {h['fix']}" for h in run_hazards(rows)]
    differs = [r["id"] for r in rows if r.get("verdict") == "differs"]
    observed = ([f"observations, no conformance failure: {', '.join(differs)} (the client differs from the "
                 "implementation the requirement was taken from)"] if differs else [])
    if reasons:
        return "fail", reasons + hazards + observed
    if pytest_exit == 130:
        reasons.append("the run was interrupted")
    if any(r["verdict"] == "unknown" for r in rows):
        reasons.append("a requirement's state was not reached (unknown)")
    verdicts = {r["id"]: r["verdict"] for r in rows if "id" in r}
    missing = [f"{rid} ({verdicts.get(rid, 'not in the catalog')})" for rid in declared
               if rid not in excluded and verdicts.get(rid) not in ORDER]
    if missing:
        reasons.append(f"requirement(s) this profile certifies got no verdict: {', '.join(missing)}")
    if tests.get("skipped") and not excluded:
        reasons.append(f"{tests['skipped']} test(s) skipped: a certification has no skips "
                       "(narrow the profile with --exclude to certify without them)")
    if tests.get("errors"):
        reasons.append(f"{tests['errors']} test(s) broken (infrastructure, the suite itself or an unknown verdict: "
                       "each test's message says which; none is a verdict on the product)")
    if tests.get("timed_out"):
        reasons.append(f"{tests['timed_out']} scenario(s) stopped at the time limit: no verdict "
                       "(where each was stuck is its test's failure text)")
    if not any(r["verdict"] in ("pass", "fail", "unknown", "differs") for r in rows):  # not applicable everywhere: nothing seen
        reasons.append("no requirement was checked on the deployment")
    if not tests.get("total"):
        reasons.append("no test ran")
    elif pytest_exit not in (0, 1):
        reasons.append(f"pytest exited {pytest_exit}")
    if reasons:
        return "unknown", reasons + hazards + observed + narrowed
    # RFC 2119: a SHOULD or MAY not met is a deviation the report lists, not a failed certification
    deviations = [r["id"] for r in rows if r["verdict"] == "fail"]
    absent = [r["id"] for r in rows if r["verdict"] == "not applicable"]
    lacking = [f"not applicable to this release: {', '.join(absent)}"] if absent else []
    if deviations:
        return "pass", ["every checked MUST requirement passed", *narrowed, *lacking, *observed, *hazards,
                        f"deviations (SHOULD/MAY not met): {', '.join(deviations)}"]
    return "pass", ["every checked requirement passed", *narrowed, *lacking, *observed, *hazards]


def exit_code(verdict: str, *, interrupted: bool = False) -> int:
    """0 pass, 1 fail, 2 unknown; an interrupted run that reached no failure is 130, not "unknown"."""
    if verdict == "fail":
        return EXIT_FAIL
    if interrupted:
        return EXIT_INTERRUPTED
    return {"pass": EXIT_PASS}.get(verdict, EXIT_UNKNOWN)


def aggregate(members: list[tuple[str, dict]], profile: str, run_id: str, *, cells: bool = False) -> dict:
    """One summary over runs (or, ``cells``, over matrix cells, each one run or a summary of its
    repeats): per requirement the worst verdict, with counts."""
    order: list[str] = []
    rows_by_run = []
    for _, summary in members:
        rows = {r["id"]: r for r in summary.get("requirements", [])}
        rows_by_run.append(rows)
        order += [rid for rid in rows if rid not in order]
    requirements = []
    for rid in order:
        found = [rows.get(rid) for rows in rows_by_run]
        first = next(c for c in found if c)
        seen = [c["verdict"] if c else "absent" for c in found]
        decided = [v for v in seen if v in ORDER]
        verdict = combine(decided) if decided else first["verdict"]
        counts = Counter(seen)
        failing = [{"run": name, "seed": summary.get("seed"), "bundle": name,
                    "evidence": (cell or {}).get("evidence", [])[:2]}
                   for (name, summary), cell, v in zip(members, found, seen, strict=True) if v == "fail"]
        mixed = "pass" in seen and "fail" in seen
        requirements.append({
            **{k: first.get(k) for k in ("id", "strength", "text", "area", "quote", "notes")},
            "verdict": verdict,
            "counts": {v: f"{n}/{len(members)}" for v, n in counts.items()},
            # over cells: intermittent within a cell's repeats; a difference between cells is not that
            "intermittent": any((c or {}).get("intermittent") for c in found) if cells else mixed,
            "differs_across_cells": cells and mixed,
            "runs": dict(zip([name for name, _ in members], seen, strict=True)),
            "failing_runs": failing,
            "evidence": [e for f in failing for e in f["evidence"]][:3] or first.get("evidence", [])[:3],
        })
    verdict = combine([s["verdict"] for _, s in members])
    reasons = [f"{name}: {s['verdict']} ({'; '.join(s.get('reasons', [])[:2])})" for name, s in members]
    intermittent = [r["id"] for r in requirements if r["intermittent"]]
    differing = [r["id"] for r in requirements if r["differs_across_cells"]]
    if differing:
        reasons.insert(0, "differs across the matrix's cells (each cell's verdict in runs; whether it is a release "
                          f"difference: pulsar-conformance releases): {', '.join(differing)}")
    if intermittent:
        reasons.insert(0, f"intermittent (passed in some runs, failed in others): {', '.join(intermittent)}")
    base = members[0][1]
    return {
        "format": FORMAT, "run_id": run_id, "profile": profile, "verdict": verdict, "reasons": reasons,
        "seconds": round(sum(s.get("seconds", 0) for _, s in members), 1),
        "interrupted": any(s.get("interrupted") for _, s in members),
        "versions": base.get("versions"), "deployment": base.get("deployment"), "seed": base.get("seed"),
        "product": base.get("product"), "narrowed": base.get("narrowed"), "declared": base.get("declared"),
        "counts": {"requirements": dict(Counter(r["verdict"] for r in requirements))},
        "requirements": requirements, "checks": [], "tests": [],
        "series": {"runs": [{"run": name, "seed": s.get("seed"), "verdict": s["verdict"], "versions": s.get("versions"),
                             "bundle": name, "runs": len((s.get("series") or {}).get("runs") or [None])}
                            for name, s in members],
                   "intermittent": intermittent, "cells": cells, "differs_across_cells": differing},
    }
