"""The metadata-migration spec (PIP-454) on named behaviours: a clean migration, the read-only
window, a rollback, and the two gaps 5.0.0-M1 has that the PIP does not (a lost coordinator
leaves the cluster read-only; a retried migration does not wait for its participants)."""
from __future__ import annotations

from pulsar_conformance.spec.core.explorer import explore
from pulsar_conformance.spec.core.interpreter import replay
from pulsar_conformance.spec.protocols.metadata_migration import COMPLETED, FAILED, MetadataMigration

PREPARED = ["start", "notice(p=p0)", "notice(p=p1)", "prepare(p=p0)", "prepare(p=p1)"]
CLEAN = ["begin_write(p=p0, key=k0)", "end_write(p=p0)", *PREPARED, "begin_copy", "copy(key=k0)", "complete",
         "notice(p=p0)", "write_target(p=p0, key=k0)"]


def test_a_clean_migration_copies_value_and_version_and_writes_go_on_in_the_target():
    for variant in ("as-proposed", "as-implemented"):
        result = replay(MetadataMigration(variant=variant), CLEAN)
        assert result.ok and not result.broken, (variant, result.problem, result.broken)
        end = result.states[-1]
        assert end.phase == COMPLETED and end.copy_ver == end.src_ver == (1,) and end.tgt_ver == (2,)


def test_no_write_between_the_start_and_the_cutover():
    spec = MetadataMigration()
    for blocked in (["start", "notice(p=p0)", "begin_write(p=p0, key=k0)"],
                    [*PREPARED, "begin_copy", "notice(p=p0)", "begin_write(p=p0, key=k0)"],
                    [*PREPARED, "begin_copy", "notice(p=p0)", "write_target(p=p0, key=k0)"]):
        assert not replay(spec, blocked).ok, blocked


def test_a_lost_target_rolls_back_to_the_source_with_writes_enabled():
    steps = [*PREPARED, "begin_copy", "target_lost", "fail", "notice(p=p0)", "begin_write(p=p0, key=k0)",
             "end_write(p=p0)"]
    result = replay(MetadataMigration(), steps)
    assert result.ok and not result.broken and result.states[-1].phase == FAILED


def test_a_lost_coordinator_leaves_the_cluster_read_only_as_implemented_only():
    steps = ["start", "coordinator_crash"]
    assert replay(MetadataMigration(), steps).states[-1].phase == FAILED
    stuck = replay(MetadataMigration(variant="as-implemented"), steps)
    assert stuck.ok and (2, "never_stuck_read_only") in stuck.broken
    assert not replay(MetadataMigration(variant="as-implemented"), [*steps, "start"]).ok  # "already in progress"


def test_a_retry_after_failed_waits_for_no_one_as_implemented():
    # the first attempt fails after both acknowledged; p0 has a write in flight when the retry copies
    retry = [*PREPARED, "target_lost", "fail", "notice(p=p0)", "begin_write(p=p0, key=k0)", "start",
             "begin_copy", "end_write(p=p0)"]
    implemented = replay(MetadataMigration(variant="as-implemented"), retry)
    assert implemented.ok and any(name == "no_source_write_while_copying" for _, name in implemented.broken)
    # as proposed, p0 registered again when it learned of FAILED: the retry cannot copy before it acks
    assert not replay(MetadataMigration(), retry).ok


def test_the_explorer_covers_both_variants_completely():
    proposed = explore(MetadataMigration())
    assert proposed.complete and not proposed.violations
    implemented = explore(MetadataMigration(variant="as-implemented"))
    assert implemented.complete and set(implemented.violations) == {
        "never_stuck_read_only", "no_source_write_while_copying", "copy_is_exact", "versions_preserved"}
