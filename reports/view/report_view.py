"""The report's order of requirement rows: what the profile certifies first, then what was checked
anyway, and the rows this profile did not run folded away (issue 34: the smoke report opened with 49
"not run" rows before the two it certified); and each row's checks grouped by scenario for the
coverage section, which is a matrix only while its columns fit a 1,280 px window (issue 51: a run's
59 checks made a matrix 3,700 px wide whose right columns a reader never saw). One concern:
arranging rows; the rows themselves come from reports/bundle/verdicts.requirement_rows, and the page from
templates/report.html.j2 (view/report_page.py)."""
from __future__ import annotations

from ..bundle.verdicts import ORDER

# How the model column reads: the executable spec's verdict about the protocol, said as what the
# spec says, so it never reads as a pass observed on the clusters.
MODEL_WORDS = {"pass": "holds", "fail": "violated", "unknown": "undecided", "not applicable": "not modelled",
               "differs": "differs"}


# The coverage section is a matrix up to this many check columns and a list per requirement beyond:
# a column holds a verdict pill up to "not applicable" wide (about 115 px with its padding), so 8 of
# them and the requirement column fit the page's 1,232 px at a 1,280 px window.
MATRIX_COLUMNS = 8


def arrange(rows: list[dict], declared=None) -> dict:
    """``certified``: the requirements the profile certifies (``declared``; catalog order), whatever
    their verdict, so one that got none is seen; ``checked``: others a check judged on the deployment;
    ``folded``: the rest (not run in this profile, or uncovered). Without ``declared`` (a summary
    older than the field) every row with an observed verdict counts as certified. Each row is a copy
    with ``coverage``: its checks by scenario (``coverage``), for the coverage list."""
    if declared is None:
        declared = [r["id"] for r in rows if r["verdict"] in ORDER]
    wanted = set(declared)
    # copies: the rows are the summary's too, which must not gain the page's fields
    viewed = [dict(r, coverage=coverage(r.get("checks") or ())) for r in rows]
    certified = [r for r in viewed if r["id"] in wanted]
    checked = [r for r in viewed if r["id"] not in wanted and r["verdict"] in ORDER]
    folded = [r for r in viewed if r["id"] not in wanted and r["verdict"] not in ORDER]
    return {"certified": certified, "checked": checked, "folded": folded, "scope": scope(rows, declared),
            "matrix_columns": MATRIX_COLUMNS}


def scenario_of(check: str) -> tuple[str, str]:
    """(group, the rest of the name) of a check id: ``cluster-migration-java/exclusive/fast/trace`` is
    (``cluster-migration-java``, ``exclusive/fast/trace``); a model check ``spec:cluster-migration[base]``
    is (``spec``, ``cluster-migration[base]``); a name without a ``/`` is its own group."""
    if check.startswith("spec:"):
        return "spec", check[len("spec:"):]
    head, _, rest = check.partition("/")
    return head, rest or head


def coverage(checks) -> list[dict]:
    """``[{"scenario", "checks": [{"id", "name"}]}]``: ``checks`` by the scenario their id names, in
    the order of their ids (sorted), every check once."""
    groups: dict[str, list[dict]] = {}
    for check in sorted(set(checks)):
        group, name = scenario_of(check)
        groups.setdefault(group, []).append({"id": check, "name": name})
    return [{"scenario": g, "checks": c} for g, c in groups.items()]


def scope(rows: list[dict], declared=None) -> dict:
    """What a run certified out of what the catalog holds, for the verdict line and the banner (issue 51:
    a smoke PASS certifies 8 of 58 requirements and said nowhere how many, beside a red "2 fail" that
    were SHOULD deviations). ``certified``: requirements the profile certifies that passed on the
    deployment; ``deviations``: SHOULD/MAY requirements that failed, which do not fail the run;
    ``failed_must``: the MUST failures, which do; ``chips``: the verdict counts with a failed SHOULD or
    MAY counted as a deviation, not a fail."""
    rows = [r for r in rows if isinstance(r, dict) and "id" in r]
    if declared is None:
        declared = [r["id"] for r in rows if r["verdict"] in ORDER]
    wanted = set(declared)
    failed = [r for r in rows if r["verdict"] == "fail"]
    chips: dict[str, int] = {}
    for r in rows:
        key = r["verdict"]
        if key == "fail" and r.get("strength") != "MUST":
            key = "deviation"
        chips[key] = chips.get(key, 0) + 1
    return {
        "catalog": len(rows), "declared": len([r for r in rows if r["id"] in wanted]),
        "certified": [r["id"] for r in rows if r["id"] in wanted and r["verdict"] == "pass"],
        "deviations": [r["id"] for r in failed if r.get("strength") != "MUST"],
        "failed_must": [r["id"] for r in failed if r.get("strength") == "MUST"],
        # what the profile certifies that got neither a pass nor a failure (unknown, not applicable, none)
        "unsettled": [f"{r['id']} ({r['verdict']})" for r in rows
                      if r["id"] in wanted and r["verdict"] not in ("pass", "fail")],
        "chips": chips,
    }


def scope_line(verdict: str, rows: list[dict], declared=None, deployment: str | None = None) -> str:
    """The verdict line: ``PASS: 8 of the catalog's 58 requirements certified on the local deployment
    (the profile certifies 10 there; 2 SHOULD/MAY deviations, not failures: PIP454-R11, TM-R04)``."""
    sc = scope(rows, declared)
    where = f" on the {deployment} deployment" if deployment else ""
    parts = [f"the profile certifies {sc['declared']}{' there' if deployment else ''}"]
    if sc["failed_must"]:
        parts.append(f"{len(sc['failed_must'])} MUST failed: {', '.join(sc['failed_must'])}")
    if sc["deviations"]:
        parts.append(f"{len(sc['deviations'])} SHOULD/MAY deviation{'s' if len(sc['deviations']) != 1 else ''}, "
                     f"not failures: {', '.join(sc['deviations'])}")
    if sc["unsettled"]:
        parts.append(f"{len(sc['unsettled'])} neither passed nor failed: {', '.join(sc['unsettled'])}")
    return (f"{verdict.upper()}: {len(sc['certified'])} of the catalog's {sc['catalog']} requirements certified"
            f"{where} ({'; '.join(parts)})")


EVIDENCE_SHOWN = 12  # a requirement judged by many checks (an exploration's schedules) folds the rest


def evidence_split(evidence: list[str], limit: int = EVIDENCE_SHOWN) -> tuple[list[str], list[str]]:
    """(shown, folded) of a requirement's evidence lines: all of them up to ``limit``; beyond it the failures, then
    the other lines that did not pass (what a reader looks for), up to ``limit``, and the rest folded in their order."""
    if len(evidence) <= limit:
        return list(evidence), []
    failing = [e for e in evidence if ": fail (" in e]
    first = (failing + [e for e in evidence if ": pass (" not in e and e not in failing])[:limit]
    return first, [e for e in evidence if e not in first]
