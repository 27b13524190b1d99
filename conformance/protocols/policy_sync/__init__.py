"""PIP-136 policy sync on real clusters (docs/policy-sync.md, docs/findings.md F-136-*).

- ``outcome``: what a run leaves to be judged (``Outcome``: steps and results, final values, the
  values over time, the events each cluster consumed; ``Policy``, ``Event``, ``Step``);
- ``scenario``: one run on a fresh namespace (steps, quiescence), returning the outcome, judged by nothing;
- ``record``: after the scenario, its outcome's rows from ``judge`` recorded (what the live tests call);
- ``observe``: each cluster's value over REST, the sync topic's events, the synchronizer's stats;
- ``judge``: every verdict as a pure function of the outcome;
- ``checks``: the checks declared with the requirements they judge (spec/catalog/pip-136.yaml);
- ``trace``: a counterexample of the policy-sync spec mapped onto the real clusters, and the spec's
  prediction for the order that ran;
- ``rejudge``: a saved run judged again (``pulsar-conformance judge BUNDLE``): the judge, checks and client
  of each outcome type, as the live scenarios record them;
- ``clusters``: the three clusters the live tests share (started, synced by the setting), a fixture;
- ``explore``: the adapter of ``explore --live policy-sync`` (the spec's writes and deletes, held links,
  clocks and restarts in generated schedules, judged by ``judge``);
- ``test_policy_sync``: the live scenarios.
"""
