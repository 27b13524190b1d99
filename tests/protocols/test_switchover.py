"""The switch-over figures both protocols report (conformance/harness/switchover.py)."""
from __future__ import annotations

from pulsar_conformance.conformance.harness import switchover

S = 1_000_000_000


def test_figures_of_a_switch():
    assert switchover.seconds(1 * S, 3 * S + 250_000_000) == 2.25
    assert switchover.after(S, None) is None and switchover.after(S, 2 * S) == 1.0
    assert switchover.longest_gap_s([5 * S, 1 * S, 2 * S]) == 3.0 and switchover.longest_gap_s([S]) == 0.0
    assert switchover.first_after([1 * S, 2 * S, 3 * S], 2 * S) == 3 * S and switchover.first_after([S], 2 * S) is None


def test_duplicates_count_only_what_was_read_again_after_the_switch():
    rows = [{"uid": "a", "ts_ns": 1}, {"uid": "b", "ts_ns": 2}, {"uid": "a", "ts_ns": 3},  # before: not counted
            {"uid": "b", "ts_ns": 10}, {"uid": "c", "ts_ns": 11}, {"uid": "c", "ts_ns": 12}]
    assert switchover.duplicates_after(rows, 10) == 2
    assert switchover.duplicates_after(rows, None) == 0
