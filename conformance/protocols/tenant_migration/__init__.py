"""Tenant migration over geo-replication, live: a replicated subscription with ack holes on A,
the consumers switched to B, the duplicates measured against what the spec predicts.

- ``outcome``: what a run leaves to be judged (``Outcome``: plan, cursors, B's polls, figures, capture);
- ``scenario``: one run on a deployment (publish, ack with holes, settle, switch, drain), returning the outcome;
- ``observe``: the cursors on A and B, A's replicator, where B stored each message;
- ``judge``: the figures and every verdict row, as pure functions of the outcome;
- ``checks``: the checks declared with the requirements they judge (spec/catalog/tenant-migration.yaml);
- ``trace``: the run replayed through the spec's markdelete-only variant;
- ``test_tenant_migration``: the live scenarios.
"""
