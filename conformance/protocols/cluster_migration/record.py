"""What the live suites of PIP-188 share after a scenario has run (test_cluster_migration.py,
test_cluster_migration_regions.py and test_java_cluster_migration.py; tests never import tests): the
record step, which takes Spark's verdict of the capture, saves the outcome with it, adds the judge's
figures to migration.json and records judge.judge's rows; and the precondition of the namespace-level
scenarios (does the release have namespace-level migration?)."""
from __future__ import annotations

import json

from pulsar_conformance.files import write_atomic

from ...harness import afterwards
from ...harness.recorder import Recorder
from . import judge, observe, scenario
from .checks import CHECKS
from .outcome import Outcome

MIGRATION_FILE = "migration.json"  # written by scenario.run (timeline.save), read by the report


def judged(certify_run, request, out: Outcome, *, client: str | None = None) -> None:
    """After ``scenario.run`` and what the test read of the clusters into ``out``: Spark's verdict of the
    capture (harness/afterwards.py: verdict.json), the outcome saved with it, the producer and subscription
    figures added to migration.json as the report has always read it, judge.judge's rows recorded (as
    ``client``'s: "java" for the Java client's scenarios), the test finished."""
    out.verdict = afterwards.spark_verdict(out.run_dir, out.columns, name=out.name)
    scenario.save(out)
    figured = figures_into_migration_json(out)
    rec = Recorder(certify_run, request, out, CHECKS, client=client)
    rec.record(judge.judge_figured(figured))
    rec.finish()


def figures_into_migration_json(out: Outcome) -> Outcome:
    """``out`` with its producer and subscription figures, computed by the judge from the record
    (judge.with_figures), and each topic of migration.json (the scenario wrote its states and placement)
    with them: the file keeps the content it had when the scenario computed them. The figured outcome is
    returned for judge.judge_figured, so the figures are computed once."""
    figured = judge.with_figures(out)
    path = out.run_dir / MIGRATION_FILE
    if path.is_file():  # a scenario that ended before writing it has no topics to add figures to
        doc = json.loads(path.read_text())
        doc["topics"] = {t: o.to_json() for t, o in figured.topics.items()}
        write_atomic(path, json.dumps(doc, indent=2, default=str))
    return figured


def lacking(certify_run, request, blue, namespace: str, scenario_name: str) -> bool:
    """True, with ``<scenario>/namespace-level-migration`` not applicable (judge.namespace_level), when
    the release has no namespace-level migration: a scenario built on it has nothing to observe then."""
    answer = observe.probe_namespace_migration(blue.admin(), namespace)
    if not answer.lacks:
        return False
    rec = Recorder(certify_run, request, None, CHECKS)
    rec.record([judge.namespace_level(scenario_name, answer)])
    rec.finish()
    return True
