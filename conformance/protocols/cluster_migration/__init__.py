"""PIP-188 blue-green migration scenarios: live traffic through a migration, and what it shows
(docs/cluster-migration.md).

The traffic, the capture's evidence and the verdict recorder are the harness's
(conformance/harness/); what is PIP-188's own lives here:
- ``scenario``: one run from traffic to evidence (the ``Outcome``: capture, Spark verdict, admin state);
- ``observe``: the admin state of blue and green, which cluster stored each message, and blue's
  answer to the namespace-level migration call;
- ``judge``: per-topic figures and violations from the capture's rows (redirect time, longest send
  gap, duplicates after redirect);
- ``verdicts``: the checks every PIP-188 scenario records, from the judges' figures, through the
  recorder (check-safe); ``namespace_level``: PIP188-R06's verdict from blue's answer;
- ``checks``: the checks declared once with the requirements they judge (spec/catalog/pip-188.yaml links them);
- ``trace``: a captured run loaded, projected onto the cluster-migration spec and validated;
- ``tls_modes``: the TLS configurations the profile runs in (``certify --migration-tls``) and their hazards;
- ``test_cluster_migration*.py``: the live scenarios (blue and green; with a third region, without
  automatic resource creation, across a blue restart).
"""
