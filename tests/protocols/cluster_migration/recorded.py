"""The recorded PIP-188 run the offline tests judge (tests/data/migration/cluster-migration-3.13.0,
README there): its folder, the Exclusive topic's producer the edits aim at, and the run as the
scenario's ``Outcome`` (recorded before outcome.json: rebuilt from its migration.json and capture)."""
from __future__ import annotations

import json
from pathlib import Path

from pulsar_conformance.conformance.protocols.cluster_migration import judge
from pulsar_conformance.conformance.protocols.cluster_migration.outcome import (
    CapturedRun,
    Outcome,
    TopicOutcome,
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
