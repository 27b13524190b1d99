"""The recorder's side of the live traces' ITF files (conformance/harness/itf_traces.py; each protocol's
tests/protocols/<p>/test_live_itf.py judges a real history): caps said in the row, a dry recorder writing
nothing, and a file the suite fails to write changing no verdict."""
from __future__ import annotations

from types import SimpleNamespace

from pulsar_conformance.conformance.harness import itf_traces, rejudge
from pulsar_conformance.conformance.harness.recorder import Recorder
from pulsar_conformance.conformance.harness.rows import row
from pulsar_conformance.conformance.protocols.client_failover.checks import CHECKS
from pulsar_conformance.conformance.run import CertifyRun
from pulsar_conformance.spec.core.interpreter import Observed, validate
from pulsar_conformance.spec.protocols.client_failover import ClientFailover

from ..support import live_itf

CHECK = "client-failover/java-kill-primary/trace"


def _trace(part: str = "") -> itf_traces.LiveTrace:
    spec = ClientFailover()
    steps = [Observed("go_down(c=primary)", note="+1 s")]
    return itf_traces.from_validation(spec, validate(spec, steps, hidden=("tick",)), steps, part=part)


def _judged(bundle, traces) -> list[dict]:
    capture = bundle / "captures" / "java-kill-primary"
    capture.mkdir(parents=True)
    entry = rejudge.Judged(SimpleNamespace, lambda _out: [itf_traces.attach(row(CHECK, True, "ok", requirements=["PIP121-R04"]), *traces)], CHECKS)
    return live_itf.judge_into(bundle, entry, SimpleNamespace(run_dir=capture))


def test_a_row_saves_at_most_its_cap_and_says_how_many_it_left_out(tmp_path, capsys):
    (r,) = _judged(tmp_path, [_trace(f"k{i}") for i in range(itf_traces.MAX_PER_ROW + 2)])
    assert len(r["details"]["itf"]) == itf_traces.MAX_PER_ROW and r["details"]["itf_not_saved"] == 2
    assert r["details"]["itf"][0] == "captures/java-kill-primary/traces/client-failover.java-kill-primary.trace.k0.itf.json"
    code, said = live_itf.replay(capsys, tmp_path, r["details"]["itf"][0])
    assert code == 0 and said["actions"] == ["go_down(c=primary)"]


def test_a_trace_that_cannot_be_written_changes_no_verdict(tmp_path):
    broken = _trace()
    broken.observed = []  # one note short of its steps: the document cannot be made
    (r,) = _judged(tmp_path, [broken])
    assert r["verdict"] == "pass" and "itf" not in r["details"] and "ValueError" in r["details"]["itf_error"]


def test_a_dry_recorder_writes_no_file(tmp_path):
    capture = tmp_path / "captures" / "java-kill-primary"
    capture.mkdir(parents=True)
    rec = Recorder(CertifyRun(tmp_path, "offline", 1), SimpleNamespace(node=SimpleNamespace(nodeid="t")),
                   SimpleNamespace(run_dir=capture), CHECKS, dry=True)
    (r,) = rec.record([itf_traces.attach(row(CHECK, True, "ok", requirements=["PIP121-R04"]), _trace())])
    assert "itf" not in r["details"] and not (capture / itf_traces.FOLDER).exists()
