"""Geo-replication between two clusters: the ground the migration protocols stand on.

- ``outcome``: what a run leaves to be judged (``Outcome``: the outage, the deliveries, Spark's verdict
  once the record step took it);
- ``scenario``: the traffic through a replication outage on a deployment, returning the outcome; it judges nothing;
- ``record``: after the scenario: Spark's verdict of the capture (harness/afterwards.py), the outcome
  saved with it, judge.judge's rows recorded;
- ``observe``: the deliveries per subscription, read back from the capture;
- ``judge``: GEO-R01 and GEO-R02 as a pure function of the outcome;
- ``checks``: the checks declared with the requirements they judge (conformance/catalog/geo-replication.yaml);
- ``trace``: the projection onto a spec (none yet: the descriptor names none);
- ``rejudge``: a saved run judged again (``pulsar-conformance judge BUNDLE``): the judge, checks and client
  of each outcome type, as the live scenarios record them;
- ``explore``: the adapter of ``explore --live geo-replication``: bursts on blue, the link cut and healed, unloads,
  tracked by the tenant-migration spec's replication part, each schedule judged by ``judge.judge``
  (conformance/explore/);
- ``test_geo_replication``: the live scenario.
"""
