"""PIP-454 metadata store migration (ZooKeeper to Oxia) on a real Pulsar 4.2+ standalone
(docs/metadata-migration.md).

- ``outcome``: what a run leaves to be judged (``Outcome``, its ``Plan``; ``to_json`` the record the judges read);
- ``scenario``: one migration on a deployment (seed, traffic, probes, start, a fault), returning the outcome
  it recorded (no verdict: issue 49);
- ``record``: after a scenario, Spark's verdict over its capture (harness/afterwards.py) and judge.judge's
  rows recorded (the test module calls it);
- ``observe``: the phase over REST and the metadata writes probing the cluster;
- ``stores``: every path of ZooKeeper and Oxia with its value and version, and their comparison;
- ``site``: where a run migrates (the source and target stores and the hands on them), on the suite's own
  deployment or an operator's (an external deployment file's ``metadata_migration:`` and fault commands);
- ``judge``: every verdict as a pure function of the outcome;
- ``checks``: the checks declared with the requirements they judge (spec/catalog/pip-454.yaml);
- ``trace``: the phases and faults observed, projected onto the metadata-migration spec;
- ``rejudge``: a saved run judged again (``pulsar-conformance judge BUNDLE``): the judge, checks and client
  of each outcome type, as the live scenarios record them;
- ``explore``: ``explore --live metadata-migration``'s adapter: a fresh standalone on ZooKeeper with an Oxia
  server per schedule (a migrated cluster cannot be migrated again), judged by judge.judge;
- ``bench``: ``bench metadata-migration`` (the read-only window against the amount of metadata);
- ``test_metadata_migration``: the live scenarios.
"""
