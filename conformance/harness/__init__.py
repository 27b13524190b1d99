"""Machinery every live scenario shares, whatever the protocol:
- ``traffic``: producers and consumers through the capture, each on its own client or one the
  scenario made (a failover client);
- ``evidence``: the capture's rows and Spark's verdict over them;
- ``recorder``: per-requirement verdicts into the certification run (a failed MUST fails the test,
  an unknown one breaks it; a judge that raises costs only its own verdicts: check-safe);
- ``sources``, ``hazards``, ``findings``: what keeps a failure fair to the product: where a
  requirement comes from (another client's code fails no client but that one), the operator
  mistakes a run is configured with, the findings that explain a failure;
- ``deadline``: every blocking client call under a deadline, a hung one kept as evidence.
PIP-188 (conformance/protocols/cluster_migration/) and PIP-121 (conformance/protocols/client_failover/) build on it.
"""
