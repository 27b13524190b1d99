"""``certify --repeat N`` and ``certify --matrix AXIS=V1,V2``: a series of certification runs,
each a complete bundle in a folder of its own (fresh deployment, seed, versions), and one summary
over them (docs/ci-gating.md).

A requirement's verdict over repeated runs is its worst (any failing run fails it) with counts
(``pass 2/3``); one that passed in some runs and failed in others is marked intermittent, with
the failing runs' seeds and evidence. A matrix runs the profile per Pulsar release or client
release and writes the comparison (reports/compare.py) of the cells, baseline first.
"""
from __future__ import annotations

import json
from collections import Counter
from copy import copy
from pathlib import Path

from pulsar_conformance.errors import UsageError
from pulsar_conformance.files import write_atomic
from pulsar_conformance.output import emit, progress

from .compare import FORMAT, Bundle, compare, render_html
from .compare import text as compare_text
from .verdicts import ORDER, combine

AXES = {"pulsar": "pulsar_version", "client": "client_version", "java-client": "java_client_version",
        "migration-tls": "migration_tls"}
MAX_REPEAT = 20


def parse_matrix(text: str | None) -> tuple[str, list[str]] | None:
    """``pulsar=4.0.1,4.2.4`` -> ("pulsar", [...]); every value checked before anything starts."""
    if not text:
        return None
    axis, _, values = text.partition("=")
    versions = [v.strip() for v in values.split(",") if v.strip()]
    if axis not in AXES or len(versions) < 2:
        raise UsageError(f"--matrix {text!r}: expected AXIS=V1,V2[,...] with AXIS one of {', '.join(AXES)}",
                         "e.g. --matrix pulsar=4.0.1,4.2.4, client=3.4.0,3.13.0, java-client=3.0.7,4.2.4 "
                         "or migration-tls=off,advertised,on "
                         "(baseline first)")
    if axis in ("pulsar", "java-client"):  # the Java client is released with Pulsar, numbered alike
        from pulsar_conformance.fixtures.deploy.versions import parse_version

        for version in versions:
            parse_version(version)  # a malformed or too-old release is exit 2 before any cluster starts
    if axis == "migration-tls":
        from pulsar_conformance.conformance.protocols.cluster_migration import tls_modes

        for value in versions:
            tls_modes.check(value)
    return axis, versions


def plan(args) -> list[tuple[str, str, dict]]:
    """(cell, folder, argument overrides) per run: matrix cells (one cell without a matrix), each repeated."""
    repeat = getattr(args, "repeat", 1)
    if not 1 <= repeat <= MAX_REPEAT:
        raise UsageError(f"--repeat {repeat}: must be 1..{MAX_REPEAT}", "pass e.g. --repeat 3")
    matrix = parse_matrix(getattr(args, "matrix", None))
    cells = [(f"{matrix[0]}-{v}", {AXES[matrix[0]]: v}) for v in matrix[1]] if matrix else [("", {})]
    runs = []
    for cell, overrides in cells:
        for i in range(repeat):
            folder = "/".join(p for p in (cell, f"run-{i + 1}" if repeat > 1 else "") if p)
            runs.append((cell, folder, {**overrides, "seed": args.seed + i}))
    return runs


def run_series(args, profile, deployment: dict, out: Path, run_id: str) -> int:
    from .certify import certify_once, exit_code

    runs = plan(args)
    out.mkdir(parents=True, exist_ok=True)
    cells: dict[str, list[tuple[str, dict]]] = {}
    for i, (cell, folder, overrides) in enumerate(runs, 1):
        progress(f"certify: run {i} of {len(runs)}: {folder} ({', '.join(f'{k}={v}' for k, v in overrides.items())})")
        one = copy(args)
        for key, value in overrides.items():
            setattr(one, key, value)
        summary = certify_once(one, profile, deployment, out / folder, f"{run_id}-{folder.replace('/', '-')}")
        cells.setdefault(cell, []).append((folder, summary))
        progress(f"certify: {folder}: {summary['verdict']}")
        if summary.get("interrupted"):
            break  # Ctrl-C ends the series, not just one run
    if getattr(args, "matrix", None):
        per_cell = {}
        for cell, members in cells.items():
            per_cell[cell] = members[0][1] if len(members) == 1 else aggregate(members, profile.name, f"{run_id}-{cell}")
            if len(members) > 1:
                _write(out / cell, per_cell[cell])
        doc = compare([Bundle(out / cell, summary) for cell, summary in per_cell.items()])
        overall = aggregate(list(per_cell.items()), profile.name, run_id)
        overall["series"]["comparison"] = {"regressions": doc["regressions"], "changed": doc["changed"]}
    else:
        members = cells[""]
        doc = compare([Bundle(out / folder, summary) for folder, summary in members])
        overall = aggregate(members, profile.name, run_id)
    _write_compare(out, doc)
    _write(out, overall)
    emit(args, {"verdict": overall["verdict"], "out": str(out), "series": overall["series"]},
         lambda: series_text(overall, out))
    return exit_code(overall["verdict"])


def aggregate(members: list[tuple[str, dict]], profile: str, run_id: str) -> dict:
    """One summary over runs (or matrix cells): per requirement the worst verdict, with counts."""
    order: list[str] = []
    rows_by_run = []
    for _, summary in members:
        rows = {r["id"]: r for r in summary.get("requirements", [])}
        rows_by_run.append(rows)
        order += [rid for rid in rows if rid not in order]
    requirements = []
    for rid in order:
        cells = [rows.get(rid) for rows in rows_by_run]
        first = next(c for c in cells if c)
        seen = [c["verdict"] if c else "absent" for c in cells]
        decided = [v for v in seen if v in ORDER]
        verdict = combine(decided) if decided else first["verdict"]
        counts = Counter(seen)
        failing = [{"run": name, "seed": summary.get("seed"), "bundle": name,
                    "evidence": (cell or {}).get("evidence", [])[:2]}
                   for (name, summary), cell, v in zip(members, cells, seen, strict=True) if v == "fail"]
        requirements.append({
            **{k: first.get(k) for k in ("id", "strength", "text", "area", "quote", "notes")},
            "verdict": verdict,
            "counts": {v: f"{n}/{len(members)}" for v, n in counts.items()},
            "intermittent": "pass" in seen and "fail" in seen,
            "runs": dict(zip([name for name, _ in members], seen, strict=True)),
            "failing_runs": failing,
            "evidence": [e for f in failing for e in f["evidence"]][:3] or first.get("evidence", [])[:3],
        })
    verdict = combine([s["verdict"] for _, s in members])
    reasons = [f"{name}: {s['verdict']} ({'; '.join(s.get('reasons', [])[:2])})" for name, s in members]
    intermittent = [r["id"] for r in requirements if r["intermittent"]]
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
                             "bundle": name} for name, s in members],
                   "intermittent": intermittent},
    }


def _write(out: Path, summary: dict) -> None:
    out.mkdir(parents=True, exist_ok=True)
    write_atomic(out / "summary.json", json.dumps(summary, indent=2, default=str))


def _write_compare(out: Path, doc: dict) -> None:
    write_atomic(out / "compare.json", json.dumps(doc, indent=2, default=str))
    write_atomic(out / "compare.html", render_html(doc))
    write_atomic(out / "compare.txt", compare_text(doc) + "\n")


def series_text(summary: dict, out: Path) -> str:
    lines = [f"{summary['verdict'].upper()} over {len(summary['series']['runs'])} run(s):"]
    lines += [f"  {r['run']}: {r['verdict']} (seed {r['seed']}, pulsar {(r['versions'] or {}).get('pulsar')}, "
              f"client {(r['versions'] or {}).get('pulsar_client_python')})" for r in summary["series"]["runs"]]
    decided = [r for r in summary["requirements"] if any(v in ORDER for v in r["runs"].values())]
    width = max((len(r["id"]) for r in decided), default=10)
    for r in decided:
        counts = ", ".join(f"{v} {n}" for v, n in r["counts"].items())
        lines.append(f"  {r['id']:<{width}}  {r['verdict']:<8} {counts}" + ("  INTERMITTENT" if r["intermittent"] else ""))
    if summary["series"].get("intermittent"):
        lines.append(f"intermittent: {', '.join(summary['series']['intermittent'])}")
    lines.append(f"runs side by side: {out / 'compare.html'}")
    return "\n".join(lines)
