"""Every live trace saved as an ITF file of the bundle (issue 49, point 3; conformance/harness/itf_traces.py):
the switch's history replayed through the markdelete-only variant (the sends and first acknowledgements
observed, the snapshot, replication and syncs filled in) is saved beside the trace row, valid ITF, accepted
by ``spec replay``; a state edited in it, or a B markDeletePosition past A's acknowledgements, is REJECTED."""
from __future__ import annotations

from pulsar_conformance.conformance.protocols.tenant_migration import rejudge
from pulsar_conformance.conformance.protocols.tenant_migration.outcome import Plan

from ...support import live_itf
from .made_outcomes import holes

CLEAN = {"valid": True, "events": 20, "anomalies": {"lost": {"count": 0}, "redelivered_after_ack": {"count": 0}}}
ENTRY = rejudge.JUDGED[0]
FILE = "captures/holes/traces/tenant-migration.holes.trace.itf.json"


def _judged(bundle, b_markdelete: str = "9:2") -> list[dict]:
    capture = bundle / "captures" / "holes"
    capture.mkdir(parents=True)
    out = holes(capture, (3, 4, 5), Plan(messages=5, delayed=(3,)), CLEAN)
    out.b_cursor["markDeletePosition"] = b_markdelete
    return live_itf.judge_into(bundle, ENTRY, out)


def test_the_trace_row_names_its_file_and_replay_accepts_it(tmp_path, capsys):
    rows = _judged(tmp_path)
    assert live_itf.files_of(rows, "/trace") == [FILE]
    code, said = live_itf.replay(capsys, tmp_path, FILE)
    assert code == 0 and said["ok"] and said["constants"] == {"MESSAGES": 5}, said
    assert said["actions"][-2:] == ["sync_progress", "switch"] and said["actions"].count("publish") == 5


def test_a_state_edited_in_the_file_is_rejected(tmp_path, capsys):
    _judged(tmp_path)
    planted = live_itf.plant(tmp_path, FILE, "ack_a", [True] * 5)  # message 3 acknowledged, which it never was
    code, said = live_itf.replay(capsys, tmp_path, planted)
    assert code == 1 and not said["ok"] and "no action of tenant-migration" in said["problem"], said


def test_b_past_a_acknowledgements_is_saved_up_to_the_sync_the_spec_refuses(tmp_path, capsys):
    """B's markDeletePosition covers 1-4, A acknowledged 1, 2, 4 and 5 (3 a hole): the sync is not enabled."""
    rows = _judged(tmp_path, b_markdelete="9:4")
    assert next(r for r in rows if r["check"].endswith("/trace"))["verdict"] == "fail"
    code, said = live_itf.replay(capsys, tmp_path, FILE)
    assert code == 1 and said["rejected"]["label"] == "sync_markdelete" and "left the spec" in said["problem"], said
