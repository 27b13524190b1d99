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
    assert {s.action for s in tracker.choices()} == {"publish", "sync_progress", "cut", "cut-both", "unload-a",
                                                     "unload-b", "dedup-a", "dedup-b", "second-producer"}
    tracker.take(Step("cut", "fault"))
    assert "sync_progress" not in {s.action for s in tracker.choices()}
    assert "heal" in {s.action for s in tracker.choices()}
    for _ in range(explore.MESSAGES):
        tracker.take(Step("publish"))
    assert "publish" not in {s.action for s in tracker.choices()}  # the spec's four messages, four bursts


def test_a_deployment_that_cannot_cut_gets_no_cut_or_heal():
    kept = explore.VOCABULARY.usable(frozenset())
    assert [f.name for f in kept.faults] == ["unload-a", "unload-b", "dedup-a", "dedup-b", "second-producer"]
    assert explore.VOCABULARY.missing(frozenset()) == ["cut (needs cut)", "heal (needs cut)", "cut-both (needs cut)",
                                                       "heal-both (needs cut)"]


def test_one_cut_at_a_time_either_way_and_each_switch_once():
    tracker = Tracker(explore.spec(), explore.VOCABULARY)
    tracker.take(Step("cut-both", "fault"))
    actions = {s.action for s in tracker.choices()}
    assert "heal-both" in actions and not {"cut", "cut-both", "heal", "sync_progress"} & actions
    assert explore.Session.closing(None, SimpleNamespace(active=frozenset({"cut-both"}))) == [
        Step("heal-both", "fault"), Step("sync_progress")]
    tracker.take(Step("heal-both", "fault"))
    for once in ("dedup-b", "second-producer"):
        tracker.take(Step(once, "fault"))
        assert once not in {s.action for s in tracker.choices()}
    assert "cut" in {s.action for s in tracker.choices()}


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


class _Faults:
    def __init__(self):
        self.calls = []

    def cut(self, a, b, one_way=False):
        self.calls.append(("cut", a, b, one_way))

    def heal(self, a, b, one_way=False):
        self.calls.append(("heal", a, b, one_way))


class _Admin:
    def __init__(self, answer):
        self.answer, self.asked = answer, []

    @staticmethod
    def namespace_path(namespace):
        return f"/admin/v2/namespaces/{namespace}"

    def request(self, method, path, json=None):
        self.asked.append((method, path, json))
        if isinstance(self.answer, Exception):
            raise self.answer
        return self.answer


def _session(monkeypatch, admin_answer=None):
    monkeypatch.setattr(explore, "CUT_SETTLE_S", 0.0)
    session = explore.Session.__new__(explore.Session)
    faults, admin = _Faults(), _Admin(admin_answer)
    cluster = SimpleNamespace(name="green", admin=lambda: admin)
    session.adapter = SimpleNamespace(deployment=SimpleNamespace(faults=faults), blue=cluster, green=cluster)
    session.topic, session.counts, session.windows, session.cut = "persistent://t/ns/geo", {"green": 3}, [], None
    return session, faults, admin


def test_a_cut_both_ways_is_healed_both_ways_and_counts_as_an_outage_window(monkeypatch):
    session, faults, _ = _session(monkeypatch)
    session._cut_both(Step("cut-both", "fault"), entry := SimpleNamespace(said=""))
    session._heal_both(Step("heal-both", "fault"), SimpleNamespace(said=""))
    assert faults.calls == [("cut", "blue", "green", False), ("heal", "blue", "green", False)]
    assert session.windows == [{"green_at_cut": 3, "published": 0, "green_at_heal": 3, "kind": "cut-both"}]
    assert session.cut is None and "green had 3" in entry.said
    session._cut(Step("cut", "fault"), SimpleNamespace(said=""))
    session._heal(Step("heal", "fault"), SimpleNamespace(said=""))
    assert faults.calls[2:] == [("cut", "blue", "green", True), ("heal", "blue", "green", True)]


def test_deduplication_is_switched_on_for_the_schedules_namespace_and_a_refusal_is_the_steps_error(monkeypatch):
    session, _, admin = _session(monkeypatch, admin_answer=None)
    session._dedup_b(Step("dedup-b", "fault"), entry := SimpleNamespace(result="ok", said=""))
    assert admin.asked == [("POST", "/admin/v2/namespaces/t/ns/deduplication", True)]
    assert entry.result == "ok" and "deduplication on for t/ns on green" in entry.said
    from pulsar_conformance.fixtures.deploy.admin import AdminError

    session, _, admin = _session(monkeypatch, admin_answer=AdminError("POST", "http://x", 403, "not allowed"))
    session._dedup_a(Step("dedup-a", "fault"), entry := SimpleNamespace(result="ok", said=""))
    assert entry.result == "error" and "refused" in entry.said
