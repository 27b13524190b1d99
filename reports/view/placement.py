"""Which cluster stored each send of a cluster-migration capture, for the report's pictures (issue 51:
the namespace-migration plots labelled every send "blue", so the migration was invisible in its own
plot).

The capture's ``cluster`` column is the cluster the scenario attached the client to: in a PIP-188
scenario every client is attached through blue and follows blue's redirect to green, so every row
says blue. Where the send was stored is what the judges work out (conformance/protocols/
cluster_migration/outcome.place_sends: by ledger id, or by acknowledgement order where both clusters
use the same ledger ids) and what this module reads back, in this order:

1. ``outcome.json`` (harness/outcome.py) of a cluster-migration ``Outcome``: each topic's
   ``placement.by_uid`` and ``placement.msg_id`` as the judges had them;
2. otherwise (runs recorded before outcome.json) ``migration.json``: each topic's blue and green
   state, from which ``outcome.load_run`` places the sends again; a topic whose placement this gives
   is drawn only if its counts are the ones the scenario recorded there (``placement.counts``).

A topic neither file places (the new topic a scenario creates through blue after the trigger, whose
state it does not read) keeps the capture's label and is said to be unplaced. A delivery's cluster is
read as the judges read it (``judge.subscription_figures``): the cluster that stored the message,
unless the delivered message id is not the one the send got (the same uid stored twice).
"""
from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

OUTCOME_FILE = "outcome.json"
MIGRATION_FILE = "migration.json"
OUTCOME_TYPE = "cluster_migration.outcome.Outcome"  # the end of outcome.json's "type" for a PIP-188 run
ATTACHED = "blue"  # the role every PIP-188 scenario's clients attach through (scenario.run)
PLACED = ("blue", "green")


@dataclass
class Stored:
    """Where the sends of a capture's placed topics were stored, and how that is known."""

    by_uid: dict[tuple[str, str], str]  # (topic, uid) -> blue | green | unknown
    msg_id: dict[tuple[str, str], str]  # (topic, uid) -> the message id the send was acknowledged with
    source: str  # the file the placement comes from, and its method
    unplaced: list[str] = field(default_factory=list)  # topics not placed, each with why

    def send(self, topic: str, uid: str, cluster: str | None) -> str | None:
        """The cluster that stored this send, None when the placement does not say (not placed,
        or not a send through blue)."""
        if cluster != ATTACHED:
            return None
        return self.by_uid.get((topic, uid))

    def receive(self, topic: str, uid: str, msg_id: str | None, cluster: str | None) -> str | None:
        stored = self.send(topic, uid, cluster)
        if stored in PLACED and msg_id and msg_id != self.msg_id.get((topic, uid)):
            return "green" if stored == "blue" else "blue"
        return stored

    def counts(self) -> dict[str, int]:
        return dict(Counter(self.by_uid.values()))


def stored_on(capture_dir: Path) -> Stored | None:
    """The placement of a cluster-migration capture's sends; None for a capture of another protocol
    (neither file, or an outcome.json of another kind) or one whose files say nothing placeable."""
    found = _from_outcome(capture_dir / OUTCOME_FILE)
    if found is None and (capture_dir / MIGRATION_FILE).is_file():
        found = _from_migration(capture_dir)
    if found is None or not found.by_uid:
        return None
    return found


def _from_outcome(path: Path) -> Stored | None:
    try:
        doc = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    if not isinstance(doc, dict) or not str(doc.get("type", "")).endswith(OUTCOME_TYPE):
        return None
    topics = (doc.get("outcome") or {}).get("topics") or {}
    by_uid, ids, methods, unplaced = {}, {}, set(), []
    for topic, o in topics.items():
        place = (o or {}).get("placement") or {}
        if not isinstance(place.get("by_uid"), dict) or not place["by_uid"]:
            unplaced.append(f"{topic}: {OUTCOME_FILE} holds no placement of its sends")
            continue
        by_uid.update({(topic, u): c for u, c in place["by_uid"].items()})
        ids.update({(topic, u): m for u, m in (place.get("msg_id") or {}).items()})
        methods.add(place.get("method") or "?")
    return Stored(by_uid, ids, f"{OUTCOME_FILE} (placement by {', '.join(sorted(methods))})", unplaced)


def _from_migration(capture_dir: Path) -> Stored | None:
    try:
        from pulsar_conformance.conformance.protocols.cluster_migration.outcome import load_run

        run = load_run(capture_dir)
        recorded = json.loads((capture_dir / MIGRATION_FILE).read_text()).get("topics") or {}
    except Exception as broken:  # noqa: BLE001 - a picture's labels must never break the report
        return Stored({}, {}, MIGRATION_FILE, [f"{MIGRATION_FILE} could not be read back ({broken})"])
    by_uid, ids, methods, unplaced = {}, {}, set(), []
    for topic in run.topics:
        place = run.placement(topic)
        got = {c: n for c, n in Counter(place.by_uid.values()).items()}
        want = ((recorded.get(topic) or {}).get("placement") or {}).get("counts")
        if want is not None and {c: n for c, n in want.items() if n} != got:
            unplaced.append(f"{topic}: placed again from {MIGRATION_FILE} the sends come out {got}, not the {want} "
                            "the scenario recorded")
            continue
        by_uid.update({(topic, u): c for u, c in place.by_uid.items()})
        ids.update({(topic, u): m for u, m in place.msg_id.items()})
        methods.add(place.method)
    return Stored(by_uid, ids, f"{MIGRATION_FILE} (placed again by {', '.join(sorted(methods))})", unplaced)
