"""The checks the PIP-188 scenarios record, each with the requirements it judges
(spec/catalog/pip-188.yaml links them; tests/reports/test_checks.py holds the two together)."""
from __future__ import annotations

from ...harness.checks import Check, Checks
from . import tls_modes

CHECKS = Checks(
    area="cluster-migration",
    where="conformance/protocols/cluster_migration/checks.py",
    # *-java: the namespace- and cluster-level scenarios through the Java client (clients.py)
    scenarios=("cluster-migration", "cluster-migration-java", "namespace-migration", "namespace-migration-java", "namespace-fresh", "no-auto-create", "blue-restart", "stranded",
               "stranded-restart", "geo-migration",
               # explore --live cluster-migration's schedules (explore.py; judge.SCENARIOS)
               "namespace-explore"),
    hazards=tls_modes.hazards,  # --migration-tls on-no-tls-url: TLS clients stranded by the operator
    checks=(
        # per topic, producer and subscription (verdicts.judge_topics, judge_clients)
        Check("<scenario>/<topic>/placement", ("PIP188-R03",), "where each send was stored could be told"),
        Check("<scenario>/<topic>/<producer>/redirected", ("PIP188-R03",),
              "the producer's sends reach green after the trigger, none given up at the switch"),
        Check("<scenario>/<topic>/<producer>/order", ("PIP188-R01",), "blue stored 1..k, green the rest after it"),
        Check("<scenario>/<topic>/<subscription>/drained-before-green", ("PIP188-R02", "PIP188-R04"),
              "a subscription read all of blue before anything from green"),
        Check("<scenario>/<topic>/<client>/stayed", ("PIP188-R06",), "a topic outside a migrated namespace stayed on blue"),
        Check("<scenario>/<topic>/<producer>/client-follows-redirect", ("PIP188-R16",),
              "a producer blue redirected stored its next sends on green"),
        Check("<scenario>/client-follows-redirect", ("PIP188-R16",),
              "unknown where blue's broker log cannot be read (which producers blue redirected is in it)"),
        Check("<scenario>/migrated-command-sent", ("PIP188-R03",),
              "blue could build the Migrated-Topic command for its target (recorded only where it failed: F-188-13)"),
        Check("<scenario>/<topic>/<producer>/old-client-refused-before-migration", ("PIP188-R13",),
              "a client that cannot follow a redirect is refused before the migration"),
        Check("<scenario>/<topic>/<producer>/<subscription>/trace",
              ("PIP188-R01", "PIP188-R02", "PIP188-R04", "PIP188-R09", "PIP188-R15"),
              "the (producer, subscription) pair's projection is a behaviour of the cluster-migration spec",
              chosen=True),
        # the capture's anomaly classes, from Spark (verdicts.judge_topics)
        Check("<scenario>/spark/lost", ("PIP188-R03",), "no acknowledged message lost"),
        Check("<scenario>/spark/nonmonotonic", ("PIP188-R01",), "per-producer order kept on delivery"),
        Check("<scenario>/spark/duplicate+redelivered_after_ack", ("PIP188-R15",), "no duplicate, no redelivery after ack"),
        # scenario facts (the test modules)
        Check("<scenario>/new-producer-via-blue", ("PIP188-R05",), "a producer created on blue after the migration lands on green"),
        Check("<scenario>/new-subscription-via-blue", ("PIP188-R05",), "a consumer created on blue after it lands on green"),
        Check("<scenario>/blue-refuses-writes", ("PIP188-R05",), "blue stores nothing after the migration"),
        Check("<scenario>/producer-to-green", ("PIP188-R05",), "after blue restarts, a producer still goes to green"),
        Check("<scenario>/<subscription>/consumer-to-green", ("PIP188-R05",), "after blue restarts, a consumer goes to green"),
        Check("<scenario>/no-new-topic-in-blue", ("PIP188-R10",), "blue creates no new topic once migrated"),
        Check("<scenario>/not-recreated", ("PIP188-R10",), "blue does not recreate the migrated topic after a restart"),
        Check("<scenario>/resources-on-green", ("PIP188-R09",), "the topic and its subscriptions exist on green; not applicable where the release has no automatic resource creation (before 3.2.0)"),
        Check("<scenario>/spec-prediction", ("PIP188-R09",), "without auto-creation, what the spec predicts happened"),
        Check("<scenario>/state-local", ("PIP188-R12",), "the migration state is the cluster's own, not replicated"),
        Check("<scenario>/namespace-level-migration", ("PIP188-R06",),
              "blue's answer to namespace-level migration: on a namespace whose bundles are loaded "
              "(namespace-migration, migrated under traffic) and on one just created with no topic "
              "(namespace-fresh); not applicable where the release has no such endpoint"),
        Check("namespace-migration/state-local", ("PIP188-R06", "PIP188-R12"),
              "a namespace migration marks that namespace only, and locally"),
        Check("<scenario>/state-survives", ("PIP188-R12",), "the migration state survives blue's restart"),
        Check("<scenario>/stats-flag", ("PIP188-R11",), "topic stats say the topic migrated"),
        Check("<scenario>/parked/backlog-drained", ("PIP188-R02", "PIP188-R04"),
              "a subscription closed with a backlog on blue drains it before green"),
        Check("<scenario>/producer-held-for-replication", ("PIP188-R08",),
              "the producer moves only once blue's replication backlog is empty"),
        Check("<scenario>/<subscription>/incoming-replication-order", ("PIP188-R07",),
              "replicated messages arrive in order across the switch"),
    ),
)
