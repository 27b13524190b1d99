"""The report's order of requirement rows: what the profile certifies first, then what was checked
anyway, and the rows this profile did not run folded away (issue 34: the smoke report opened with 49
"not run" rows before the two it certified). One concern: arranging rows; the rows themselves come
from reports/verdicts.requirement_rows, and the page from templates/report.html.j2."""
from __future__ import annotations

from .verdicts import ORDER

# How the model column reads: the executable spec's verdict about the protocol, said as what the
# spec says, so it never reads as a pass observed on the clusters.
MODEL_WORDS = {"pass": "holds", "fail": "violated", "unknown": "undecided", "not applicable": "not modelled",
               "differs": "differs"}


def arrange(rows: list[dict], declared=None) -> dict[str, list[dict]]:
    """``certified``: the requirements the profile certifies (``declared``; catalog order), whatever
    their verdict, so one that got none is seen; ``checked``: others a check judged on the deployment;
    ``folded``: the rest (not run in this profile, or uncovered). Without ``declared`` (a summary
    older than the field) every row with an observed verdict counts as certified."""
    if declared is None:
        declared = [r["id"] for r in rows if r["verdict"] in ORDER]
    wanted = set(declared)
    certified = [r for r in rows if r["id"] in wanted]
    checked = [r for r in rows if r["id"] not in wanted and r["verdict"] in ORDER]
    folded = [r for r in rows if r["id"] not in wanted and r["verdict"] not in ORDER]
    return {"certified": certified, "checked": checked, "folded": folded}
