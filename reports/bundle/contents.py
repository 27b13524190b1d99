"""What a certification bundle (docs/certify.md) holds beside its verdicts, read from what a run left in ``out``:
the counts, the captures and spec results the report shows, the exploration and clean-up digests, the suite's
commit, reproduce.md, and the allure categories, environment and requirement labels.

These read and write files of the bundle only: the run that made it (reports/runner/build.py assembles a
certify run's bundle, reports/runner/rejudge.py a re-judged one) and the page that shows it
(reports/view/report_page.py) are the layers above.
"""
from __future__ import annotations

import json
import subprocess
from pathlib import Path

CATEGORIES = [
    {"name": "Product defect", "matchedStatuses": ["failed"], "messageRegex": "(?s).*product defect.*",
     "description": "the clusters under test broke a requirement"},
    {"name": "Suite defect", "matchedStatuses": ["failed"], "messageRegex": "(?s).*suite defect.*",
     "description": "a spec or mutant behaved unlike its documented expectation: the suite is wrong"},
    {"name": "Unknown verdict", "matchedStatuses": ["broken"], "messageRegex": "(?s).*VerdictUnknown.*",
     "description": "the check could not reach the state its requirement is about"},
    {"name": "Infrastructure", "matchedStatuses": ["broken", "failed"],
     "description": "deployment, network or tool failures outside the product and the suite"},
]


def _explore_digest(out: Path) -> dict | None:
    """What explore.json says, for the report's exploration section (None: not an exploration). A generated
    failure is a candidate until its smallest schedule fails again on replay and the source explains it: the
    report says each one's replay count beside the requirement verdicts it gave."""
    path = out / "explore.json"
    if not path.is_file():
        return None
    try:
        doc = json.loads(path.read_text())
    except (OSError, ValueError):
        return {"error": "explore.json is not readable"}
    keys = ("protocol", "schedules", "steps", "seconds", "schedules_per_minute", "steps_per_minute", "verdicts",
            "candidates", "faults_not_generated", "engines_disagree")
    cov = doc.get("coverage") or {}
    return {**{k: doc.get(k) for k in keys},
            "coverage": {"actions_run": len(cov.get("actions") or {}) - len(cov.get("actions_never_run") or []),
                         "actions": len(cov.get("actions") or {}), "pairs": len(cov.get("pairs") or {}),
                         "pairs_possible": cov.get("pairs_possible"),
                         "states": cov.get("abstract_states_reached"), "spec_states": cov.get("abstract_states_of_spec"),
                         "never_run": cov.get("actions_never_run") or []}}


def cleanup_digest(out: Path) -> dict | None:
    """What cleanup.json (an external deployment's clean-up, fixtures/deploy/cleanup.py) says in short:
    kept or deleted, and what stays; None without one (local clusters are thrown away whole)."""
    try:
        doc = json.loads((out / "cleanup.json").read_text())
    except (OSError, ValueError):
        return None
    if not isinstance(doc, dict):
        return None
    return {"kept": bool(doc.get("kept")), "complete": bool(doc.get("complete")), "by": doc.get("by"),
            "created": len(doc.get("created") or []), "deleted": len(doc.get("deleted") or []),
            "already_gone": len(doc.get("already_gone") or []),
            "left": [f"{e.get('cluster')}: {e.get('kind')} {e.get('name')}" for e in doc.get("left") or []]}


def suite_commit() -> str | None:
    """The git commit of the suite's checkout, ``+modified`` when tracked files differ from it; None for an
    install that is no checkout. The module's own file must be tracked there, or a venv inside another
    project's repository would report that project's commit."""
    here = Path(__file__).resolve()

    def git(*words: str) -> str | None:
        try:
            done = subprocess.run(["git", "-C", str(here.parent), *words], capture_output=True, text=True, timeout=20)
        except (OSError, subprocess.TimeoutExpired):
            return None
        return done.stdout.strip() if done.returncode == 0 else None

    if git("ls-files", "--error-unmatch", here.name) is None:
        return None
    commit = git("rev-parse", "HEAD")
    if not commit:
        return None
    changed = git("status", "--porcelain", "--untracked-files=no")
    return f"{commit}+modified" if changed else commit


def _count(rows: list[dict]) -> dict:
    out: dict[str, int] = {}
    for r in rows:
        out[r["verdict"]] = out.get(r["verdict"], 0) + 1
    return out


def _captures(out: Path) -> list[dict]:
    found = []
    for manifest in sorted((out / "captures").glob("*/manifest.json")):
        run_dir = manifest.parent
        verdict_path = run_dir / "verdict.json"
        verdict = json.loads(verdict_path.read_text()) if verdict_path.exists() else None
        markers_path = run_dir / "markers.json"
        found.append({"name": run_dir.name, "path": f"captures/{run_dir.name}", "verdict": verdict,
                      "manifest": json.loads(manifest.read_text()),
                      "markers": json.loads(markers_path.read_text()) if markers_path.exists() else []})
    return found


def _spec_results(out: Path) -> dict:
    checks, mutants = [], []
    for path in sorted((out / "spec").glob("check-*.json")):
        doc = json.loads(path.read_text())
        engines = doc.get("engines", {})
        checks.append({
            "spec": doc.get("name") or doc.get("spec"), "variant": doc.get("variant"), "ok": doc.get("ok"),
            "seconds": doc.get("seconds"),
            "explorer": engines.get("explore", {}), "z3": engines.get("z3", {}), "hypothesis": engines.get("hypothesis", {}),
            "induction": [r for r in doc.get("induction", [])],
            "facts": doc.get("facts", []), "invariants": doc.get("invariants", []),
            "counterexamples": len(doc.get("counterexamples", [])),
        })
    for path in sorted((out / "spec").glob("mutants-*.json")):
        doc = json.loads(path.read_text())
        mutants.append({"spec": doc["spec"], "killed": sum(r["killed"] for r in doc["mutants"]),
                        "total": len(doc["mutants"]), "rows": doc["mutants"]})
    return {"checks": checks, "mutants": mutants}


def _reproduce(summary: dict, profile) -> str:
    v = summary["versions"]
    lines = [
        f"# Reproduce certification run {summary['run_id']}", "",
        "```bash", summary["command"], "```", "",
        f"- profile: `{profile.name}` ({profile.description}); pytest marker expression `{profile.markers or '(all)'}`",
        f"- seed: {summary['seed']} (scenarios and Hypothesis)",
        f"- deployment backend: {summary['deployment']}",
    ]
    for run in profile.spec_runs:
        lines.append(f"- spec check {run.id}: depth {run.depth}, examples {run.examples}, max states {run.max_states}")
    for m in profile.mutants:
        steps = f", steps {m.steps}" if m.steps else ""
        lines.append(f"- mutants of {m.spec}: {m.only or 'all'} (depth {m.depth}, examples {m.examples}{steps})")
    lines += ["", "| component | version |", "|---|---|"]
    lines += [f"| {k} | {val or 'not observed'} |" for k, val in v.items()]
    lines += ["", f"Verdict: **{summary['verdict']}** ({'; '.join(summary['reasons'])})", ""]
    return "\n".join(lines)


def _allure_extras(out: Path, summary: dict) -> None:
    allure = out / "allure-results"
    allure.mkdir(exist_ok=True)
    (allure / "categories.json").write_text(json.dumps(CATEGORIES, indent=2))
    env = {"profile": summary["profile"], "deployment": summary["deployment"], "seed": summary["seed"],
           **{f"version.{k}": val for k, val in summary["versions"].items()},
           **{f"product.{k}": val for k, val in summary["product"].items() if isinstance(val, str)}}
    (allure / "environment.properties").write_text(
        "".join(f"{k}={str(val).replace(chr(10), ' ')}\n" for k, val in env.items()))
    (allure / "executor.json").write_text(json.dumps(
        {"name": "pulsar-conformance certify", "type": "cli", "buildName": summary["run_id"]}))
    _allure_requirements(allure, summary)


def _allure_requirements(allure: Path, summary: dict) -> None:
    """Label each allure result with the requirements its test judged, so Allure's Behaviors tab groups
    the tests by area (feature) and requirement (story): ``requirement`` labels carry id and verdict.
    A result is matched to its test as allure-pytest names it: ``fullName`` is the module path and the
    function without parameters, ``name`` the test's name with them."""
    judged: dict[tuple[str, str], list[str]] = {}
    for check in summary["checks"]:
        test = check.get("test") or ""
        if "::" not in test:
            continue
        key = _allure_key(test)
        for rid in check.get("requirements") or ():
            if rid not in judged.setdefault(key, []):
                judged[key].append(rid)
    rows = {r["id"]: r for r in summary["requirements"]}
    for path in sorted(allure.glob("*-result.json")):
        try:
            result = json.loads(path.read_text())
        except (OSError, UnicodeDecodeError, json.JSONDecodeError):
            continue
        wanted = judged.get((result.get("fullName"), result.get("name")), [])
        if not wanted:
            continue
        labels = [lb for lb in result.get("labels") or [] if lb.get("name") not in ("feature", "story", "requirement")]
        for rid in wanted:
            row = rows.get(rid) or {}
            labels += [{"name": "feature", "value": row.get("area") or "other"}, {"name": "story", "value": rid},
                       {"name": "requirement", "value": f"{rid} {row.get('strength', '')}: {row.get('verdict')}"}]
        result["labels"] = [dict(t) for t in dict.fromkeys(tuple(lb.items()) for lb in labels)]
        path.write_text(json.dumps(result))


def _allure_key(nodeid: str) -> tuple[str, str]:
    """(fullName, name) allure-pytest gives the test ``nodeid`` (allure_pytest.utils.allure_full_name)."""
    path, *rest = nodeid.split("::")
    name = rest[-1]
    classes = "".join(f".{c}" for c in rest[:-1])
    module = path[:-3] if path.endswith(".py") else path
    return f"{module.replace('/', '.')}{classes}#{name.split('[', 1)[0]}", name
