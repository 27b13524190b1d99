"""certify --repeat / --matrix: the summary over runs counts each requirement's verdicts, fails
it on any failing run, marks it intermittent, and bad series options stop before any run."""
from __future__ import annotations

import pytest

from pulsar_conformance.errors import UsageError
from pulsar_conformance.reports.runner.request import check_repeat, parse_matrix
from pulsar_conformance.reports.runner.series import aggregate, plan


def _summary(verdict: str, seed: int, **requirements: str) -> dict:
    return {"format": "pulsar-conformance-certification/1", "verdict": verdict, "seed": seed, "reasons": [verdict],
            "seconds": 10, "versions": {"pulsar": "4.2.4"},
            "requirements": [{"id": rid.replace("_", "-"), "strength": "MUST", "text": rid, "verdict": v,
                              "evidence": [f"{rid} was {v} with seed {seed}"]} for rid, v in requirements.items()]}


def test_any_failing_run_fails_the_requirement_and_marks_it_intermittent():
    runs = [("run-1", _summary("pass", 1, PIP188_R03="pass", PIP188_R01="pass", PIP188_R14="not run")),
            ("run-2", _summary("fail", 2, PIP188_R03="fail", PIP188_R01="pass", PIP188_R14="not run")),
            ("run-3", _summary("pass", 3, PIP188_R03="pass", PIP188_R01="pass", PIP188_R14="not run"))]
    doc = aggregate(runs, "cluster-migration", "series")
    rows = {r["id"]: r for r in doc["requirements"]}
    assert doc["verdict"] == "fail"
    r03 = rows["PIP188-R03"]
    assert r03["verdict"] == "fail" and r03["intermittent"] and r03["counts"] == {"pass": "2/3", "fail": "1/3"}
    assert r03["failing_runs"] == [{"run": "run-2", "seed": 2, "bundle": "run-2",
                                    "evidence": ["PIP188_R03 was fail with seed 2"]}]
    assert rows["PIP188-R01"]["verdict"] == "pass" and rows["PIP188-R01"]["counts"] == {"pass": "3/3"}
    assert not rows["PIP188-R01"]["intermittent"]
    assert rows["PIP188-R14"]["verdict"] == "not run"
    assert doc["series"]["intermittent"] == ["PIP188-R03"] and "intermittent" in doc["reasons"][0]


def test_unknown_in_one_run_keeps_the_series_from_passing():
    runs = [("run-1", _summary("pass", 1, GEO_R01="pass")), ("run-2", _summary("unknown", 2, GEO_R01="unknown"))]
    doc = aggregate(runs, "smoke", "series")
    assert doc["verdict"] == "unknown" and doc["requirements"][0]["verdict"] == "unknown"


def _planned(matrix: str | None, repeat: int = 1, seed: int = 1):
    from pathlib import Path

    from pulsar_conformance.conformance.profiles import get_profile
    from pulsar_conformance.reports.runner.request import CertifyRequest

    request = CertifyRequest(profile=get_profile("cluster-migration"), out=Path("/series"), run_id="s", seed=seed,
                             repeat=check_repeat(repeat), matrix=parse_matrix(matrix))
    return [(cell, folder, {k: getattr(one, k) for k in ("seed", "pulsar_version", "java_client_version",
                                                         "migration_tls") if getattr(one, k) is not None}, one)
            for cell, folder, one in plan(request)]


def test_series_options_are_checked_before_anything_runs():
    runs = _planned("pulsar=3.0.7,4.2.4", repeat=2, seed=5)
    assert [r[:3] for r in runs] == [("pulsar-3.0.7", "pulsar-3.0.7/run-1", {"pulsar_version": "3.0.7", "seed": 5}),
                                     ("pulsar-3.0.7", "pulsar-3.0.7/run-2", {"pulsar_version": "3.0.7", "seed": 6}),
                                     ("pulsar-4.2.4", "pulsar-4.2.4/run-1", {"pulsar_version": "4.2.4", "seed": 5}),
                                     ("pulsar-4.2.4", "pulsar-4.2.4/run-2", {"pulsar_version": "4.2.4", "seed": 6})]
    one = runs[1][3]  # each run is a request of its own: its folder, its run id, no series options
    assert one.out.as_posix() == "/series/pulsar-3.0.7/run-2" and one.run_id == "s-pulsar-3.0.7-run-2"
    assert one.matrix is None and one.repeat == 1
    java = _planned("java-client=3.0.7,4.2.4")
    assert [(cell, over) for cell, _, over, _ in java] == [("java-client-3.0.7", {"java_client_version": "3.0.7", "seed": 1}),
                                                         ("java-client-4.2.4", {"java_client_version": "4.2.4", "seed": 1})]
    tls = _planned("migration-tls=off,on")
    assert [(cell, over) for cell, _, over, _ in tls] == [("migration-tls-off", {"migration_tls": "off", "seed": 1}),
                                                        ("migration-tls-on", {"migration_tls": "on", "seed": 1})]
    for bad in ("pulsar=4.2.4", "broker=4.0.1,4.2.4", "pulsar=2.11.0,4.2.4", "pulsar=four,4.2.4", "java-client=x,4.2.4",
                "migration-tls=off,always", "pulsar=4.2.4,9.9.9", "client=3.13.0,abc", "pulsar=4.2.4,4.2.4"):
        with pytest.raises(UsageError):
            parse_matrix(bad)
    for bad in (0, -1, 21):
        with pytest.raises(UsageError, match=f"--repeat {bad}"):
            check_repeat(bad)


def test_a_series_runs_each_planned_request_and_writes_one_summary(tmp_path, monkeypatch, capsys):
    """run_series end to end with the runs stubbed: each run gets its own request (folder, seed,
    release), nothing mutates the series' request, and an interrupted run ends the series (130)."""
    import json

    from pulsar_conformance.conformance.profiles import get_profile
    from pulsar_conformance.reports.runner import certify, series
    from pulsar_conformance.reports.runner.request import CertifyRequest

    seen = []

    def once(request):
        seen.append((request.out.relative_to(tmp_path).as_posix(), request.pulsar_version, request.seed))
        return {**_summary("pass", request.seed, GEO_R01="pass"), "profile": "smoke", "run_id": request.run_id,
                "interrupted": len(seen) == 3}

    monkeypatch.setattr(certify, "certify_once", once)
    request = CertifyRequest(profile=get_profile("smoke"), out=tmp_path, run_id="s", seed=3, repeat=2,
                             matrix=parse_matrix("pulsar=4.0.1,4.2.4"), json=True)
    code = series.run_series(request)
    assert seen == [("pulsar-4.0.1/run-1", "4.0.1", 3), ("pulsar-4.0.1/run-2", "4.0.1", 4),
                    ("pulsar-4.2.4/run-1", "4.2.4", 3)]  # the third run was interrupted: no fourth
    assert code == 130 and request.pulsar_version is None and request.seed == 3
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["interrupted"] and [r["run"] for r in summary["series"]["runs"]] == ["pulsar-4.0.1", "pulsar-4.2.4"]
    assert json.loads(capsys.readouterr().out)["verdict"] == "pass"
    # a cell's own summary names its runs from the cell's folder, where `releases` looks for them
    # (they were named from the series' folder: pulsar-4.0.1/pulsar-4.0.1/run-1 was not found)
    cell = json.loads((tmp_path / "pulsar-4.0.1" / "summary.json").read_text())
    assert [r["bundle"] for r in cell["series"]["runs"]] == ["run-1", "run-2"]


def test_a_matrix_calls_a_difference_between_cells_no_intermittence():
    """--matrix pulsar=4.2.4,4.0.1 --repeat 3: TM-R11 fails 3/3 on one release and passes 3/3 on the
    other (a difference between cells, seen so at 18:53 on 2026-11-27 and printed INTERMITTENT), TM-R10
    passed 2 of 3 in one cell (intermittent there, and so over the matrix)."""
    def cell(name, r10, r11):
        runs = [(f"run-{i}", _summary("fail" if "fail" in (a, b) else "pass", i, TM_R10=a, TM_R11=b))
                for i, (a, b) in enumerate(zip(r10, r11, strict=True), 1)]
        return name, aggregate(runs, "tenant-migration", name)
    cells = [cell("pulsar-4.2.4", ["pass", "fail", "pass"], ["fail"] * 3), cell("pulsar-4.0.1", ["pass"] * 3, ["pass"] * 3)]
    doc = aggregate(cells, "tenant-migration", "matrix", cells=True)
    rows = {r["id"]: r for r in doc["requirements"]}
    assert not rows["TM-R11"]["intermittent"] and rows["TM-R11"]["differs_across_cells"]
    assert rows["TM-R10"]["intermittent"] and rows["TM-R10"]["differs_across_cells"]
    assert doc["series"]["intermittent"] == ["TM-R10"]
    assert doc["series"]["differs_across_cells"] == ["TM-R10", "TM-R11"]
    from pathlib import Path

    from pulsar_conformance.reports.runner.series import series_text
    text = series_text(doc, Path("/m"))
    assert "over 2 matrix cell(s), 6 run(s)" in text
    assert "TM-R11  fail     fail 1/2, pass 1/2  DIFFERS ACROSS CELLS: pulsar-4.2.4 fail, pulsar-4.0.1 pass" in text
    assert "INTERMITTENT" not in next(line for line in text.splitlines() if line.startswith("  TM-R11"))
