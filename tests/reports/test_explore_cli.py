"""``explore --live``'s request and exit code (reports/runner/explore_cli.py), offline: the child's pytest timeout
leaves room for the budget, its shrinking and the Spark checks, and an exploration that did not finish is never a
pass."""
from __future__ import annotations

from pulsar_conformance.errors import EXIT_FAIL, EXIT_PASS, EXIT_UNKNOWN
from pulsar_conformance.reports.runner import explore_cli


def test_a_generating_run_gets_its_budget_three_times_over_and_a_margin():
    # a 20-minute client-failover run was killed at the profile's 1200 s while Spark judged its schedules
    assert explore_cli.explore_timeout_s(1200, 1200.0, replayed=False, repeat=1) == 3 * 1200 + explore_cli.EXPLORE_MARGIN_S
    assert explore_cli.explore_timeout_s(7200, 50.0, replayed=False, repeat=1) == 7200  # never less than the profile's
    assert explore_cli.explore_timeout_s(1200, 300.0, replayed=True, repeat=3) == 3600  # a replay: per repeat


def test_an_exploration_that_did_not_finish_is_never_a_pass():
    passed = {"requirements": [{"id": "PIP121-R02", "verdict": "pass"}, {"id": "PIP121-R01", "verdict": "not run"}]}
    assert explore_cli.exit_code(passed) == EXIT_PASS
    assert explore_cli.exit_code(passed, finished=False) == EXIT_UNKNOWN
    failed = {"requirements": [{"id": "PIP121-R02", "verdict": "fail"}]}
    assert explore_cli.exit_code(failed, finished=False) == EXIT_FAIL  # a row Spark failed stands
