"""The geo-replication explore adapter's offline parts (conformance/protocols/geo_replication/explore.py):
which steps the tenant-migration spec's replication lets it generate, how a schedule closes, and when
GEO-R02's outage counts as reached (the live run is ``explore --live geo-replication``)."""
from __future__ import annotations

from types import SimpleNamespace

from pulsar_conformance.conformance.explore.model import Tracker
from pulsar_conformance.conformance.explore.schedule import Step
from pulsar_conformance.conformance.protocols.geo_replication import explore


def _window(at_cut, at_heal, published):
    return {"green_at_cut": at_cut, "green_at_heal": at_heal, "published": published}


def test_the_adapter_declares_its_profile_vocabulary_and_spec():
    assert explore.Adapter.protocol == "geo-replication"
    assert explore.Adapter.vocabulary is explore.VOCABULARY
    assert explore.Adapter._make_spec().MESSAGES == explore.MESSAGES


def test_sync_progress_is_never_generated_under_the_cut_and_publish_stops_at_the_specs_messages():
    tracker = Tracker(explore.spec(), explore.VOCABULARY)
    assert {s.action for s in tracker.choices()} == {"publish", "sync_progress", "cut", "unload-a", "unload-b"}
    tracker.take(Step("cut", "fault"))
    assert "sync_progress" not in {s.action for s in tracker.choices()}
    assert "heal" in {s.action for s in tracker.choices()}
    for _ in range(explore.MESSAGES):
        tracker.take(Step("publish"))
    assert "publish" not in {s.action for s in tracker.choices()}  # the spec's four messages, four bursts


def test_a_deployment_that_cannot_cut_gets_no_cut_or_heal():
    kept = explore.VOCABULARY.usable(frozenset())
    assert [f.name for f in kept.faults] == ["unload-a", "unload-b"]
    assert explore.VOCABULARY.missing(frozenset()) == ["cut (needs cut)", "heal (needs cut)"]


def test_a_schedule_closes_healed_and_caught_up():
    close = explore.Session.closing
    assert close(None, SimpleNamespace(active=frozenset({"cut"}))) == [Step("heal", "fault"), Step("sync_progress")]
    assert close(None, SimpleNamespace(active=frozenset())) == [Step("sync_progress")]


def test_the_outage_is_reached_only_by_a_silent_cut_with_sends_during_it():
    assert not explore.outage([]).reached and "no cut" in explore.outage([]).why
    nothing_sent = explore.outage([_window(10, 10, 0)])
    assert not nothing_sent.reached and "no burst was published" in nothing_sent.why
    leaked = explore.outage([_window(10, 13, 5)])
    assert not leaked.reached and "kept receiving during the cut (3 messages)" in leaked.why
    silent = explore.outage([_window(10, 13, 5), _window(20, 20, 10)])
    assert silent.reached and "10 sends acknowledged on blue" in silent.why
