"""Bad input to the spec commands (issue 29): refused before any work with the option named, the
problem and its fix, exit EXIT_BAD_INPUT, no traceback and no file left behind. Most cases run
in-process through the CLI's ``main`` (a traceback would fail the test as an exception); a few
through a real process where only a process shows it (a hang, the exit code)."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from pulsar_conformance.cli import main
from pulsar_conformance.spec.protocols.client_failover import ClientFailover

from .conftest import BAD_INPUT

CLI = [sys.executable, "-m", "pulsar_conformance"]


def refused(capsys, *argv) -> str:
    """Runs the command; it must be refused as bad input with a fix. Returns the message."""
    code = main(list(argv))
    err = capsys.readouterr().err
    assert code == BAD_INPUT, (argv, code, err)
    assert err.startswith("error: ") and "\n  fix: " in err, err
    return err


@pytest.fixture
def no_work(monkeypatch):
    """Any search or drawing that starts fails the test: refusals come before the work."""
    from pulsar_conformance.spec.core import explorer, graph, simulate

    def started(*_a, **_k):
        raise AssertionError("the work started before the input was checked")

    for module, name in ((explorer, "explore"), (explorer, "reach"), (graph, "build"), (simulate, "simulate")):
        monkeypatch.setattr(module, name, started)


BOUNDS = [  # (argv, what the message names)
    (["spec", "explore", "client-failover", "--max-states", "-1"], "--max-states -1"),
    (["spec", "explore", "client-failover", "--max-states", "0"], "--max-states 0"),
    (["spec", "explore", "client-failover", "--reach", "fails > 9", "--depth", "-1"], "--depth -1"),
    (["spec", "check", "client-failover", "--depth", "-1"], "--depth -1"),
    (["spec", "explore", "client-failover", "--max-seconds", "0"], "--max-seconds 0"),
    (["spec", "explore", "client-failover", "--max-seconds", "nan"], "--max-seconds nan"),
    (["spec", "explore", "client-failover", "--max-seconds", "inf"], "--max-seconds inf"),
    (["spec", "explore", "client-failover", "--max-seconds", "-5"], "--max-seconds -5"),
    (["spec", "check", "client-failover", "--examples", "0"], "--examples 0"),
    (["spec", "simulate", "client-failover", "--runs", "0"], "--runs 0"),
    (["spec", "simulate", "client-failover", "--steps", "-3"], "--steps -3"),
    (["spec", "simulate", "client-failover", "--steps", "100000", "--runs", "100000"], "a simulation takes at most"),
    (["spec", "graph", "client-failover", "--out", "g.dot", "--max-states", "-1"], "--max-states -1"),
    (["spec", "mutants", "client-failover", "--depth", "-2"], "--depth -2"),
    (["spec", "ci", "--jobs", "0", "--dry-run"], "--jobs 0"),
    (["bench", "spec", "--seconds", "nan"], "--seconds nan"),
    (["spec", "explore", "client-failover", "--const", "SECONDARIES=1000000"], "SECONDARIES=1000000 is outside 1..4"),
    (["spec", "explore", "client-failover", "--const", "SECONDARIES=-5"], "SECONDARIES=-5 is outside 1..4"),
    (["spec", "check", "policy-sync", "--const", "CLUSTERS=0"], "CLUSTERS=0 is outside 1..5"),
    (["spec", "simulate", "tenant-migration", "--const", "MESSAGES=99999999999999999999"], "not NAME=INTEGER"),
    (["spec", "step", "client-failover", "--const", "NOPE=1"], "has no constant 'NOPE'"),
    (["spec", "catalog", "--area", "client-failovr"], "no such area"),
]


@pytest.mark.parametrize(("argv", "named"), BOUNDS, ids=[" ".join(b[0][1:]) for b in BOUNDS])
def test_a_bound_or_constant_out_of_range_is_refused_naming_the_option(capsys, no_work, argv, named):
    assert named in refused(capsys, *argv)


def test_a_huge_constant_is_refused_at_once_not_after_minutes():
    done = subprocess.run([*CLI, "spec", "explore", "client-failover", "--const", "SECONDARIES=1000000", "--json"],
                          capture_output=True, text=True, timeout=60)
    doc = json.loads(done.stdout)
    assert done.returncode == BAD_INPUT and "1..4" in doc["error"] and "SECONDARIES" in doc["fix"]


# ------------------------------------------------------------------ output paths


@pytest.mark.parametrize(("command", "option", "name"), [
    (["spec", "graph", "client-failover", "--const", "SECONDARIES=1"], "--out", "g.dot"),
    (["spec", "explore", "client-failover", "--reach", "fails > 0"], "--itf", "t.json"),
    (["spec", "explore", "policy-sync"], "--itf", "t.json"),
    (["spec", "simulate", "client-failover"], "--itf", "t.json"),
])
def test_an_output_path_that_cannot_be_written_is_refused_before_the_work(capsys, no_work, tmp_path, monkeypatch,
                                                                          command, option, name):
    # a folder where the file is expected
    target = tmp_path / "x" / name
    (tmp_path / "x" / name).mkdir(parents=True)
    assert "is a folder, where a file is expected" in refused(capsys, *command, option, str(target))
    # a missing parent
    assert "does not exist" in refused(capsys, *command, option, str(tmp_path / "missing" / name))
    # a folder nobody may write in (root writes anywhere, so the refusal is simulated there)
    readonly = tmp_path / "ro"
    readonly.mkdir()
    readonly.chmod(0o555)
    try:
        if os.geteuid() == 0:
            import tempfile

            def denied(*_a, **_k):
                raise PermissionError(13, "Permission denied")

            monkeypatch.setattr(tempfile, "mkstemp", denied)
        assert "cannot write in" in refused(capsys, *command, option, str(readonly / name))
    finally:
        readonly.chmod(0o755)
    leftovers = [p for p in tmp_path.rglob("*") if p.suffix in (".tmp", ".probe")]
    assert leftovers == []


def test_a_writable_output_path_leaves_only_the_file(tmp_path, capsys):
    out = tmp_path / "t.json"
    assert main(["spec", "simulate", "client-failover", "--steps", "3", "--itf", str(out)]) == 0
    capsys.readouterr()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.json"]


# ------------------------------------------------------------------ ITF traces


def _trace(tmp_path, **meta) -> str:
    from pulsar_conformance.spec.core import itf
    from pulsar_conformance.spec.core.simulate import simulate

    spec = ClientFailover()
    doc = itf.to_itf(spec, simulate(spec, steps=3, seed=1).trace, kind="simulation")
    doc["#meta"].update(meta)
    path = tmp_path / "trace.json"
    path.write_text(json.dumps(doc))
    return str(path)


@pytest.mark.parametrize(("meta", "named"), [
    ({"constants": {"SECONDARIES": "x"}}, "SECONDARIES is 'x', not an integer"),
    ({"constants": {"SECONDARIES": True}}, "not an integer"),
    ({"constants": {"SECONDARIES": 10 ** 6}}, "SECONDARIES=1000000 is outside 1..4"),
    ({"constants": {"SECONDARIES": -1}}, "outside 1..4"),
    ({"constants": {"NOPE": 1}}, "no constant 'NOPE'"),
    ({"constants": ["SECONDARIES", 2]}, "#meta.constants is a list"),
    ({"mutant": ["x"]}, "#meta.mutant ['x'] is not a mutant"),
    ({"mutant": "no-such-mutant"}, "is not a mutant"),
])
def test_a_trace_whose_meta_is_wrong_is_refused(capsys, tmp_path, meta, named):
    assert named in refused(capsys, "spec", "replay", "client-failover", _trace(tmp_path, **meta))


def test_a_trace_whose_variant_is_not_a_string_falls_back_to_the_default(capsys, tmp_path):
    assert main(["spec", "replay", "client-failover", _trace(tmp_path, variant=["cpp"])]) == 0
    capsys.readouterr()


def test_a_trace_nested_deeply_is_refused(capsys, tmp_path):
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    assert "nests deeper" in refused(capsys, "spec", "replay", "client-failover", str(deep))
    shallow_but_deep = tmp_path / "deep2.json"
    nested: list = [1]
    for _ in range(40):
        nested = [nested]
    shallow_but_deep.write_text(json.dumps({"vars": [], "states": [{"x": nested}]}))
    assert "nests deeper than 32" in refused(capsys, "spec", "replay", "client-failover", str(shallow_but_deep))


def test_a_trace_too_large_is_refused_before_it_is_read(capsys, tmp_path, monkeypatch):
    big = tmp_path / "big.json"
    with big.open("wb") as f:
        f.truncate(17 * 1024 * 1024)  # sparse: no disk used
    import pathlib

    monkeypatch.setattr(pathlib.Path, "read_text", lambda *_a, **_k: pytest.fail("read before the size check"))
    assert "a trace is at most 16,777,216" in refused(capsys, "spec", "replay", "client-failover", str(big))


def test_a_trace_that_is_no_file_is_refused_without_reading_forever(tmp_path):
    for path in ("/dev/zero", str(tmp_path)):
        done = subprocess.run([*CLI, "spec", "replay", "client-failover", path], capture_output=True, text=True, timeout=60)
        assert done.returncode == BAD_INPUT and "fix:" in done.stderr and "Traceback" not in done.stderr, done.stderr


def test_a_long_trace_is_validated_in_seconds_not_minutes():
    """jsonschema took ~2 ms a state (a 10 MiB trace: 80 s before replay began); each distinct
    state shape and value is validated once now, and an error still names its first state."""
    import time

    from pulsar_conformance.spec.core import itf
    from pulsar_conformance.spec.core.simulate import simulate

    spec = ClientFailover()
    doc = itf.to_itf(spec, simulate(spec, steps=3000, seed=5).trace, kind="simulation")
    started = time.perf_counter()
    assert itf.schema_problems(doc) == []
    assert time.perf_counter() - started < 3
    doc["states"][2001]["fails"] = {"#bigint": "two"}
    doc["states"][2500]["#meta"] = "x"
    problems = itf.schema_problems(doc)
    assert problems[0].startswith("states/2001/fails:") and problems[1].startswith("states/2500/#meta:"), problems


def test_the_step_session_takes_any_line_without_a_traceback():
    from pulsar_conformance.spec.core.stepper import run

    lines = iter(["9" * 5000, "²", "-1", "0", "1", "q"])
    said: list[str] = []
    assert run(ClientFailover(SECONDARIES=1), read=lambda _prompt: next(lines), write=said.append) == 0
    assert sum("unknown command" in s for s in said) == 3 and any(s.startswith("step 1:") for s in said)
