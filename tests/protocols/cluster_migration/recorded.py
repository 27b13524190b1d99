"""The recorded PIP-188 run the offline tests judge (tests/data/migration/cluster-migration-3.13.0,
README there): its folder, the Exclusive topic's producer the edits aim at, and the run as the
scenario's ``Outcome`` (recorded before outcome.json: rebuilt from its migration.json and capture)."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

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
    """What ``scenario.run`` hands the judges, rebuilt from the recorded run's files (as ``scenario.gather``)."""
    topics = {}
    for topic in run.topics:
        place = run.placement(topic)
        subs = []
        for sub in run.subscriptions(topic):
            figures = judge.subscription_figures(sub, run.receives(topic, sub), run.acks(topic, sub), place, run.trigger_ns)
            figures.created_after_trigger = (topic, sub) in run.late_subs
            subs.append(figures)
        producers = judge.producer_figures(run.sends(topic), run.failed_sends(topic), place, run.trigger_ns)
        topics[topic] = TopicOutcome(topic, *run.states[topic], place, producers, subs)
    return Outcome(name, run.run_dir, run.trigger_ns, topics, json.loads((DATA / "verdict.json").read_text()),
                   sub_types=dict(run.sub_types), blue_log=None, columns=run.columns)


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
