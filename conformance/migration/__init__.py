"""PIP-188 blue-green migration scenarios: live traffic through a migration, and what it shows.

- ``clients``: one pulsar Client per producer/consumer, with its C++ log recorded, so each
  handle's redirect (``... is migrated to ...``, ``Created ... on broker``) is an observation;
- ``workload``: topics, subscriptions and the threads that drive them through the capture;
- ``observe``: the admin state of blue and green, and which cluster stored each message;
- ``judge``: the per-requirement checks and the figures (redirect time, longest send gap,
  duplicates after redirect);
- ``trace``: the observed history of one producer and one subscription replayed in the
  cluster-migration spec.
"""
