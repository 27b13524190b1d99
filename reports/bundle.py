"""Assemble the certification bundle (docs/certify.md) from what the pytest run left in ``out``.

Inputs: checks.jsonl (verdicts), junit.xml, allure-results/, spec/*.json, captures/*/
(events, manifest, markers, verdict), logs/, deployment.json, e2e.log. Outputs: report.html,
summary.json, PRODUCT.yaml (reports/product.py), reproduce.md, findings.md/findings.html (the findings it cites,
reports/bundle_findings.py), requirements.junit.xml
(reports/junit.py), allure categories and environment, each allure result labelled with the
requirements its test judged; then the manifest and the archive beside the folder (reports/archive.py).
"""
from __future__ import annotations

import json
import shlex
import subprocess
from datetime import UTC, datetime
from pathlib import Path

import yaml

from pulsar_conformance import invocation
from pulsar_conformance.output import progress
from pulsar_conformance.protocols import protocol_options

from . import (
    archive,
    bundle_findings,
    events,
    failover,
    identity,
    plots,
    product,
    readable,
    report_view,
    timings,
    values,
)
from .junit import read_junit, write_requirements_junit
from .request import configuration, spark_context, spark_flags
from .timeline import svg
from .verdicts import load_checks, load_requirements, requirement_rows, run_context, run_verdict

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


def command_line(request) -> str:
    """The command that repeats this one run (a series' run: its own seed and release)."""
    parts = ["pulsar-conformance", "certify", "--profile", request.profile.name]
    for rid in request.exclude:
        parts += ["--exclude", rid]
    if request.select:
        parts += ["--select", request.select]
    for flag, value in (("--deployment", request.deployment_option), ("--pulsar-version", request.pulsar_version),
                        ("--client-version", request.client_version),
                        *((o.flag, request.option(o.field)) for o in protocol_options()),
                        ("--out", request.out_option), ("--vendor", request.vendor), ("--product", request.product)):
        if value:
            parts += [flag, value]
    if request.deployment.topology != "standalone":
        parts += ["--topology", request.deployment.topology]
    if request.allow_irreversible:
        parts.append("--allow-irreversible")
    if request.keep:
        parts.append("--keep")
    parts += spark_flags(request)  # where the capture checks ran (--spark-master, $MASTER), userinfo masked
    parts += ["--seed", str(request.seed)]
    return shlex.join(parts)


def build_bundle(out: Path, request, *, pytest_exit: int, seconds: float) -> dict:
    """The bundle of one run of ``request`` (reports/request.CertifyRequest) from what its tests left in ``out``."""
    profile, deployment, run_id = request.profile, request.deployment, request.run_id
    left_out = archive.prune(out)
    checks = load_checks(out)
    requirements = load_requirements()
    versions = identity.versions(out)
    versions["suite_commit"] = suite_commit()
    topology = "external" if request.deployment.backend == "external" else request.deployment.topology
    # each row links only the findings whose scope holds for this run, and the bundle carries their text
    rows = requirement_rows(requirements, checks,
                            context=run_context(profile.name, versions, topology, request.deployment.backend))
    bundle_findings.write(out, rows, versions["suite_commit"])
    tests = read_junit(out / "junit.xml")
    declared = profile.declared(requirements)
    excluded = sorted(request.exclude)
    selected = request.select
    failing = events.summary_counts(checks, requirements)
    verdict, reasons = run_verdict(rows, tests, pytest_exit, declared=declared, excluded=excluded,
                                   selected=selected, failing=failing)
    described, product_missing = product.describe(request, versions["pulsar"],
                                                  identity._deployment_document(deployment))
    described["pulsar_client"] = {"language": "python", "version": versions["pulsar_client_python"],
                                  "cpp_version": versions["pulsar_client_cpp"]}
    captures = _captures(out)
    spec = _spec_results(out)
    counts = {"requirements": _count(rows), "tests": {k: v for k, v in tests.items() if k != "cases"},
              "failing": failing}
    summary = {
        "format": "pulsar-conformance-certification/1", "run_id": run_id, "profile": profile.name,
        "verdict": verdict, "reasons": reasons, "seconds": round(seconds, 1), "interrupted": pytest_exit == 130,
        "declared": declared,
        "narrowed": ({"excluded": excluded, "selected": selected} if excluded or selected else None),
        "finished": datetime.now(UTC).isoformat(timespec="seconds"),
        "product": described, "product_missing": product_missing,
        "versions": versions, "deployment": deployment.backend, "seed": request.seed,
        # what ran per cluster (issue 31): standalone or cluster where the run started it; an external deployment's
        # clusters are whatever their operator runs
        "topology": topology,
        "configuration": configuration(request),  # the profile's protocols' options (reports/request.py)
        # where the capture checks ran: {"master", "driver_host"} (userinfo masked), None for local[*]
        "spark": spark_context(request),
        "command": command_line(request), "counts": counts, "requirements": rows, "checks": checks,
        "tests": tests["cases"],
        "anomalies": {c["name"]: c["verdict"] for c in captures},
        "spec": spec,
        "timings": timings.breakdown(out),  # where the time went (reports/timings.py)
        # an exploration (explore --live): its schedules, candidates with their replay counts, coverage
        "explore": _explore_digest(out),
        "cleanup": cleanup_digest(out),  # an external deployment: what the run left on the clusters
        "bundle": {"archive": archive.archive_path(out).name, "manifest": archive.MANIFEST, "left_out": left_out},
    }
    (out / "summary.json").write_text(json.dumps(summary, indent=2, default=str))
    (out / "PRODUCT.yaml").write_text(yaml.safe_dump(described, sort_keys=False))
    (out / "reproduce.md").write_text(_reproduce(summary, profile))
    write_requirements_junit(out, summary)
    _allure_extras(out, summary)
    (out / "report.html").write_text(_render(summary, rows, checks, captures, spec, values.scenarios(out),
                                             failover.scenarios(out), out=out))
    touched = identity.redact_tree(out, identity.secrets(deployment))
    if touched:
        # Redaction succeeded, but a credential reaching a file is itself a suite defect to fix.
        summary["redacted_files"] = touched
        (out / "summary.json").write_text(json.dumps(summary, indent=2, default=str))
    # last: the manifest must hash the files as they stay (redacted, pruned)
    sealed = archive.seal(out)
    progress(f"certify: archive {sealed['archive']} ({sealed['files']} files, SHA-256 manifest "
             f"{archive.MANIFEST}; check it with: {invocation.me()} verify {sealed['archive']})")
    return summary


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
                      "markers": json.loads(markers_path.read_text()) if markers_path.exists() else [],
                      "svg": svg(run_dir) if (run_dir / "events").exists() else ""})
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


def _render(summary, rows, checks, captures, spec, policy_values=(), failovers=(), out: Path | None = None) -> str:
    from jinja2 import Environment, FileSystemLoader, select_autoescape

    env = Environment(loader=FileSystemLoader(Path(__file__).parent / "templates"),
                      autoescape=select_autoescape(["html", "j2"]))
    columns = sorted({c["check"] for c in checks} | {cid for r in rows for cid in r["checks"]},
                     key=lambda c: (c.startswith("spec:"), c))
    cells = {}
    for c in checks:
        for rid in c["requirements"]:
            cells[(rid, c["check"])] = c["verdict"]
    # pictures of each capture (latency, delivered vs sent, replication lag), when the bundle is at hand
    captures = [dict(cap, plots=plots.pictures(out / cap["path"]) if out else None) for cap in captures]
    return env.get_template("report.html.j2").render(
        s=summary, rows=rows, groups=report_view.arrange(rows, summary.get("declared")),
        model_words=report_view.MODEL_WORDS, model_checks={c["check"] for c in checks if c.get("kind") == "model"},
        columns=columns, cells=cells, captures=captures, spec=spec, policy_values=policy_values,
        failovers=failovers, evidence_text=readable.evidence_text, evidence_split=report_view.evidence_split,
        failing=[c for c in summary["tests"] if c["outcome"] != "passed"])
