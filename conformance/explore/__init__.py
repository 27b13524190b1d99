"""Live exploration: the specs drive real clusters (``pulsar-conformance explore --live PROFILE``; docs/exploring.md).

A spec's actions are of two kinds: those the tester performs (operations and faults) and those Pulsar
performs (replication, redirects, switches), which are observed, never chosen. Hypothesis's stateful
machinery picks each next tester action among those the spec enables in the state the tester's own steps
led to; a protocol's adapter performs it on a deployment shared by every schedule (each schedule in fresh
namespaces and topics, every fault healed before the next) and records it in the history; after the
schedule, the protocol's own judges (the ones certify runs) and the spec's trace validation judge what
it recorded. A failing schedule is shrunk by Hypothesis, each candidate replayed live, and the smallest
kept as a file ``--replay`` runs again.

- ``schedule``: a step, a schedule, the history a schedule leaves; their files (JSON, ITF);
- ``model``: the spec state a schedule's steps lead to, which tester actions it enables, coverage;
- ``machine``: the Hypothesis machine over an adapter, the budgeted search, shrinking, replays;
- ``settings``: what the certify parent hands the explore test (one file, the request's);
- ``results``: what a search leaves in the bundle (schedules.jsonl, failing/, itf/, explore.json);
- ``test_explore_live``: the live test certify's child runs for an explore request (the command is
  reports/runner/explore_cli.py: it builds certify's request, as certify does).
"""
