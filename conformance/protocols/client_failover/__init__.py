"""PIP-121 client cluster failover on real clusters (docs/client-failover.md).

- ``outcome``: what a scenario leaves to be judged (``Outcome``: the client's ``FailoverConfig``, the
  faults and switches as ``Event``s, the Java client's log, backlogs, R06's ``Credentials``; Spark's verdict,
  added by ``record``);
- ``scenario``: one scenario on the deployment (a client, its traffic, faults at chosen moments), returning the
  outcome it saved, judged by nothing;
- ``observe``: what each cluster still holds after the client ended, and what the target stored;
- ``judge``: every verdict row of a scenario, as pure functions of the outcome;
- ``checks``: the checks declared with the requirements they judge (spec/catalog/pip-121.yaml);
- ``trace``: the observed faults and switches projected onto the client-failover spec and validated;
- ``rejudge``: a saved run judged again (``pulsar-conformance judge BUNDLE``): the judge, checks and client
  of each outcome type, as the live scenarios record them;
- ``client``: the Python failover client and where it is attached over time;
- ``java_client``: the real Java client's failover mode (conformance/harness/Harness.java in a JVM, started by
  harness/java_harness.py on the release harness/java_release.py resolves) as a capture source; ``java_log``: its
  own log read (failed probes, switches);
- ``credentials``: the PIP121-R06 scenarios (clusters with different token secrets);
- ``record``: what the two live suites share: a scenario run, then what is judged after it (Spark's verdict over
  the capture, the trace's validation) saved with its outcome, and judge.judge's rows recorded; ``conftest``: their
  deployment;
- ``test_client_failover``, ``test_java_client_failover``: the live scenarios, Python and Java client;
- ``explore``: the live adapter of ``explore --live client-failover`` (the tester's faults on the clusters,
  the Java client's switches observed); ``explore_judge``: the pure judge of an explored schedule (judge.py's
  ``common``, the trace with the checks a fixed-rate client must have made) and its ``ExploredOutcome``.
"""
