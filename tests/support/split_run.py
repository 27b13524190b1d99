"""One tox env's tests in two pytest runs: those that start nothing live on both cores
(pytest-xdist, ``-n 2``), then the live ones (markers pulsar, spark, docker) one at a time, but those marked outside_ci.

Why two runs: CI's budget is an hour on two cores, and a thousand offline tests (verdicts on
recorded runs, bad input, reports) take minutes one at a time; but a live test that shares the
cores with another test can miss a timing it judges, so live tests never run beside anything.

With arguments after ``--`` (a developer's ``-k``, a path) it is one ordinary pytest run: a
selection that leaves one half empty would otherwise fail that half ("no tests ran").

    python tests/support/split_run.py PATH... [--durations N] [-- PYTEST_ARGS...]
"""
from __future__ import annotations

import argparse
import subprocess
import sys

LIVE = "pulsar or spark or docker"
# live runs whose minutes CI cannot pay (its budget is an hour); what they judge is judged offline in CI on a
# recorded observation, and each names the command that runs it (`tox -e ENV -- -m outside_ci`)
OUTSIDE_CI = "outside_ci"
WORKERS = "2"
NO_TESTS = 5  # pytest.ExitCode.NO_TESTS_COLLECTED


def commands(paths: list[str], durations: str, extra: list[str]) -> list[list[str]]:
    pytest = [sys.executable, "-m", "pytest", *paths]
    if extra:
        return [[*pytest, f"--durations={durations}", *extra]]
    return [[*pytest, "-m", f"not ({LIVE})", "-n", WORKERS, f"--durations={durations}"],
            [*pytest, "-m", f"({LIVE}) and not {OUTSIDE_CI}", f"--durations={durations}"]]


class _Arguments(argparse.ArgumentParser):
    def error(self, message):  # pytest's own exit code for a usage error (4), not argparse's 2
        self.print_usage(sys.stderr)
        self.exit(4, f"split_run.py: {message}\n")


def main(argv: list[str]) -> int:
    ours, extra = (argv[:argv.index("--")], argv[argv.index("--") + 1:]) if "--" in argv else (argv, [])
    parser = _Arguments(prog="split_run.py PATH...", description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="+", metavar="PATH")
    parser.add_argument("--durations", default="10", metavar="N")
    args = parser.parse_args(ours)
    # both halves run whatever the first one said (CI shows every failure); a half with no test to run
    # (pytest's 5: PATH holds only offline or only live tests) fails the run only if the other ran none either
    codes = [subprocess.call(command) for command in commands(args.paths, args.durations, extra)]
    ran = [code for code in codes if code != NO_TESTS] or [NO_TESTS]
    return next((code for code in ran if code), 0)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
