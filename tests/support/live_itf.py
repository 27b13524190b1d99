"""The live traces' ITF files (conformance/harness/itf_traces.py) as a test reads them: an outcome judged
into a bundle through the very path ``pulsar-conformance judge BUNDLE`` takes (its protocol's ``JUDGED``
entry, the live recorder), the files its rows name, and ``spec replay`` run on one, in-process."""
from __future__ import annotations

import json
from pathlib import Path

from pulsar_conformance.cli import main
from pulsar_conformance.conformance.harness import rejudge
from pulsar_conformance.conformance.run import CertifyRun
from pulsar_conformance.spec.core import itf


def judge_into(bundle: Path, entry: rejudge.Judged, outcome, test: str = "tests/offline.py::test") -> list[dict]:
    """The rows ``entry.judge(outcome)`` gives, recorded into ``bundle`` (``outcome.run_dir`` a capture of it)."""
    run = CertifyRun(out=bundle, profile="offline", seed=1)
    return rejudge.judge_saved(entry, run, outcome, test).rows


def files_of(rows: list[dict], check_suffix: str) -> list[str]:
    """The ITF files (bundle-relative) the rows of checks ending with ``check_suffix`` name."""
    return [p for r in rows if r["check"].endswith(check_suffix) for p in r["details"].get("itf", [])]


def replay(capsys, bundle: Path, rel: str) -> tuple[int, dict]:
    """``pulsar-conformance spec replay <its spec> <file> --json``: (exit code, the JSON it printed)."""
    path = bundle / rel
    doc = json.loads(path.read_text())
    assert itf.schema_problems(doc) == [], rel
    capsys.readouterr()
    code = main(["spec", "replay", doc["#meta"]["spec"], str(path), "--json"])
    return code, json.loads(capsys.readouterr().out)


def plant(bundle: Path, rel: str, variable: str, value, *, state: int = -1) -> str:
    """A copy of the file with one state's ``variable`` set to ``value`` (its #meta.rejected dropped, so
    only the edited state can make replay refuse it); its bundle-relative path."""
    doc = json.loads((bundle / rel).read_text())
    doc["#meta"].pop("rejected", None)
    doc["states"][state][variable] = value
    planted = rel.removesuffix(".itf.json") + ".planted.itf.json"
    (bundle / planted).write_text(json.dumps(doc))
    return planted
