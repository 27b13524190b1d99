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

import subprocess
import sys

LIVE = "pulsar or spark or docker"
# live runs whose minutes CI cannot pay (its budget is an hour); what they judge is judged offline in CI on a
# recorded observation, and each names the command that runs it (`tox -e ENV -- -m outside_ci`)
OUTSIDE_CI = "outside_ci"
WORKERS = "2"


def commands(paths: list[str], durations: str, extra: list[str]) -> list[list[str]]:
    pytest = [sys.executable, "-m", "pytest", *paths]
    if extra:
        return [[*pytest, f"--durations={durations}", *extra]]
    return [[*pytest, "-m", f"not ({LIVE})", "-n", WORKERS, f"--durations={durations}"],
            [*pytest, "-m", f"({LIVE}) and not {OUTSIDE_CI}", f"--durations={durations}"]]


def main(argv: list[str]) -> int:
    if "--" in argv:
        at = argv.index("--")
        argv, extra = argv[:at], argv[at + 1:]
    else:
        extra = []
    durations = "10"
    if "--durations" in argv:
        at = argv.index("--durations")
        durations = argv[at + 1]
        argv = argv[:at] + argv[at + 2:]
    if not argv or any(a.startswith("-") for a in argv):
        print(__doc__.strip().splitlines()[-1].strip(), file=sys.stderr)
        return 4  # pytest's own exit code for a usage error
    worst = 0
    for command in commands(argv, durations, extra):
        code = subprocess.call(command)
        worst = worst or code  # both halves run whatever the first one said: CI shows every failure
    return worst


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
