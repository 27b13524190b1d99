"""Machinery every protocol package shares (conformance/protocols/<p>/: outcome, scenario, observe,
judge, checks, trace; docs/adding-a-protocol.md), whatever the protocol:
- ``traffic``: producers and consumers through the capture, each on its own client or one the
  scenario made (a failover client); ``handles``: a producer or consumer as data, for an outcome;
- ``evidence``: the capture's rows and Spark's verdict over them; ``history``: the rows asked per
  topic, producer and subscription; ``timeline``: a scenario's labelled instants and how it ends;
  ``afterwards``: Spark's verdict taken after the scenario, from what it recorded (each protocol's
  record step, before its judge: a scenario judges nothing);
- ``outcome``: a protocol's outcome saved beside its capture and loaded back, so its judge runs offline;
- ``rows``: what a judge returns (pure: no cluster, no recording), check-safe without a recorder;
- ``recorder``: the rows into the certification run's checks (a failed MUST fails the test, an
  unknown one breaks it); ``checks``: a protocol's checks declared once with the requirements they judge;
  ``rejudge``: a saved outcome judged again through the same recorder without pytest (``judge BUNDLE``);
- ``sources``, ``hazards``, ``findings``: what keeps a failure fair to the product: where a
  requirement comes from (another client's code fails no client but that one), the operator
  mistakes a run is configured with, the findings that explain a failure;
- ``projection``: a run's observed steps checked against a spec with hidden steps (trace.py's tool);
  ``itf_traces``: the spec behaviour a trace check found, saved by the recorder as an ITF file of the
  bundle beside its row, so ``spec replay`` checks it again;
  ``switchover``: the figures of a switch (redirect time, send gaps, duplicates after it);
- ``deadline``: every blocking client call under a deadline, a hung one kept as evidence;
- ``java_harness``: the suite's Java client program (Harness.java, beside it) and the command every mode of it
  starts with; ``java_release``: which pulsar-client-original release it runs, its jars from Maven Central;
- ``java_process``: what the suite's Java client program shares across its modes (credentials by
  environment, its event lines as capture rows); ``java_consumer``: that program draining a
  subscription, for a scenario that moves a consumer and judges the Java client with the same judge;
  ``java_traffic``: that program running a scenario's producers, consumers and readers, with the
  face of ``traffic`` a scenario drives (PIP-188's Java client scenario);
- ``replication``: a source cluster's geo-replicator to a target as its topic stats show it, and whether the
  target has caught up (geo-replication's and tenant migration's reads);
- ``slog``: Pulsar 5's slog attributes (a topic, a producer, a URL) read back from a broker's or a Java
  client's log line, where the suite's log patterns print them after the message.
"""
