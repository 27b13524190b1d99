"""PIP-188 blue-green migration scenarios: live traffic through a migration, and what it shows
(docs/cluster-migration.md). The traffic, the capture's evidence and the verdict recorder are the
harness's (conformance/harness/); what is PIP-188's own lives here:

- ``outcome``: what a scenario leaves to be judged (``Outcome``: per topic blue's and green's state and
  where each send was stored; the clients, blue's log lines, what the scenario read after its traffic,
  Spark's verdict once the record step took it), the figures as the judge computes them
  (``TopicFigures``), and the run as the trace reads it (``CapturedRun``);
- ``scenario``: one run from traffic to outcome on a deployment; it judges nothing;
- ``observe``: the admin state of blue and green, blue's answer to the namespace-level migration
  call, blue's log, and the admin calls that migrate;
- ``judge``: every verdict row as a pure function of the outcome: the figures (computed from the
  record, ``with_figures``), the checks every scenario shares, each scenario's own, the trace validation per pair;
- ``checks``: the checks declared once with the requirements they judge (spec/catalog/pip-188.yaml links them);
- ``trace``: one (producer, subscription) projected onto the cluster-migration spec and validated;
- ``rejudge``: a saved run judged again (``pulsar-conformance judge BUNDLE``): the judge, checks and client
  of each outcome type, as the live scenarios record them;
- ``record``: what the live suites share after a scenario: the record step (Spark's verdict of the capture,
  harness/afterwards.py; the outcome saved; the figures added to migration.json; judge.judge's rows
  recorded), and the precondition of the namespace-level scenarios (does the release have namespace-level migration?);
- ``explore``: ``explore --live cluster-migration``'s adapter: schedules on one shared blue and green, each
  migrating a namespace of its own (never the cluster), judged by the namespace-level scenario's judge;
- ``tls_modes``: the TLS configurations the profile runs in (``certify --migration-tls``) and their hazards;
- ``test_cluster_migration``, ``test_cluster_migration_regions``: the live scenarios (blue and green;
  with a third region, without automatic resource creation, across a blue restart);
- ``levels``: the two levels (namespace, cluster) as both clients' modules run them: blue and green, the
  loads, the triggers, the clients made through blue, what is read after;
- ``test_java_cluster_migration``: the namespace- and cluster-level scenarios through the Java client
  (harness/java_traffic.py);
- ``clients``: which client drives the scenarios (``certify --migration-client``), and ``conftest``, which
  deselects the other client's modules (the Java one runs only when asked for).
"""
