"""PIP-188 blue-green migration scenarios: live traffic through a migration, and what it shows.

The traffic, the capture's evidence and the verdict recorder are the harness's
(conformance/harness/); what is PIP-188's own lives here:
- ``observe``: the admin state of blue and green, and which cluster stored each message;
- ``judge``: the per-requirement checks and the figures (redirect time, longest send gap,
  duplicates after redirect);
- ``scenario``: one run from traffic to evidence (capture, Spark verdict, admin state);
- ``trace``: a run projected onto the cluster-migration spec and validated;
- ``verdicts``: the checks every PIP-188 scenario records.
"""
