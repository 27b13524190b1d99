"""Tenant migration over geo-replication, live: a replicated subscription with ack holes on A,
the consumers switched to B, the duplicates measured against what the spec predicts; and the seed's
steps 2 (replication switched on over existing data), 4 (the unloads at the switch) and 5
(the clean-up of A) as an operator runs them.

- ``outcome``: what a run leaves to be judged (``Outcome``: plan, cursors, B's polls, B's positions, capture;
  ``StartOutcome`` for step 2, ``CleanupOutcome`` for step 5, ``UnloadOutcome`` for step 4's unloads);
- ``scenario``: one switch run on a deployment (publish, ack with holes, settle, switch, drain), returning the outcome,
  and what every run of the package shares (clients and capture, B's subscription then A's consumer and producer,
  the drain, the captured rows); no scenario judges: it records (issue 49);
- ``existing_data``: step 2 on existing data: A holds data before B is added, with a replicationStartAt;
- ``cleanup``: step 5 after the switch: A removed from the replication clusters, A's topic and namespace deleted;
- ``unloads``: step 4's unloads of A and B while A's replicator carries a backlog and producers write;
- ``observe``: the cursors on A and B, A's replicator, where B stored each message;
- ``record``: after a scenario, Spark's verdict over its capture (harness/afterwards.py) and the rows of its
  outcome type's judge recorded (the test module calls it);
- ``judge``: the figures and every verdict row, as pure functions of the outcome;
- ``checks``: the checks declared with the requirements they judge (spec/catalog/tenant-migration.yaml);
- ``trace``: the run replayed through the spec's markdelete-only variant;
- ``rejudge``: a saved run judged again (``pulsar-conformance judge BUNDLE``): the judge, checks and client
  of each outcome type, as the live scenarios record them;
- ``explore``: the adapter of ``explore --live tenant-migration``: the spec's tester actions and the faults
  (a cut A -> B, unloads) performed on A and B, each schedule judged by ``judge.judge`` (conformance/explore/);
- ``test_tenant_migration``: the live scenarios.

Roles and names: blue (A) and green (B) are the suite's roles (``deployment.clusters[role]``, the
capture's cluster column); Pulsar is always given, and keyed by, a cluster's ``.name`` (issue 32: a
user's deployment maps them to clusters named, say, us-east and us-west).
"""
