"""``certify --repeat N`` and ``certify --matrix AXIS=V1,V2``: a series of certification runs,
each a complete bundle in a folder of its own (fresh deployment, seed, versions), and one summary
over them (docs/ci-gating.md).

A requirement's verdict over repeated runs is its worst (any failing run fails it) with counts
(``pass 2/3``); one that passed in some runs and failed in others is marked intermittent, with
the failing runs' seeds and evidence. A matrix runs the profile per Pulsar release or client
release and writes the comparison (reports/bundle/compare.py) of the cells, baseline first; over the
cells a requirement is intermittent only where it was within a cell's repeats, and one whose
cells' verdicts differ is marked as differing across the cells (a release difference or not is
for ``releases`` to say, with the repeats), never as intermittent.
"""
from __future__ import annotations

import json
from pathlib import Path

from pulsar_conformance.files import write_atomic
from pulsar_conformance.output import emit, progress

from ..bundle.compare import compare
from ..bundle.compare import text as compare_text
from ..bundle.reading import Bundle
from ..bundle.verdicts import ORDER, aggregate, exit_code
from ..view.compare_page import render_html
from . import certify  # certify.certify_once read at call time (tests replace it)
from .request import AXES, MAX_REPEAT, CertifyRequest, parse_matrix  # noqa: F401 - the series' options, checked there


def plan(request: CertifyRequest) -> list[tuple[str, str, CertifyRequest]]:
    """(cell, folder, request) per run: matrix cells (one cell without a matrix), each repeated with the
    next seed. Every value was checked when the request was built (reports/runner/request.py)."""
    matrix = request.matrix
    cells = [(f"{matrix.axis}-{v}", {matrix.field: v}) for v in matrix.values] if matrix else [("", {})]
    runs = []
    for cell, overrides in cells:
        for i in range(request.repeat):
            folder = "/".join(p for p in (cell, f"run-{i + 1}" if request.repeat > 1 else "") if p)
            one = request.replace(**overrides, seed=request.seed + i, out=request.out / folder,
                                  run_id=f"{request.run_id}-{folder.replace('/', '-')}", matrix=None, repeat=1)
            runs.append((cell, folder, one))
    return runs


def run_series(request: CertifyRequest) -> int:
    runs = plan(request)
    out, run_id, profile = request.out, request.run_id, request.profile
    out.mkdir(parents=True, exist_ok=True)
    cells: dict[str, list[tuple[str, dict]]] = {}
    for i, (cell, folder, one) in enumerate(runs, 1):
        changed = {k: getattr(one, k) for k in ("seed", *AXES.values()) if getattr(one, k) != getattr(request, k)}
        progress(f"certify: run {i} of {len(runs)}: {folder} ({', '.join(f'{k}={v}' for k, v in changed.items())})")
        summary = certify.certify_once(one)
        cells.setdefault(cell, []).append((folder, summary))
        progress(f"certify: {folder}: {summary['verdict']}")
        if summary.get("interrupted"):
            break  # Ctrl-C ends the series, not just one run
    if request.matrix:
        per_cell = {}
        for cell, members in cells.items():
            # the cell's summary.json sits in the cell's folder: its runs are named from there
            named = [(Path(folder).relative_to(cell).as_posix(), summary) for folder, summary in members]
            per_cell[cell] = members[0][1] if len(members) == 1 else aggregate(named, profile.name, f"{run_id}-{cell}")
            if len(members) > 1:
                _write(out / cell, per_cell[cell])
        doc = compare([Bundle(out / cell, summary) for cell, summary in per_cell.items()])
        overall = aggregate(list(per_cell.items()), profile.name, run_id, cells=True)
        overall["series"]["comparison"] = {"regressions": doc["regressions"], "changed": doc["changed"]}
    else:
        members = cells[""]
        doc = compare([Bundle(out / folder, summary) for folder, summary in members])
        overall = aggregate(members, profile.name, run_id)
    _write_compare(out, doc)
    _write(out, overall)
    emit(request, {"verdict": overall["verdict"], "out": str(out), "series": overall["series"]},
         lambda: series_text(overall, out))
    return exit_code(overall["verdict"], interrupted=bool(overall.get("interrupted")))


def _write(out: Path, summary: dict) -> None:
    out.mkdir(parents=True, exist_ok=True)
    write_atomic(out / "summary.json", json.dumps(summary, indent=2, default=str))


def _write_compare(out: Path, doc: dict) -> None:
    write_atomic(out / "compare.json", json.dumps(doc, indent=2, default=str))
    write_atomic(out / "compare.html", render_html(doc))
    write_atomic(out / "compare.txt", compare_text(doc) + "\n")


def series_text(summary: dict, out: Path) -> str:
    members = summary["series"]["runs"]
    if summary["series"].get("cells"):
        lines = [f"{summary['verdict'].upper()} over {len(members)} matrix cell(s), "
                 f"{sum(r.get('runs', 1) for r in members)} run(s):"]
    else:
        lines = [f"{summary['verdict'].upper()} over {len(members)} run(s):"]
    lines += [f"  {r['run']}: {r['verdict']} (seed {r['seed']}, pulsar {(r['versions'] or {}).get('pulsar')}, "
              f"client {(r['versions'] or {}).get('pulsar_client_python')})" for r in summary["series"]["runs"]]
    decided = [r for r in summary["requirements"] if any(v in ORDER for v in r["runs"].values())]
    width = max((len(r["id"]) for r in decided), default=10)
    for r in decided:
        counts = ", ".join(f"{v} {n}" for v, n in r["counts"].items())
        marks = ("  INTERMITTENT" if r["intermittent"] else "") + (
            "  DIFFERS ACROSS CELLS: " + ", ".join(f"{k} {v}" for k, v in r["runs"].items())
            if r.get("differs_across_cells") else "")
        lines.append(f"  {r['id']:<{width}}  {r['verdict']:<8} {counts}{marks}")
    if summary["series"].get("intermittent"):
        lines.append(f"intermittent: {', '.join(summary['series']['intermittent'])}")
    if summary["series"].get("differs_across_cells"):
        lines.append(f"differs across cells: {', '.join(summary['series']['differs_across_cells'])} "
                     "(a release difference only with agreeing repeats: pulsar-conformance releases)")
    lines.append(f"runs side by side: {out / 'compare.html'}")
    return "\n".join(lines)
