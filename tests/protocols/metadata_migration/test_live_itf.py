"""Every live trace saved as an ITF file of the bundle (issue 49, point 3; conformance/harness/itf_traces.py):
the PIP-454 phases row validates the observed phases against both variants, and leaves one file per variant,
named by the row, valid ITF, accepted by ``spec replay``; a state edited in one, or phases the spec refuses,
are REJECTED (exit 1)."""
from __future__ import annotations

from pulsar_conformance.conformance.protocols.metadata_migration import rejudge

from ...support import live_itf
from .made_outcomes import S, as_the_pip_tells_it

ENTRY = rejudge.JUDGED[0]
FILES = ["captures/migrate/traces/metadata-migration.migrate.phases.as-proposed.itf.json",
         "captures/migrate/traces/metadata-migration.migrate.phases.as-implemented.itf.json"]


def _judged(bundle, phases=None) -> list[dict]:
    capture = bundle / "captures" / "migrate"
    capture.mkdir(parents=True)
    out = as_the_pip_tells_it(capture)
    if phases is not None:
        out.phases = [{"ns": int(t * S), "phase": p, "target": "oxia://x/default"} for p, t in phases]
    return live_itf.judge_into(bundle, ENTRY, out)


def test_the_phases_row_names_a_file_per_variant_and_replay_accepts_them(tmp_path, capsys):
    rows = _judged(tmp_path)
    assert live_itf.files_of(rows, "/phases") == FILES
    for rel, variant in zip(FILES, ("as-proposed", "as-implemented"), strict=True):
        code, said = live_itf.replay(capsys, tmp_path, rel)
        assert code == 0 and said["ok"] and said["variant"] == variant, said
        # the observed phase changes, and the participants' hidden steps between them
        assert {"start", "complete"} <= set(said["actions"]) and len(said["actions"]) > 3


def test_a_state_edited_in_a_file_is_rejected(tmp_path, capsys):
    _judged(tmp_path)
    planted = live_itf.plant(tmp_path, FILES[0], "phase", "not_started")  # COMPLETED undone by no action
    code, said = live_itf.replay(capsys, tmp_path, planted)
    assert code == 1 and not said["ok"] and "no action of metadata-migration" in said["problem"], said


def test_phases_out_of_order_are_saved_up_to_the_step_the_spec_refuses(tmp_path, capsys):
    rows = _judged(tmp_path, [("NOT_STARTED", 0), ("PREPARATION", 1.0), ("COMPLETED", 1.5), ("COPYING", 3.0)])
    assert next(r for r in rows if r["check"].endswith("/phases"))["verdict"] == "fail"
    code, said = live_itf.replay(capsys, tmp_path, FILES[0])
    assert code == 1 and said["rejected"]["label"] == "begin_copy" and said["rejected"]["note"] == "COPYING"
    assert "left the spec" in said["problem"], said
