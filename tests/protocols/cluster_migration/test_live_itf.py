"""Every live trace saved as an ITF file of the bundle (issue 49, point 3; conformance/harness/itf_traces.py):
the recorded 3.13.0 run judged as ``judge BUNDLE`` judges it leaves one file per validated (producer,
subscription) pair (per key of a Key_Shared one, at most itf_traces.MAX_PER_ROW), each named by its trace
row, valid ITF, accepted by ``spec replay``; a state edited in one, or a delivery order the spec refuses,
is REJECTED (exit 1)."""
from __future__ import annotations

from pulsar_conformance.conformance.harness import itf_traces
from pulsar_conformance.conformance.protocols.cluster_migration import rejudge

from ...support import live_itf
from .recorded import EXCLUSIVE, PRODUCER, cluster_level_outcome

ENTRY = rejudge.JUDGED[0]
MODELLED = {"exclusive/p-live-exclusive/fast", "exclusive/p-live-exclusive/slow", "exclusive/p-new/fast",
            "exclusive/p-new/slow", "failover/p-live-failover/fast", "failover/p-live-failover/slow",
            "keyshared/p-live-keyshared/fast", "keyshared/p-live-keyshared/slow"}


def _judged(bundle, edit=None) -> list[dict]:
    capture = bundle / "captures" / "cluster-migration"
    capture.mkdir(parents=True)
    out = cluster_level_outcome(capture)
    if edit is not None:
        out.columns = edit({name: list(values) for name, values in out.columns.items()})
    return live_itf.judge_into(bundle, ENTRY, out)


def test_each_validated_pair_has_its_file_and_replay_accepts_it(tmp_path, capsys):
    rows = _judged(tmp_path)
    traced = {r["check"].removeprefix("cluster-migration/").removesuffix("/trace"): r["details"]["itf"]
              for r in rows if r["check"].endswith("/trace") and "itf" in r["details"]}
    assert set(traced) == MODELLED
    # a Key_Shared pair is validated per key: one file per key, the first few
    assert all(len(files) == 1 for pair, files in traced.items() if not pair.startswith("keyshared"))
    assert 1 < len(traced["keyshared/p-live-keyshared/fast"]) <= itf_traces.MAX_PER_ROW
    for files in traced.values():
        for rel in files:
            assert rel.startswith("captures/cluster-migration/traces/cluster-migration.") and (tmp_path / rel).is_file()
            code, said = live_itf.replay(capsys, tmp_path, rel)
            assert code == 0 and said["ok"], (rel, said)
            # the spec sized to the projection (its MESSAGES), the hidden steps filled in
            assert said["constants"]["MESSAGES"] > 1 and "publish" in said["actions"]
            assert "consumer_redirect" in said["actions"], rel


def test_a_state_edited_in_a_file_is_rejected(tmp_path, capsys):
    rows = _judged(tmp_path)
    (rel,) = live_itf.files_of(rows, "exclusive/p-live-exclusive/fast/trace")
    planted = live_itf.plant(tmp_path, rel, "blue_cursor", {"#bigint": "0"})  # the subscription read nothing
    code, said = live_itf.replay(capsys, tmp_path, planted)
    assert code == 1 and not said["ok"] and "no action of cluster-migration" in said["problem"], said


def test_a_delivery_order_the_spec_refuses_is_saved_up_to_it(tmp_path, capsys):
    """slow gets seq 297 where it got seq 289 and vice versa (test_trace_mutants' order mutant): the file
    holds the behaviour up to the early delivery, and replay names it as where the run left the spec."""
    def swap(cols):
        at = {seq: next(i for i, k in enumerate(cols["kind"]) if k == "receive" and cols["topic"][i] == EXCLUSIVE
                        and cols["subscription"][i] == "slow" and cols["producer"][i] == PRODUCER
                        and cols["seq"][i] == seq) for seq in (289, 297)}
        for name in ("uid", "seq", "key", "msg_id", "producer"):
            cols[name][at[289]], cols[name][at[297]] = cols[name][at[297]], cols[name][at[289]]
        return cols

    rows = _judged(tmp_path, swap)
    row = next(r for r in rows if r["check"] == "cluster-migration/exclusive/p-live-exclusive/slow/trace")
    assert row["verdict"] == "fail"
    (rel,) = row["details"]["itf"]
    code, said = live_itf.replay(capsys, tmp_path, rel)
    assert code == 1 and said["rejected"]["label"] == "consume" and "seq 297 delivered" in said["rejected"]["note"]
    assert "left the spec" in said["problem"], said
