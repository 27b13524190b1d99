"""policy-sync's clock steps on an external deployment, without a broker: the file's clock commands (a tiny
script stands in for the operator's tool) are what the scenario's freeze, skew and unwinding run; a clock
the file cannot move leaves the scenario unknown with the reason, and unwinding after a failed freeze lines
up the clocks it did move without turning that unknown into an error."""
from __future__ import annotations

import json
import stat
import sys

import pytest

from pulsar_conformance.conformance.conftest import _unsupported
from pulsar_conformance.conformance.harness import timeline
from pulsar_conformance.conformance.protocols.policy_sync import scenario
from pulsar_conformance.conformance.protocols.policy_sync.outcome import Step
from pulsar_conformance.conformance.run import VerdictUnknown
from pulsar_conformance.fixtures.deploy import clocks
from pulsar_conformance.fixtures.deploy.base import FaultUnsupported
from pulsar_conformance.fixtures.deploy.external import load_external

ROLES = ["alpha", "bravo", "charlie"]
FILE = """
clusters:
  us-east: {service_url: "pulsar://127.0.0.1:6650", admin_url: "http://127.0.0.1:8080"}
  us-west: {service_url: "pulsar://127.0.0.1:6651", admin_url: "http://127.0.0.1:8081"}
  eu-central: {service_url: "pulsar://127.0.0.1:6652", admin_url: "http://127.0.0.1:8082"}
roles: {alpha: us-east, bravo: us-west, charlie: eu-central}
"""


def _deployment(tmp_path, *, freeze_fails_on: str | None = None, offset: bool = True, freeze: bool = True):
    script = tmp_path / "clock.py"
    script.write_text(f"#!{sys.executable}\nimport json, os, sys\n"
                      f"open(os.path.join({str(tmp_path)!r}, 'calls.jsonl'), 'a').write(json.dumps(sys.argv[1:]) + '\\n')\n"
                      f"sys.exit(1 if sys.argv[1:3] == ['freeze', {freeze_fails_on!r}] else 0)\n")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    text = FILE + "faults:\n"
    for role in ROLES:
        text += f"  {role}:\n    cluster:\n"
        text += (f"      clock_freeze: {{argv: [{script}, freeze, \"{{cluster}}\", \"--at={{epoch_ms}}\"]}}\n" if freeze
                 else "      clock_freeze: none\n")
        if offset:
            text += f"      clock_offset: {{argv: [{script}, offset, \"{{cluster}}\", \"--offset-ms={{offset_ms}}\"]}}\n"
    path = tmp_path / "deployment.yaml"
    path.write_text(text)
    return load_external(path, check=False).for_roles(ROLES)


def _calls(tmp_path) -> list[list[str]]:
    path = tmp_path / "calls.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def test_the_tie_scenarios_freeze_and_unwind_run_the_files_commands(tmp_path):
    d = _deployment(tmp_path)
    # test_policy_sync._need_clock lets a deployment with a clock try the scenario (that module is not imported
    # here: its markers are registered for the conformance suite only)
    assert "clock" in d.capabilities()
    runner = scenario.Runner(d, ROLES, timeline.Timeline("tie"))
    runner.execute(Step("freeze", clocks=tuple((c, 0) for c in ROLES)), None)
    base = runner.base_ms
    assert base > clocks.now_ms() and all(d.faults.clock(c).shows() == base for c in ROLES)
    runner.unwind()  # every clock runs again from past the latest shown, never back
    assert all(d.faults.clock(c).shows() > base for c in ROLES)
    calls = _calls(tmp_path)
    assert [c[:2] for c in calls] == [["freeze", "us-east"], ["freeze", "us-west"], ["freeze", "eu-central"],
                                      ["offset", "us-east"], ["offset", "us-west"], ["offset", "eu-central"]]
    assert calls[0][2] == f"--at={base}" and all(int(c[2].split("=")[1]) > 0 for c in calls[3:])


def test_a_clock_the_file_cannot_freeze_is_unknown_and_unwinding_raises_nothing(tmp_path):
    d = _deployment(tmp_path, freeze=False, offset=False)
    runner = scenario.Runner(d, ROLES, timeline.Timeline("tie"))
    with pytest.raises(FaultUnsupported) as refused:
        runner.execute(Step("freeze", clocks=tuple((c, 0) for c in ROLES)), None)
    runner.unwind()  # nothing was moved: nothing to line up, no second error over the first
    verdict = _unsupported(refused.value)
    assert isinstance(verdict, VerdictUnknown) and "no 'clock_freeze' command" in str(verdict)
    with pytest.raises(FaultUnsupported, match="no 'clock_offset' command"):  # the skewed-clock scenario
        runner.execute(Step("skew", cluster="charlie", seconds=5), None)
    runner.unwind()
    assert _calls(tmp_path) == []


def test_a_freeze_that_fails_half_way_is_unknown_and_the_frozen_clocks_run_again(tmp_path):
    d = _deployment(tmp_path, freeze_fails_on="us-west")
    runner = scenario.Runner(d, ROLES, timeline.Timeline("tie"))
    with pytest.raises(FaultUnsupported, match="exited 1"):
        runner.execute(Step("freeze", clocks=tuple((c, 0) for c in ROLES)), None)
    runner.unwind()  # alpha stood frozen: the next scenario must not find it so
    assert [c[:2] for c in _calls(tmp_path)[2:]] == [["offset", "us-east"], ["offset", "us-west"],
                                                     ["offset", "eu-central"]]
    assert d.faults.clock("alpha").shows() > runner.base_ms
    d.close()  # and the run leaves the operator's clocks at real time
    assert [c[2] for c in _calls(tmp_path)[5:]] == ["--offset-ms=0"] * 3
