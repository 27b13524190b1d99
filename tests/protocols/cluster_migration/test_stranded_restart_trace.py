"""A real run of Pulsar 4.2.4 (pulsar-client 3.13.0) in which blue restarted while subscription
``parked`` still had 207 unread messages there (docs/findings.md F-188-11): the spec as the seed
has it rejects the trace, and the ``restart-strands`` variant, Pulsar's restart as modelled,
accepts it. Both directions matter: the first is the finding, the second that the model explains it.
"""
from __future__ import annotations

from pathlib import Path

from pulsar_conformance.conformance.protocols.cluster_migration import judge, outcome

DATA = Path(__file__).resolve().parents[2] / "data" / "migration" / "stranded-restart-3.13.0"


def _parked(variant: str) -> dict:
    return next(r for r in judge.trace_results(outcome.load_run(DATA), variant=variant)
                if r["modelled"] and r["check"].endswith("/parked/trace"))


def test_the_seeds_model_rejects_the_stranded_backlog():
    verdict = _parked("auto-create")
    assert verdict["ok"] is False, verdict["evidence"]
    assert "from green" in verdict["evidence"], verdict["evidence"]


def test_the_restart_strands_variant_explains_it():
    verdict = _parked("restart-strands")
    assert verdict["ok"] is True, verdict["evidence"]
    assert "blue_restart" in verdict["evidence"], verdict["evidence"]


def test_the_subscription_that_kept_reading_is_a_behaviour_of_both():
    for variant in ("auto-create", "restart-strands"):
        verdict = next(r for r in judge.trace_results(outcome.load_run(DATA), variant=variant)
                       if r["modelled"] and r["check"].endswith("/steady/trace"))
        assert verdict["ok"] is True, (variant, verdict["evidence"])
