"""A saved run judged again without pytest: what each protocol declares for it, and the recorder's
rules applied to what its judge says of a loaded outcome (``pulsar-conformance judge BUNDLE``,
reports/runner/rejudge.py).

Each protocol package lists in its ``rejudge.py`` one ``Judged`` per outcome type its scenarios save
(``outcome.json``'s ``type``): the judge its test module hands that outcome to, the checks declaration
the recorder looks the rows up in, and the client the test module's recorder names (``client=``).
``judge_saved`` then does what the test module did, ``Recorder(...).record(judge(outcome))``, with the
very ``Recorder`` (harness/recorder.py), so a re-judged row follows the live rules: check-safe raising,
the run's configuration hazards, the client in ``details.client``. Only pytest's ``request`` is stood in
for (the test's node id, and the list its junit properties go to); ``outcome_of_test`` is the verdict
``Recorder.finish`` gives a test with those rows (failed on a failed MUST, broken on an unknown).
"""
from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..run import CertifyRun, VerdictUnknown
from . import outcome as saved
from .checks import Checks
from .recorder import Recorder
from .rows import Row


def _no_client(_outcome) -> str | None:
    return None


@dataclass(frozen=True)
class Judged:
    """How a protocol's test module judged one outcome type."""

    outcome: type  # the dataclass saved as outcome.json (harness/outcome.py)
    judge: Callable[[Any], Iterable[Row]]  # the pure judge the test module records (judge.py)
    checks: Checks  # the declaration its rows are recorded under (checks.py)
    # the client the test module's recorder names for this outcome (Recorder(client=...)); None: not said
    client: Callable[[Any], str | None] = _no_client

    def matches(self, saved_type: str) -> bool:
        """``outcome.json``'s ``type`` names this outcome type: a run started from the checkout names
        ``conformance.protocols...``, an installed one ``pulsar_conformance.conformance.protocols...``."""
        ours = f"{self.outcome.__module__}.{self.outcome.__qualname__}"
        return _bare(saved_type) == _bare(ours)

    def load(self, run_dir: Path):
        """The outcome saved in ``run_dir``, its ``run_dir`` the folder it is read from now (not the
        one the live run wrote it to: a judge reads files beside it)."""
        loaded = saved.load(self.outcome, run_dir)
        if any(f.name == "run_dir" for f in dataclasses.fields(loaded)):
            loaded = dataclasses.replace(loaded, run_dir=Path(run_dir))
        return loaded


def _bare(name: str) -> str:
    return name.removeprefix("pulsar_conformance.")


@dataclass
class _Node:
    nodeid: str
    user_properties: list = field(default_factory=list)


@dataclass
class _Request:
    """What the recorder reads of pytest's ``request``: the test's node id and its junit properties."""

    node: _Node


def judge_saved(entry: Judged, run: CertifyRun, loaded, test: str) -> Recorder:
    """The recorder of ``test`` after recording ``entry.judge(loaded)``'s rows into ``run`` (its
    ``checks.jsonl``), as the test module does. Whatever the judge or the recorder raises (an
    undeclared check, an id no catalog has) propagates, as it broke the live test; the rows written
    before it are in the recorder, which ``recorder_of`` gives the caller first."""
    rec = recorder_of(entry, run, loaded, test)
    rec.record(entry.judge(loaded))
    return rec


def recorder_of(entry: Judged, run: CertifyRun, loaded, test: str) -> Recorder:
    return Recorder(run, _Request(_Node(test)), loaded, entry.checks, client=entry.client(loaded))


def outcome_of_test(rows: list[dict], test: str, checks: Checks) -> tuple[str, str, list[tuple[str, str]]]:
    """(outcome as junit names it: passed, failed or errors; its message; its junit properties) of a
    test that recorded ``rows``, by ``Recorder.finish`` and the recorder's own properties."""
    rec = Recorder(None, _Request(_Node(test)), None, checks)
    for row in rows:
        rec.rows.append(row)
        rec._junit_properties(row)  # the live recorder's text for each requirement a row judged
    try:
        rec.finish()
    except AssertionError as error:  # a failed MUST: pytest's failure, the message read_junit keys on
        return "failed", f"AssertionError: {error}", rec.node.user_properties
    except VerdictUnknown as error:
        name = f"{VerdictUnknown.__module__.removeprefix('pulsar_conformance.')}.VerdictUnknown"
        return "errors", f"{name}: {error}", rec.node.user_properties
    return "passed", "", rec.node.user_properties
