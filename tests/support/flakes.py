"""The suite's own flake budget: run its tests that touch real brokers several times in a row and
report every test whose outcome changed between runs (not in CI: five runs of the live tests take
an hour). A flake found here is fixed, not retried away.

    python -m tests.support.flakes --runs 5 tests/fixtures tests/capture
"""
from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from collections import defaultdict
from pathlib import Path


def outcomes(junit: Path) -> dict[str, str]:
    out = {}
    for case in ET.parse(junit).getroot().iter("testcase"):
        name = f"{case.get('classname')}::{case.get('name')}"
        kinds = {child.tag for child in case}
        out[name] = ("failed" if "failure" in kinds else "error" if "error" in kinds
                     else "skipped" if "skipped" in kinds else "passed")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--marker", default="pulsar", help="pytest -m expression (default: pulsar)")
    parser.add_argument("paths", nargs="+")
    args = parser.parse_args(argv)
    seen: dict[str, list[str]] = defaultdict(list)
    with tempfile.TemporaryDirectory() as tmp:
        for run in range(1, args.runs + 1):
            junit = Path(tmp) / f"run-{run}.xml"
            print(f"run {run} of {args.runs}...", file=sys.stderr, flush=True)
            subprocess.run([sys.executable, "-m", "pytest", "-q", "-m", args.marker, "-p", "no:cacheprovider",
                            f"--junitxml={junit}", *args.paths], check=False)
            for name, outcome in outcomes(junit).items():
                seen[name].append(outcome)
    changed = {name: runs for name, runs in seen.items() if len(set(runs)) > 1}
    for name, runs in sorted(changed.items()):
        print(f"FLAKY {name}: {' '.join(runs)}")
    print(f"{len(changed)} of {len(seen)} test(s) changed outcome over {args.runs} runs")
    return 1 if changed else 0


if __name__ == "__main__":
    sys.exit(main())
