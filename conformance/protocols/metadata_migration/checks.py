"""The checks the metadata-migration scenarios record (spec/catalog/pip-454.yaml links them;
tests/reports/test_checks.py holds the two together)."""
from __future__ import annotations

from ...harness.checks import Check, Checks

CHECKS = Checks(
    area="metadata-migration",
    where="conformance/protocols/metadata_migration/checks.py",
    scenarios=("metadata-migration",),
    checks=(
        Check("metadata-migration/<scenario>/phases", ("PIP454-R01",),
              "the phases, polled every 50 ms (the status endpoint's; ZooKeeper's migration flag's where only "
              "that ends), go in the PIP's order to an end phase"),
        Check("metadata-migration/<scenario>/writes-refused", ("PIP454-R02",),
              "every namespace, policy and topic write made inside PREPARATION/COPYING is refused; none accepted is lost"),
        Check("metadata-migration/<scenario>/ephemerals-recreated", ("PIP454-R03",),
              "the participant recreates its ephemerals before the copy starts (log); broker and bookie ones are in Oxia "
              "(on a cluster topology, one for every broker and bookie running at the end)"),
        Check("metadata-migration/<scenario>/participants-waited", ("PIP454-R04",),
              "the coordinator waits for every registered participant, on the first run and on a retry after FAILED, "
              "and stays in PREPARATION while a participant paused from before the start is registered"),
        Check("metadata-migration/<scenario>/versions-preserved", ("PIP454-R05",),
              "every persistent ZooKeeper node copied with its value is in Oxia with its version and modification "
              "count (read outside Pulsar); a node with another value is a write the copy missed, R02's evidence"),
        Check("metadata-migration/<scenario>/data-plane", ("PIP454-R06",),
              "the traffic captured through the migration: Spark finds nothing lost"),
        Check("metadata-migration/<scenario>/rollback", ("PIP454-R07",),
              "a failure (Oxia killed, the coordinator killed, an unreachable target) ends FAILED and writes work again"),
        Check("metadata-migration/<scenario>/after-cutover", ("PIP454-R08",),
              "after COMPLETED metadata writes are enabled on the target: every kind of write is accepted, a "
              "conditional update works, all is there on oxia:// after a restart on it"),
        Check("metadata-migration/<scenario>/rest", ("PIP454-R09",),
              "the migration starts over REST and the status shows the phase and the target, the end phase the "
              "broker logged and ZooKeeper's flag held included"),
        Check("metadata-migration/<scenario>/read-only-window", ("PIP454-R10",),
              "the read-only window (PREPARATION seen to COMPLETED seen) is under 30 s; the figure is in the report"),
        Check("metadata-migration/<scenario>/other-target", ("PIP454-R11",),
              "a target store other than Oxia is accepted"),
    ),
)
