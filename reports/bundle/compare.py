"""``compare BUNDLE...``: certification bundles side by side, per requirement (docs/ci-gating.md).

The first bundle is the baseline (e.g. the release in production), the later ones candidates. The
gate, in the exit code:
- 1: a requirement that passed on the baseline fails on a candidate (a regression; the output tells
  regressions of MUST requirements from those of SHOULD/MAY ones, which certify lists as deviations);
- 2: no regression, but a candidate was not judged: its run is unknown (interrupted, something not
  reached) or a requirement that passed on the baseline has no verdict there (unknown, not run,
  absent) - a broken candidate must not pass the gate;
- 0: otherwise; a requirement that changed in another way (fail -> pass, not run -> fail) is listed
  as changed;
- 64: input that is not comparable: a path without a bundle, a bundle that does not match its SHA-256
  manifest (changed after certify wrote it: a hand-edited summary.json must not pass a gate), a
  summary.json with a missing or mistyped field (named), bundles of different profiles.

Each bundle is checked against its manifest first, as ``results`` checks it (reports/bundle/reading.load_checked:
folders, their summary.json, the .tar.gz archives, series folders through their runs); a bundle
written before manifests is compared and said ``not verified``.

The comparison and its gate are here; the command that prints them and writes the page for ``--html`` is
reports/view/compare_page.py.
"""
from __future__ import annotations

from pulsar_conformance.errors import EXIT_FAIL, EXIT_PASS, EXIT_UNKNOWN, UsageError

from .reading import Bundle, load_verified

# verdicts that judged a requirement; anything else on a candidate (unknown, not run, absent, skipped) did not
# "differs": a client judged on a requirement taken from another client's code (reports/bundle/verdicts.py)
JUDGED = ("pass", "fail", "not applicable", "differs")


def load_all(paths) -> list[Bundle]:
    """The bundles of ``compare``, baseline first: at least two, each matching its manifest, all of one profile."""
    if len(paths) < 2:
        raise UsageError("compare needs at least two bundles", "pass the baseline bundle first, then the others")
    bundles = [load_verified(path) for path in paths]
    profiles = [b.summary["profile"] for b in bundles]
    if len(set(profiles)) > 1:
        listed = ", ".join(f"[{i}] {p}" for i, p in enumerate(profiles))
        raise UsageError(f"the bundles certify different profiles ({listed}): their requirements are not the same "
                         "question", f"compare bundles of one profile: certify the candidate with --profile {profiles[0]}")
    return bundles


def compare(bundles: list[Bundle]) -> dict:
    """Rows of requirement x bundle, with what changed against the first bundle, and the gate's verdict."""
    order: list[str] = []
    by_bundle = [b.verdicts() for b in bundles]
    for verdicts in by_bundle:
        order += [rid for rid in verdicts if rid not in order]
    rows = []
    for rid in order:
        cells = [verdicts.get(rid) for verdicts in by_bundle]
        first = next((c for c in cells if c), {})
        seen = [c["verdict"] if c else "absent" for c in cells]
        regressed = [i for i, v in enumerate(seen) if i and seen[0] == "pass" and v == "fail"]
        lost = [i for i, v in enumerate(seen) if i and seen[0] == "pass" and v not in JUDGED]
        rows.append({
            "id": rid, "strength": first.get("strength"), "text": first.get("text"),
            "verdicts": seen, "changed": len(set(seen)) > 1, "regressed_in": regressed, "lost_in": lost,
            # the first failing bundle's evidence explains the change
            "evidence": next((c.get("evidence", [])[:3] for c in cells[1:] if c and c["verdict"] == "fail"), []),
        })
    regressions = [r["id"] for r in rows if r["regressed_in"]]
    must = [r["id"] for r in rows if r["regressed_in"] and r["strength"] == "MUST"]
    lost = [r["id"] for r in rows if r["lost_in"]]
    unjudged = [i for i, b in enumerate(bundles) if i and b.summary.get("verdict") not in ("pass", "fail")]
    verdict = "regression" if regressions else "candidate not judged" if lost or unjudged else "no regression"
    return {
        "bundles": [{"path": str(b.path), "label": b.label, "verdict": b.summary.get("verdict"),
                     "profile": b.summary.get("profile"), "versions": b.summary.get("versions"),
                     "narrowed": b.summary.get("narrowed"), "interrupted": bool(b.summary.get("interrupted")),
                     "integrity": b.integrity}
                    for b in bundles],
        "requirements": rows,
        "changed": [r["id"] for r in rows if r["changed"]],
        "regressions": regressions,
        # certify fails a run on a MUST only; a SHOULD/MAY that regressed is a deviation it lists
        "regressions_must": must,
        "regressions_should": [rid for rid in regressions if rid not in must],
        "lost": lost,
        "unjudged_candidates": unjudged,
        "verdict": verdict,
    }


def gate(doc: dict) -> int:
    """The exit code of ``compare`` (see the module's docstring)."""
    if doc["regressions"]:
        return EXIT_FAIL
    if doc["lost"] or doc["unjudged_candidates"]:
        return EXIT_UNKNOWN
    return EXIT_PASS


def text(doc: dict) -> str:
    lines = [f"[{i}] {b['label']}: {b['verdict']} ({b['profile']})"
             + (f"; {b['integrity'].upper()}" if b.get("integrity") and b["integrity"] != "verified" else "")
             for i, b in enumerate(doc["bundles"])]
    width = max((len(r["id"]) for r in doc["requirements"]), default=10)
    lines.append("")
    lines.append(f"{'requirement':<{width}}  {'level':<6}  "
                 + "  ".join(f"[{i}]".ljust(9) for i in range(len(doc["bundles"]))))
    for row in doc["requirements"]:
        if not row["changed"]:
            continue
        strength = row["strength"] or "-"
        mark = (f"  {strength} REGRESSION" if row["regressed_in"] else
                "  NO VERDICT ON A CANDIDATE" if row.get("lost_in") else "")
        lines.append(f"{row['id']:<{width}}  {strength:<6}  " + "  ".join(v.ljust(9) for v in row["verdicts"]) + mark)
    same = len(doc["requirements"]) - len(doc["changed"])
    lines.append(f"{len(doc['changed'])} requirement(s) changed, {same} the same in every bundle")
    lines.append(f"MUST regressions (passed in [0], fail later): {', '.join(doc.get('regressions_must', [])) or 'none'}")
    lines.append("SHOULD/MAY regressions (deviations certify lists): "
                 f"{', '.join(doc.get('regressions_should', [])) or 'none'}")
    if doc.get("lost"):
        lines.append(f"passed in [0], no verdict later (unknown, not run or absent): {', '.join(doc['lost'])}")
    if doc.get("unjudged_candidates"):
        lines.append("candidate run(s) without a verdict: "
                     + ", ".join(f"[{i}] {doc['bundles'][i]['verdict']}" for i in doc["unjudged_candidates"]))
    lines.append(f"gate: {doc['verdict']}")
    return "\n".join(lines)
