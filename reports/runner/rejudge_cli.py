"""Subcommand ``judge``: a saved certification bundle judged again with today's judges (reports/runner/rejudge.py).

Registered at every start-up like the other areas' commands, so nothing heavy is imported here: the
judges, the recorder and the report load when the command runs.
"""
from __future__ import annotations


def register(commands) -> None:
    p = commands.add("judge", _judge,
                     "judge a saved certification bundle (folder or .tar.gz) again with today's judges and write "
                     "a new bundle (checks.jsonl, summary.json, junit, report.html; the input is never changed), "
                     "checked against its SHA-256 manifest first (exit: the new verdict 0 pass, 1 fail, 2 unknown; "
                     "64 not a bundle, not matching its manifest, or an unusable --out)")
    p.add_argument("bundle", metavar="BUNDLE|ARCHIVE", help="the folder certify wrote, its summary.json or its .tar.gz")
    p.add_argument("--out", default=None, metavar="DIR",
                   help="the new bundle's folder, new or empty (default: BUNDLE-rejudged-<time> beside the bundle)")


def _judge(args) -> int:
    from .rejudge import run_judge  # lazy: the judges, the recorder, the report

    return run_judge(args.bundle, args.out, args)
