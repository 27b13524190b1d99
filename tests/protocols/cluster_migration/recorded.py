"""The recorded PIP-188 run the offline tests judge (tests/data/migration/cluster-migration-3.13.0,
README there): its folder, the Exclusive topic's producer the edits aim at, and the run as the
scenario's ``Outcome`` (recorded before outcome.json: rebuilt from its migration.json and capture)."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

from pulsar_conformance.conformance.harness.handles import HandleInfo
from pulsar_conformance.conformance.protocols.cluster_migration import judge
from pulsar_conformance.conformance.protocols.cluster_migration.outcome import (
    CapturedRun,
    NamespaceMigrationAnswer,
    Outcome,
    TopicOutcome,
    TopicState,
    load_run,
)

DATA = Path(__file__).resolve().parents[2] / "data" / "migration" / "cluster-migration-3.13.0"
EXCLUSIVE = "persistent://mig/live/exclusive"
PRODUCER = "p-live-exclusive"


def outcome_of(run: CapturedRun, name: str = "cluster-migration") -> Outcome:
    """What ``scenario.run`` hands the judges, rebuilt from the recorded run's files (as ``scenario.gather``):
    each topic's states and placement, and the consumers through blue the capture shows, each created at
    the run's start or (a subscription migration.json says came after the trigger) just after the trigger.
    No figures: judge.judge computes them (judge.with_figures for a judge called on its own)."""
    topics = {topic: TopicOutcome(topic, *run.states[topic], run.placement(topic)) for topic in run.topics}
    handles = [HandleInfo(f"c-{topic.rsplit('/', 1)[-1]}-{sub}", "consumer", topic, sub, "blue",
                          run.trigger_ns + 1 if (topic, sub) in run.late_subs else 0)
               for topic in run.topics for sub in run.subscriptions(topic)]
    return Outcome(name, run.run_dir, run.trigger_ns, topics, json.loads((DATA / "verdict.json").read_text()),
                   handles=handles, sub_types=dict(run.sub_types), blue_log=None, columns=run.columns)


def figured(run: CapturedRun, name: str = "cluster-migration") -> Outcome:
    """``outcome_of`` with the figures judge.judge computes first, for a judge called on its own
    (judge_topics, traces, judge_clients read them)."""
    return judge.with_figures(outcome_of(run, name))


REDIRECT = ("INFO redirect migrated producer to topic persistent://mig/live/exclusive: "
            "producerName = p-live-exclusive, ...")


def cluster_level_outcome(tmp_path) -> Outcome:
    """The recorded run as the cluster-level scenario's outcome, in ``tmp_path`` with its capture."""
    shutil.copytree(DATA / "events", tmp_path / "events")
    out = outcome_of(load_run(DATA))
    out.run_dir, out.blue_log = tmp_path, REDIRECT
    fresh = "persistent://mig/live/fresh"
    out.facts.update(exclusive=EXCLUSIVE, fresh=fresh, namespace="mig/live", tls="")
    out.states["fresh@blue"] = TopicState("blue", fresh, error="HTTP 404: Topic not found")
    out.states["fresh@green"] = TopicState("green", fresh, {7}, "LedgerOpened", entries=40)
    out.admin.update({"blue:migration": {"migrated": True}, "green:migration": {},
                      "green:namespace": {"migrated": False}})
    out.answers["loaded"] = NamespaceMigrationAnswer("mig/live", "loaded", True, None, "", "/admin/v2/namespaces/x")
    return out
