"""The checks the policy-sync scenarios record (spec/catalog/pip-136.yaml links them;
tests/reports/test_checks.py holds the two together)."""
from __future__ import annotations

from ...harness.checks import Check, Checks

CHECKS = Checks(
    area="policy-sync",
    where="conformance/protocols/policy_sync/checks.py",
    scenarios=("policy-sync",),
    checks=(
        Check("policy-sync/<scenario>/converged", ("PIP136-R01",),
              "after quiescence every cluster's admin REST answers the same value (quotes them and the events)"),
        Check("policy-sync/<scenario>/newest-wins", ("PIP136-R02",),
              "every cluster holds the value of the event with the newest timestamp (when it is unique)"),
        Check("policy-sync/<scenario>/tie-to-smaller-source", ("PIP136-R03",),
              "two events with one timestamp from two clusters: every cluster holds the smaller source's"),
        Check("policy-sync/<scenario>/redelivery-no-effect", ("PIP136-R04",),
              "a cluster's synchronizer consuming every event again leaves its value as it was"),
        Check("policy-sync/<scenario>/publish-before-write", ("PIP136-R05",),
              "a write whose event cannot be published is not applied locally"),
        Check("policy-sync/<scenario>/one-consumer-per-cluster", ("PIP136-R06",),
              "the synchronizer's subscription is Failover with one active consumer on every cluster"),
        Check("policy-sync/<scenario>/enabled-by-setting", ("PIP136-R07",),
              "no sync before configurationMetadataSyncEventTopic is set; a write reaches every cluster after"),
    ),
)
