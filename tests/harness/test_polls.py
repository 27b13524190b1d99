"""The polls of the protocol scenarios that go through wait_until: what each answers at its end."""
from __future__ import annotations

import threading
import time

from pulsar_conformance.conformance.protocols.metadata_migration import observe as mm_observe
from pulsar_conformance.conformance.protocols.tenant_migration import observe as tm_observe


def test_cursor_polls_sample_until_their_end(monkeypatch):
    monkeypatch.setattr(tm_observe, "cursor", lambda cluster, topic: {"markDeletePosition": cluster,
                                                                        "lastConfirmedEntry": "1:9"})
    series: list[dict] = []
    # an end already past (no link held): nothing sampled, as before
    assert tm_observe.poll(series, "a", "b", "t", until_ns=time.time_ns() - 1) is False and series == []
    # 0.3 s at 0.5 s a poll: sampled at once, then once more at the end at most
    assert tm_observe.poll(series, "a", "b", "t", until_ns=time.time_ns() + int(0.3e9)) is False
    assert 1 <= len(series) <= 2 and series[0]["a"] == "a" and series[0]["b_has"] == "1:9"


def test_cursor_polls_stop_once_done_holds(monkeypatch):
    monkeypatch.setattr(tm_observe, "cursor", lambda cluster, topic: {"markDeletePosition": "1:1"})
    series: list[dict] = [{"b": "old"}]  # an earlier poll's samples are not this one's
    started = time.monotonic()
    assert tm_observe.poll(series, "a", "b", "t", until_ns=time.time_ns() + int(30e9),
                             done=lambda mine: len(mine) >= 2) is True
    assert len(series) == 3 and time.monotonic() - started < 5


def test_phases_wait_for_answers_the_phase_reached_or_none():
    phases = mm_observe.Phases(admin=None)
    assert phases.wait_for(("COMPLETED", "FAILED"), 0.1) is None
    threading.Timer(0.1, lambda: phases.seen.append({"ns": 0, "phase": "COMPLETED", "target": None})).start()
    assert phases.wait_for(("COMPLETED", "FAILED"), 5) == "COMPLETED"
