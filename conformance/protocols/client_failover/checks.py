"""The checks the PIP-121 scenarios record, each with the requirements it judges
(spec/catalog/pip-121.yaml links them; tests/reports/test_checks.py holds the two together)."""
from __future__ import annotations

from ...harness.checks import Check, Checks

CHECKS = Checks(
    area="client-failover",
    where="conformance/protocols/client_failover/checks.py",
    scenarios=("client-failover",),
    checks=(
        Check("client-failover/<scenario>/trace", ("PIP121-R01", "PIP121-R02", "PIP121-R03", "PIP121-R04", "PIP121-R05",
                                                   "PIP121-R08"),
              "the client's observed switches are a behaviour of the client-failover spec", chosen=True),
        Check("client-failover/<scenario>/nothing-acknowledged-lost", ("PIP121-R11",),
              "no acknowledged send lost across the switches (Spark)"),
        Check("client-failover/credentials-on-switch/target-credentials", ("PIP121-R06",),
              "after the switch, sends are acknowledged by a target that accepts only its own token"),
        Check("client-failover/java-credentials-on-switch/target-credentials", ("PIP121-R06",),
              "the Java client, moved by its URL provider with the target's token, is acknowledged there"),
        Check("client-failover/<scenario>/no-needless-reconnect", ("PIP121-R10",),
              "no switch the (Java) client logs is to the cluster it already uses"),
        Check("client-failover/<scenario>/switches-apart", ("PIP121-R09",),
              "consecutive switches at least the spec's smaller threshold (or delay) apart"),
        Check("client-failover/kill-primary/failed-over", ("PIP121-R01",), "the client left a dead primary"),
        Check("client-failover/kill-primary/waited-for-threshold", ("PIP121-R04",),
              "not before failover_threshold failed probes"),
        Check("client-failover/kill-primary/switched-back", ("PIP121-R02",),
              "back to the primary after switch_back_threshold good probes"),
        Check("client-failover/first-secondary-down/probed-in-order", ("PIP121-R03",),
              "secondaries are tried in their configured order"),
        Check("client-failover/secondary-dies/left-dead-secondary", ("PIP121-R08",),
              "a client on a dying secondary moves to a live cluster"),
        Check("client-failover/paused-primary/tcp-probe-blind-spot", ("PIP121-R07",),
              "a paused primary (port open, nothing served) is not seen by the TCP probe"),
        # an explored schedule's (explore_judge.blind_spot): the cluster the client is on made half-dead behind its proxy
        Check("client-failover/<scenario>/tcp-probe-blind-spot", ("PIP121-R07",),
              "a half-dead cluster (its brokers killed, its Pulsar proxy answering) is not seen by the TCP probe"),
        Check("client-failover/provider/follows-provider", ("PIP121-R05",),
              "the client goes where its ServiceInfoProvider points"),
        # the real Java client (test_java_client_failover.py)
        Check("client-failover/java-kill-primary/failed-over", ("PIP121-R01",), "the Java client left a dead primary"),
        Check("client-failover/java-kill-primary/waited-for-delay", ("PIP121-R04",),
              "not before failoverDelay of failed probes (and how many probes that took: F-121-3)"),
        Check("client-failover/java-kill-primary/switched-back", ("PIP121-R02",),
              "back to the primary after switchBackDelay of good probes"),
        Check("client-failover/java-stale-failure/waited-for-delay", ("PIP121-R04",),
              "after a switch-back that followed a failing secondary, still failoverDelay before failing over (F-121-1)"),
        Check("client-failover/java-stale-failure-late/waited-for-delay", ("PIP121-R04",),
              "the same set-up with the primary killed later than one check after the switch-back: failoverDelay "
              "waited (F-121-1's window is that one check)"),
        Check("client-failover/java-stale-failure/probed-in-order", ("PIP121-R03",),
              "with the first secondary down, the Java client goes to the second"),
        Check("client-failover/java-stale-failure/left-dead-secondary", ("PIP121-R08",),
              "a Java client on a dead secondary moves to another that answers (F-121-2)"),
        Check("client-failover/java-paused-primary/tcp-probe-blind-spot", ("PIP121-R07",),
              "a paused primary (port open, nothing served) is not seen by the Java client's TCP probe"),
        Check("client-failover/java-controlled/follows-provider", ("PIP121-R05",),
              "ControlledClusterFailover goes where the HTTP URL provider points"),
    ),
)
