"""Issue 48's smaller points that are not a fuzz case: what the docs and the help say an unusable capture exits
with, and the refusal of a second ``--matrix`` by the request (the parser's ``append`` is the lead's change).
The rest of the issue's kinds are cases of tests/fuzz (its README counts them by surface)."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from pulsar_conformance import cli
from pulsar_conformance.errors import EXIT_BAD_INPUT, UsageError
from pulsar_conformance.reports.runner.request import parse_matrix

DOCS = Path(__file__).resolve().parents[2] / "docs"


def test_the_spark_checks_doc_says_unusable_captures_exit_64():
    text = (DOCS / "spark-checks.md").read_text()
    heading = re.search(r"^### Unusable captures \(exit (\d+)", text, re.M)
    assert heading and heading.group(1) == str(EXIT_BAD_INPUT), "docs/spark-checks.md: unusable captures' exit code"
    section = text[heading.start():].split("\n## ", 1)[0]
    assert "exit 2 at once" not in section and "exit 64 at once" in section


def test_check_capture_help_names_exit_64(capsys):
    with pytest.raises(SystemExit):
        cli.build_parser().parse_args(["check-capture", "--help"])
    assert "64" in " ".join(capsys.readouterr().out.split())


def test_an_unusable_capture_exits_64_as_documented(tmp_path, capsys):
    (tmp_path / "run").mkdir()  # no manifest.json, no events/
    assert cli.main(["check-capture", str(tmp_path / "run"), "--engine", "python", "--json"]) == EXIT_BAD_INPUT


def test_a_second_matrix_is_refused_not_dropped():
    """What ``--matrix`` gives with ``action="append"``: one is parsed, two are refused (argparse's default
    ``store`` kept the last and dropped the first without a word)."""
    assert parse_matrix(["pulsar=4.0.1,4.2.4"]).axis == "pulsar"
    assert parse_matrix([]) is None and parse_matrix(None) is None
    with pytest.raises(UsageError) as refused:
        parse_matrix(["pulsar=4.0.1,4.2.4", "client=3.13.0,3.4.0"])
    assert "given 2 times" in refused.value.problem and "one axis" in refused.value.problem
    assert refused.value.fix
