"""The single entry point, ``pulsar-conformance`` (docs/certify.md).

Each area registers its own subcommands (``register(commands)`` in its ``cli`` module), so
that the areas stay independent and a heavy import (pyspark, pulsar) happens only when a
command of that area runs.
"""
from __future__ import annotations

import argparse
import importlib
import json
import sys
import traceback
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, version

from . import __version__, extras, interrupts
from .errors import EXIT_BAD_INPUT, EXIT_INTERNAL, EXIT_INTERRUPTED, EXIT_PASS, UsageError

AREA_CLIS = (
    "pulsar_conformance.spec.cli",
    "pulsar_conformance.fixtures.cli",
    "pulsar_conformance.fixtures.capture.cli",
    "pulsar_conformance.spark_checks.cli",
    "pulsar_conformance.reports.runner.cli",
    "pulsar_conformance.reports.runner.plan",
    "pulsar_conformance.reports.runner.rejudge_cli",
    "pulsar_conformance.reports.runner.explore_cli",
    "pulsar_conformance.conformance.protocols.metadata_migration.bench",
    "pulsar_conformance.scaffold.cli",
    "pulsar_conformance.setup_cli",
    "pulsar_conformance.completion",
)


DESCRIPTION = ("Executable specs and a live conformance suite for Apache Pulsar's cross-cluster features "
               "(PIP-121, PIP-136, PIP-188, PIP-454, tenant migration).")
EPILOG = """first run:
  pulsar-conformance setup                     what each feature needs from the system (installs nothing)
  pulsar-conformance certify --profile smoke   one short live scenario of every protocol, a bundle
  pulsar-conformance results BUNDLE            its verdict, what it certified, its failures
help on one command: pulsar-conformance COMMAND --help; shell completion: pulsar-conformance completion bash
exit codes: 0 pass, 1 fail, 2 unknown, 64 bad input, 70 a defect of the suite, 130 interrupted (docs/ci-gating.md)"""


class _Parser(argparse.ArgumentParser):
    """argparse that raises instead of exiting, so bad options honour --json and exit 64 (argparse's own
    2 would read as an unknown verdict)."""

    def error(self, message: str):  # type: ignore[override]
        raise UsageError(f"{self.prog}: {message}", f"see '{self.prog} --help'")


@dataclass
class Commands:
    """Where areas hang their subcommands: top-level ones and ``bench`` ones."""

    top: argparse._SubParsersAction
    bench: argparse._SubParsersAction
    common: argparse.ArgumentParser  # parent parser carrying --json

    def add(self, name: str, handler, help: str, *, bench: bool = False) -> argparse.ArgumentParser:
        where = self.bench if bench else self.top
        parser = where.add_parser(name, help=help, description=help, parents=[self.common])
        parser.set_defaults(handler=handler)
        return parser

    def group(self, name: str, help: str) -> argparse._SubParsersAction:
        parser = self.top.add_parser(name, help=help, description=help)
        sub = parser.add_subparsers(dest=f"{name}_command", metavar="COMMAND", parser_class=_Parser)
        parser.set_defaults(handler=_help_of(parser))  # a bare group prints its commands, like a bare command
        return sub


def build_parser() -> argparse.ArgumentParser:
    common = _Parser(add_help=False)
    common.add_argument("--json", action="store_true", help="print one JSON document on stdout and nothing else")
    parser = _Parser(prog="pulsar-conformance", description=DESCRIPTION, epilog=EPILOG,
                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action=_VersionAction, nargs=0, default=argparse.SUPPRESS,
                        help="print the installed version (from git at build time) and exit")
    top = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    # a bare `pulsar-conformance` (or `spec`, `bench`) prints its help and exits 0, as git, docker and
    # kubectl do: it once exited 64, "bad input", for asking what there is (docs/ci-gating.md)
    parser.set_defaults(handler=_help_of(parser))
    bench_parser = top.add_parser("bench", help="benchmarks that print figures (ratios in one run)")
    bench = bench_parser.add_subparsers(dest="bench_command", metavar="BENCH", parser_class=_Parser)
    bench_parser.set_defaults(handler=_help_of(bench_parser))
    commands = Commands(top=top, bench=bench, common=common)
    for module_name in AREA_CLIS:
        importlib.import_module(module_name).register(commands)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    json_mode = "--json" in argv
    command = "pulsar-conformance"
    try:
        args = build_parser().parse_args(argv)
        command = command_of(args)
        # an extra the command runs on and this environment lacks: exit 64 with the pip command, before
        # anything starts (a core install once crashed minutes in on `No module named 'requests'`)
        extras.check(command)
        if command.split()[0] in ("spec", "bench"):
            interrupts.z3_interruptible()  # Ctrl-C inside a z3 call: 130, not an unknown verdict
        return int(args.handler(args))
    except UsageError as error:
        _report_usage_error(error, json_mode)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        sys.stderr.write("interrupted\n")
        return EXIT_INTERRUPTED
    except ModuleNotFoundError as error:
        missing = extras.missing_module(error, command)
        if missing is None:
            return _crash(error, json_mode)
        _report_usage_error(missing, json_mode)
        return EXIT_BAD_INPUT
    except Exception as error:  # noqa: BLE001 - a crash must not exit 1, which a CI gate reads as "fail"
        return _crash(error, json_mode)


def _crash(error: BaseException, json_mode: bool) -> int:
    """A defect of the suite: its traceback on stderr, exit 70 (never 1, which a CI gate reads as "fail")."""
    traceback.print_exc()
    _report_usage_error(UsageError(f"internal error of the suite: {type(error).__name__}: {error}",
                                   "this is a defect of pulsar-conformance, not of your input or product: "
                                   "report it with the traceback printed on stderr"), json_mode)
    return EXIT_INTERNAL


def command_of(args: argparse.Namespace) -> str:
    """The command as typed, without its options: ``certify``, ``bench spark``, ``spec check``."""
    words = [getattr(args, "command", None)]
    if words[0]:
        words.append(getattr(args, f"{words[0]}_command", None))
    return " ".join(w for w in words if w) or "pulsar-conformance"


def _help_of(parser: argparse.ArgumentParser):
    def show(_args) -> int:
        parser.print_help(sys.stdout)
        return EXIT_PASS

    return show


def _report_usage_error(error: UsageError, json_mode: bool) -> None:
    if json_mode:
        sys.stdout.write(json.dumps({"error": error.problem, "fix": error.fix}) + "\n")
    else:
        sys.stderr.write(f"error: {error}\n")


class _VersionAction(argparse.Action):
    """argparse's own version action needs the string up front; the installed metadata is read only when
    --version is asked for, not on every command (spec replay's size check must read no file first)."""

    def __call__(self, parser, namespace, values, option_string=None):
        sys.stdout.write(_version() + "\n")
        parser.exit()


def _version() -> str:
    """The installed distribution's version: from git at build time (setuptools-scm, pyproject.toml),
    so a wheel and an editable install say which commit they are; ``__version__`` only when the
    package runs uninstalled (PYTHONPATH on a checkout)."""
    try:
        return f"pulsar-conformance {version('pulsar-conformance')}"
    except PackageNotFoundError:
        return f"pulsar-conformance {__version__} (not installed: version unknown)"
