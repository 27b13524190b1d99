"""``compare BUNDLE...``: certification bundles side by side, per requirement (docs/ci-gating.md).

The first bundle is the baseline (e.g. the release in production); a requirement that passed
there and fails in a later bundle is a regression, and ``compare`` exits 1 on any, which is what
a team gating a Pulsar or client upgrade in CI needs. A requirement that changed in another way
(pass -> unknown, fail -> pass, not run -> fail) is listed as changed but does not fail the gate.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from pulsar_conformance.errors import EXIT_FAIL, EXIT_PASS, UsageError
from pulsar_conformance.files import write_atomic

FORMAT = "pulsar-conformance-certification/1"


@dataclass(frozen=True)
class Bundle:
    path: Path
    summary: dict

    @property
    def label(self) -> str:
        versions = self.summary.get("versions") or {}
        java = f" / java client {versions['pulsar_client_java']}" if versions.get("pulsar_client_java") else ""
        return (f"pulsar {versions.get('pulsar') or '?'} / client {versions.get('pulsar_client_python') or '?'}{java}"
                f" ({self.summary.get('run_id', self.path.name)})")

    def verdicts(self) -> dict[str, dict]:
        return {r["id"]: r for r in self.summary.get("requirements", []) if "id" in r}


def load(path: str) -> Bundle:
    where = Path(path)
    summary_file = where / "summary.json" if where.is_dir() else where
    if not summary_file.is_file():
        raise UsageError(f"{path}: no certification bundle here (no summary.json)",
                         "pass the directory certify wrote (its --out), or its summary.json")
    try:
        summary = json.loads(summary_file.read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise UsageError(f"{summary_file}: not a readable summary.json ({error})",
                         "re-run certify for this bundle; a hand-edited summary cannot be compared") from error
    if not isinstance(summary, dict) or summary.get("format") != FORMAT or not isinstance(summary.get("requirements"), list):
        raise UsageError(f"{summary_file}: not a {FORMAT} summary",
                         "pass bundles written by pulsar-conformance certify")
    return Bundle(summary_file.parent, summary)


def compare(bundles: list[Bundle]) -> dict:
    """Rows of requirement x bundle, with what changed against the first bundle."""
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
        rows.append({
            "id": rid, "strength": first.get("strength"), "text": first.get("text"),
            "verdicts": seen, "changed": len(set(seen)) > 1, "regressed_in": regressed,
            # the first failing bundle's evidence explains the change
            "evidence": next((c.get("evidence", [])[:3] for c in cells[1:] if c and c["verdict"] == "fail"), []),
        })
    regressions = [r["id"] for r in rows if r["regressed_in"]]
    return {
        "bundles": [{"path": str(b.path), "label": b.label, "verdict": b.summary.get("verdict"),
                     "profile": b.summary.get("profile"), "versions": b.summary.get("versions"),
                     "narrowed": b.summary.get("narrowed")} for b in bundles],
        "requirements": rows,
        "changed": [r["id"] for r in rows if r["changed"]],
        "regressions": regressions,
        "verdict": "regression" if regressions else "no regression",
    }


def text(doc: dict) -> str:
    lines = [f"[{i}] {b['label']}: {b['verdict']} ({b['profile']})" for i, b in enumerate(doc["bundles"])]
    width = max((len(r["id"]) for r in doc["requirements"]), default=10)
    lines.append("")
    lines.append(f"{'requirement':<{width}}  " + "  ".join(f"[{i}]".ljust(9) for i in range(len(doc["bundles"]))))
    for row in doc["requirements"]:
        if not row["changed"]:
            continue
        mark = "  REGRESSION" if row["regressed_in"] else ""
        lines.append(f"{row['id']:<{width}}  " + "  ".join(v.ljust(9) for v in row["verdicts"]) + mark)
    same = len(doc["requirements"]) - len(doc["changed"])
    lines.append(f"{len(doc['changed'])} requirement(s) changed, {same} the same in every bundle")
    lines.append(f"regressions (passed in [0], fail later): {', '.join(doc['regressions']) or 'none'}")
    return "\n".join(lines)


def render_html(doc: dict) -> str:
    from jinja2 import Environment, FileSystemLoader, select_autoescape

    env = Environment(loader=FileSystemLoader(Path(__file__).parent / "templates"),
                      autoescape=select_autoescape(["html", "j2"]))
    return env.get_template("compare.html.j2").render(doc=doc)


def run_compare(args) -> int:
    from pulsar_conformance.output import emit

    if len(args.bundles) < 2:
        raise UsageError("compare needs at least two bundles", "pass the baseline bundle first, then the others")
    doc = compare([load(path) for path in args.bundles])
    if args.html:
        out = Path(args.html)
        if not out.parent.is_dir():
            raise UsageError(f"--html {out}: directory {out.parent} does not exist", "create it or pick another path")
        write_atomic(out, render_html(doc))
    emit(args, doc, lambda: text(doc))
    return EXIT_FAIL if doc["regressions"] else EXIT_PASS
