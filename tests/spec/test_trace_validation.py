"""Trace validation with hidden actions (interpreter.validate): an observed trace is a behaviour
of the spec when hidden steps can be filled in between the observed ones."""
from __future__ import annotations

import pytest

from pulsar_conformance.spec.core.interpreter import Observed, replay, validate
from pulsar_conformance.spec.core.model import BoolT, IntT, Spec, action
from pulsar_conformance.spec.protocols.client_failover import ClientFailover
from pulsar_conformance.spec.protocols.cluster_migration import BLUE, GREEN, ClusterMigration

# what a capture cannot see of a migration: the admin call, blue's task, replication, policy sync
MIGRATION_HIDDEN = ("admin_migrate", "migration_task", "replicate", "policy_sync", "remote_down", "remote_up_again")


def migration(**kw) -> ClusterMigration:
    # no incoming-replication source where the spec has one: these traces have a local producer only
    extra = {"REMOTE": 0} if "REMOTE" in ClusterMigration.CONSTANTS else {}
    return ClusterMigration(**{**extra, **kw})


def stored_on(side: str, n: int) -> Observed:
    def check(before, after):
        at = getattr(before, f"{side}_len")
        return getattr(after, f"{side}_len") == at + 1 and getattr(after, side)[at] == n

    return Observed("publish", check, f"message {n} stored on {side}")


def test_without_hidden_actions_it_agrees_with_replay():
    spec = ClientFailover(variant="cpp")
    good = ["go_down(c=primary)"]
    assert validate(spec, good).ok and replay(spec, good).ok
    bad = ["go_down(c=primary)", "go_down(c=primary)"]
    result = validate(spec, bad)
    assert not result.ok and result.failed_step == 2 and result.steps == 1 and not replay(spec, bad).ok
    assert result.hidden_steps == 0 and result.labels == ["go_down(c=primary)"]


def test_the_search_fills_in_the_hidden_migration_steps():
    """The capture sees sends and deliveries; the admin call, blue's task and the replicator
    are hidden. Replay alone rejects the trace at the redirect; the search finds them."""
    spec = migration(MESSAGES=2)
    observed = ["publish", "producer_redirect", "publish", "consume", "consumer_redirect", "consume"]
    assert not replay(spec, observed).ok  # producer_redirect needs a terminated topic
    result = validate(spec, observed, hidden=MIGRATION_HIDDEN, max_hidden=4)
    assert result.ok, result.problem
    assert result.steps == len(observed) and result.broken == []
    # admin_migrate, migration_task and one replicate (blue's replicator has message 1) are needed
    assert result.hidden_steps == 3
    hidden = [label for label in result.labels if label in MIGRATION_HIDDEN]
    assert sorted(hidden) == ["admin_migrate", "migration_task", "replicate"]
    assert [label for label in result.labels if label not in MIGRATION_HIDDEN] == observed
    assert hidden.index("admin_migrate") < hidden.index("migration_task")
    assert len(result.states) == len(result.labels) + 1
    final = result.states[-1]
    assert final.pside == GREEN and final.sside == GREEN and final.blue == (1, 0) and final.green == (2, 0)


def test_the_bound_is_per_gap_between_observed_steps():
    spec = migration(MESSAGES=2)
    observed = [stored_on("blue", 1), "producer_redirect"]
    result = validate(spec, observed, hidden=MIGRATION_HIDDEN, max_hidden=1)
    assert not result.ok and result.failed_step == 2 and "within 1 hidden step (" in result.problem
    # three hidden steps in all, but admin_migrate fits in the gap before the send
    result = validate(spec, observed, hidden=MIGRATION_HIDDEN, max_hidden=2)
    assert result.ok and result.hidden_steps == 3 and result.labels[0] == "admin_migrate"


def test_a_green_delivery_before_blue_is_drained_is_rejected_with_the_states_reached():
    spec = migration(MESSAGES=2)
    observed = [stored_on("blue", 1), "producer_redirect", stored_on("green", 2), "consumer_redirect", "consume"]
    result = validate(spec, observed, hidden=MIGRATION_HIDDEN, max_hidden=6)
    assert not result.ok
    assert result.failed_step == 4 and result.steps == 3
    assert "consumer_redirect is not enabled in any of" in result.problem
    # every state the spec can be in there still has message 1 unread in blue
    assert result.reached and all(s.blue_cursor < s.blue_len and s.sside == BLUE for s in result.reached)
    # the witness goes up to the last accepted step
    assert result.labels[-1] == "publish" and result.states[-1].green_len == 1
    # unobserved, a "publish" may be one blue refused: then blue is empty and the redirect fine
    loose = ["publish", "producer_redirect", "publish", "consumer_redirect", "consume"]
    assert validate(spec, loose, hidden=MIGRATION_HIDDEN, max_hidden=6).ok


def test_an_observation_of_the_effect_must_match():
    """``publish`` is enabled after the redirect, but it stores on green: an observed store on blue fails."""
    spec = migration(MESSAGES=2)
    observed = [stored_on("blue", 1), "producer_redirect", stored_on("blue", 2)]
    result = validate(spec, observed, hidden=MIGRATION_HIDDEN, max_hidden=6)
    assert not result.ok and result.failed_step == 3
    assert "but in none of them does what was observed" in result.problem
    assert "message 2 stored on blue" in result.problem
    assert validate(spec, [stored_on("blue", 1), "producer_redirect", stored_on("green", 2)],
                    hidden=MIGRATION_HIDDEN, max_hidden=6).ok


def test_an_observed_blue_store_excludes_an_early_termination():
    """A refused send is a ``publish`` too; the check keeps only states where blue stored it."""
    spec = migration(MESSAGES=2)
    refused = Observed("publish", lambda before, after: after.refused, "refused")
    result = validate(spec, [refused], hidden=MIGRATION_HIDDEN, max_hidden=2)
    assert result.ok and result.hidden_steps == 2  # admin_migrate, migration_task
    assert not validate(spec, [refused], hidden=MIGRATION_HIDDEN, max_hidden=1).ok


class Fork(Spec):
    """Two hidden choices; only the second lets ``b`` happen after ``a``."""

    name = "fork"
    VARIANTS = {"only": ""}
    DEFAULT_VARIANT = "only"

    def variables(self):
        return {"x": IntT(0, 2), "done": BoolT()}

    def init(self, k):
        return {"x": 0, "done": False}

    @action()
    def left(self, s, k):
        return s.x == 0, {"x": 1}

    @action()
    def right(self, s, k):
        return s.x == 0, {"x": 2}

    @action()
    def a(self, s, k):
        return k.And(s.x > 0, k.Not(s.done)), {"done": True}

    @action()
    def b(self, s, k):
        return k.And(s.done, s.x == 2), {"x": 2}


def test_every_consistent_state_is_kept_not_only_the_first_found():
    """A search that committed to the first hidden fit (``left``) would reject ``b``."""
    result = validate(Fork(), ["a", "b"], hidden=("left", "right"), max_hidden=1)
    assert result.ok and result.labels == ["right", "a", "b"] and result.hidden_steps == 1


def test_invariants_broken_along_the_way_are_reported():
    """A mutant that redirects the producer while blue's replicator has a backlog: the trace is
    allowed by that (wrong) spec, and the witness shows the invariant it breaks."""
    spec = migration(MESSAGES=2, mutant="ignore-replication-backlog")
    observed = [stored_on("blue", 1), "producer_redirect", stored_on("green", 2)]
    result = validate(spec, observed, hidden=MIGRATION_HIDDEN, max_hidden=4)
    assert result.ok
    assert (2, "remote_complete_before_redirect") in result.broken
    assert "replicate" not in result.labels  # the fewest hidden steps: none for the replicator


def test_bad_arguments_are_refused():
    spec = migration(MESSAGES=2)
    with pytest.raises(ValueError, match="not actions of"):
        validate(spec, ["publish"], hidden=("no_such_action",))
    # an action may be hidden and observed: the observed occurrence is checked, hidden ones fill gaps
    assert validate(spec, ["admin_migrate"], hidden=("admin_migrate",)).ok
    result = validate(spec, ["jump"])
    assert not result.ok and result.failed_step == 1 and "no action 'jump'" in result.problem
