"""The checks the tenant-migration scenarios record (spec/catalog/tenant-migration.yaml links them;
tests/reports/test_checks.py holds the two together)."""
from __future__ import annotations

from ...harness.checks import Check, Checks

CHECKS = Checks(
    area="tenant-migration",
    where="conformance/protocols/tenant_migration/checks.py",
    scenarios=("tenant-migration",),
    checks=(
        Check("tenant-migration/<scenario>/nothing-lost", ("TM-R01",),
              "every acknowledged send reached the subscription on A or on B (Spark: lost)"),
        Check("tenant-migration/<scenario>/unacked-delivered-on-b", ("TM-R02",),
              "every message A had not acknowledged is delivered on B after the switch"),
        Check("tenant-migration/<scenario>/duplicates-after-switch", ("TM-R04",),
              "B delivers again nothing A had acknowledged (the measured duplicates, split by cause)"),
        Check("tenant-migration/<scenario>/duplicates-within-spec-bound", ("TM-R04",),
              "what B delivers again is at most what A acknowledged past B's markDeletePosition (the spec's bound)"),
        Check("tenant-migration/<scenario>/markdelete-within-replicated", ("TM-R03",),
              "B's markDeletePosition never passes the last entry B has"),
        Check("tenant-migration/<scenario>/trace", ("TM-R02", "TM-R04"),
              "the run replays through the markdelete-only spec and ends with its duplicates and A's markDeletePosition",
              chosen=True),
        # the seed's step 2 on existing data (TM-S2)
        Check("tenant-migration/<scenario>/start-as-configured", ("TM-R08",),
              "B gets what replicationStartAt says: only what A stored after B was added (latest), or every entry A retains"),
        Check("tenant-migration/<scenario>/existing-backlog-on-b", ("TM-R07",),
              "with the release's setting for existing data, a consumer switched to B gets every message A had not consumed"),
        # the seed's step 5 (TM-S5)
        Check("tenant-migration/<scenario>/b-keeps-every-message", ("TM-R01",),
              "after A is removed from the replication clusters and its topic deleted, B holds every message, where it was"),
        Check("tenant-migration/<scenario>/unacked-delivered-after-cleanup", ("TM-R01",),
              "after the clean-up of A, B delivers every message A had not acknowledged"),
        Check("tenant-migration/<scenario>/b-cursor-kept", ("TM-R09",),
              "the clean-up of A leaves the replicated subscription on B where it was"),
        # the seed's step 4: unloads at the switch (TM-S4)
        Check("tenant-migration/<scenario>/acked-on-a-stored-on-b", ("TM-R01",),
              "every send A acknowledged is on B once A's replicator drained, through unloads of A and B"),
        Check("tenant-migration/<scenario>/stored-once-on-b", ("TM-R10",),
              "B stores each send once with deduplication; without, at most the replicator's unreceipted window again "
              "per unload or restart"),
        # step 4 with a message TTL on A while B is unreachable (TM-S4-ttl)
        Check("tenant-migration/<scenario>/unexpired-on-b", ("TM-R01",),
              "every send still younger than A's message TTL when A's replicator caught up is on B"),
        Check("tenant-migration/<scenario>/backlog-outlives-ttl", ("TM-R11",),
              "the sends older than A's message TTL when B was reachable again are on B too"),
    ),
)
