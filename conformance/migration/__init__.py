"""PIP-188 blue-green migration scenarios: live traffic through a migration, and what it shows.

- ``workload``: topics, subscriptions and the threads that drive them through the capture;
- ``observe``: the admin state of blue and green, and which cluster stored each message;
- ``judge``: the per-requirement checks and the figures (redirect time, longest send gap,
  duplicates after redirect);
- ``scenario``: one run from traffic to evidence (capture, Spark verdict, admin state).
"""
