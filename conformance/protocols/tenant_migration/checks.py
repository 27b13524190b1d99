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
    ),
)
