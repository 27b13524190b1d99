"""Keeps a live certification bundle here, small: ``keep.py PROFILE BUNDLE`` copies the bundle a
``certify --profile PROFILE`` run wrote into tests/data/rejudge/PROFILE/ without what no judge reads
(the brokers' logs, allure's raw results: megabytes), writes its SHA-256 manifest again over what is kept
and says so in its summary (``bundle.left_out``), then judges the copy again with today's judges and
refuses to keep it unless every row, requirement and the run's verdict are what the live run recorded
(tests/reports/test_rejudge.py asserts the same; a bundle that disagreed from the start would test
nothing). Run from the checkout (README.md here says which runs the kept bundles come from):

    .tox/reports/bin/python tests/data/rejudge/keep.py policy-sync /path/to/certify-bundle
"""
from __future__ import annotations

import json
import shutil
import sys
import tempfile
from pathlib import Path

from pulsar_conformance.cli import main
from pulsar_conformance.reports.bundle import archive

HERE = Path(__file__).resolve().parent
# what no judge reads: the brokers' and servers' logs, allure's raw results, the findings pages made from
# the rows (judge writes them again)
LEFT_OUT = ("logs", "allure-results")
LIMIT_BYTES = 5 * 1024 * 1024  # "a few MB at most" per kept bundle (issue 49): a whole tenant-migration run keeps 4.8 MB


def keep(profile: str, source: Path) -> Path:
    summary = json.loads((source / "summary.json").read_text())
    if summary.get("profile") != profile:
        sys.exit(f"{source} is a bundle of profile {summary.get('profile')!r}, not {profile!r}: pass its own profile")
    if not archive.verify(source).ok:
        sys.exit(f"{source} does not match its manifest: keep a bundle as certify sealed it")
    out = HERE / profile
    with tempfile.TemporaryDirectory() as scratch:
        copy = Path(scratch) / profile
        shutil.copytree(source, copy, ignore=shutil.ignore_patterns(*LEFT_OUT))
        summary["bundle"]["left_out"] = sorted(set(summary["bundle"].get("left_out", []))
                                               | {f"{name}/" for name in LEFT_OUT if (source / name).exists()})
        summary["kept"] = f"tests/data/rejudge/keep.py: {', '.join(LEFT_OUT)} left out, the manifest written again"
        (copy / "summary.json").write_text(json.dumps(summary, indent=2, default=str))
        archive.write_manifest(copy)
        size = sum(p.stat().st_size for p in copy.rglob("*") if p.is_file())
        if size > LIMIT_BYTES:
            sys.exit(f"{profile}: {size} bytes kept, over {LIMIT_BYTES}: narrow the run (certify --select)")
        code = main(["judge", str(copy), "--out", str(Path(scratch) / "again"), "--json"])
        again = json.loads((Path(scratch) / "again" / "summary.json").read_text())
        changed = again["rejudged"]["changed"]
        if changed != {"verdict": None, "requirements": [], "tests": [], "gone": []}:
            sys.exit(f"{profile}: today's judges change the recorded verdicts ({changed}): not keeping a bundle that "
                     "disagrees")
        if out.exists():
            shutil.rmtree(out)
        shutil.copytree(copy, out)
    print(f"{out}: {summary['verdict']} (judge exit {code}), {size} bytes, "
          f"{again['rejudged']['rows']['rejudged']} rows re-judged, {again['rejudged']['rows']['carried_over']} carried over")
    return out


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    keep(sys.argv[1], Path(sys.argv[2]).resolve())
