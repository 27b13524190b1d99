"""One exit code per outcome a CI gate must tell apart (docs/ci-gating.md): 0 pass, 1 fail, 2 unknown,
64 bad input, 70 a crash of the suite, 130 interrupted. Bad input used to exit 2, like an unknown
verdict, and a crash 1, like a failure."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from pulsar_conformance import cli
from pulsar_conformance.errors import (
    EXIT_BAD_INPUT,
    EXIT_FAIL,
    EXIT_INTERNAL,
    EXIT_INTERRUPTED,
    EXIT_PASS,
    EXIT_UNKNOWN,
    UsageError,
)


def _main(argv, capsys):
    code = cli.main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def test_the_codes_are_distinct():
    codes = [EXIT_PASS, EXIT_FAIL, EXIT_UNKNOWN, EXIT_BAD_INPUT, EXIT_INTERNAL, EXIT_INTERRUPTED]
    assert codes == [0, 1, 2, 64, 70, 130]


@pytest.mark.parametrize("argv, words", [
    (["certify", "--json"], "the following arguments are required: --profile"),  # argparse: required
    (["certify", "--profile", "smoke", "--repeat", "two", "--json"], "invalid int value"),  # argparse: type
    (["no-such-command", "--json"], "invalid choice"),  # argparse: choices
    (["compare", "only-one", "--json"], "at least two bundles"),  # UsageError from a handler
])
def test_bad_input_is_64_with_the_problem_and_the_fix(argv, words, capsys):
    code, out, err = _main(argv, capsys)
    assert code == EXIT_BAD_INPUT, (out, err)
    doc = json.loads(out)
    assert words in doc["error"] and doc["fix"], doc


def test_text_mode_error_goes_to_stderr_with_the_fix(capsys):
    code, out, err = _main(["certify", "--profile", "nightly"], capsys)
    assert code == EXIT_BAD_INPUT and out == "" and "unknown profile 'nightly'" in err and "fix:" in err


@pytest.mark.parametrize("raised, expected", [(KeyboardInterrupt(), EXIT_INTERRUPTED),
                                              (UsageError("bad", "fix it"), EXIT_BAD_INPUT),
                                              (RuntimeError("boom"), EXIT_INTERNAL)])
def test_what_a_handler_raises_maps_to_its_code(monkeypatch, capsys, raised, expected):
    def handler(_request):
        raise raised

    from pulsar_conformance.reports.runner import cli as reports_cli

    monkeypatch.setattr(reports_cli, "_compare", handler)
    code, out, err = _main(["compare", "a", "b", "--json"], capsys)
    assert code == expected, (out, err)
    if expected == EXIT_INTERNAL:  # never 1, which a gate reads as "the product failed"
        doc = json.loads(out)
        assert "internal error of the suite: RuntimeError: boom" in doc["error"] and "report it" in doc["fix"]
        assert "Traceback" in err


def test_verdicts_keep_their_codes():
    from pulsar_conformance.reports.runner.certify import exit_code

    assert [exit_code(v) for v in ("pass", "fail", "unknown")] == [EXIT_PASS, EXIT_FAIL, EXIT_UNKNOWN]
    # an interrupted run is 130, unless a failure was already seen: that is the more useful answer
    assert exit_code("unknown", interrupted=True) == EXIT_INTERRUPTED
    assert exit_code("fail", interrupted=True) == EXIT_FAIL


def test_the_installed_entry_point_exits_64_on_bad_input():
    done = subprocess.run([sys.executable, "-m", "pulsar_conformance", "certify", "--profile", "smoke",
                           "--seed", "x"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 64 and "invalid int value" in done.stderr and "Traceback" not in done.stderr


def test_the_table_in_the_docs_has_every_code_and_no_other():
    import re
    from pathlib import Path

    from pulsar_conformance import errors

    text = (Path(__file__).resolve().parents[2] / "docs" / "ci-gating.md").read_text()
    table = re.search(r"## Exit codes.*?\n(\|.*?)\n\n", text, re.S).group(1)
    documented = sorted(int(m) for m in re.findall(r"^\| (\d+) \|", table, re.M))
    assert documented == sorted(v for k, v in vars(errors).items() if k.startswith("EXIT_")), documented
