"""Every live trace saved as an ITF file of the bundle (issue 49, point 3; conformance/harness/itf_traces.py):
the spec's counterexample, replayed on the clusters in the order they can run it, is saved as a behaviour of
each variant the converged row replays it through: as-implemented allows it (``spec replay`` exit 0), the
PIP's as-proposed does not (its file stops where it leaves the spec: REJECTED, exit 1); a state edited in
the as-implemented one is REJECTED too."""
from __future__ import annotations

from pulsar_conformance.conformance.protocols.policy_sync import rejudge, trace
from pulsar_conformance.conformance.protocols.policy_sync.outcome import Outcome, Policy

from ...support import live_itf

CLUSTERS = ["alpha", "bravo", "charlie"]
ENTRY = rejudge.JUDGED[0]
FILES = ["captures/counterexample/traces/policy-sync.counterexample.converged.as-implemented.itf.json",
         "captures/counterexample/traces/policy-sync.counterexample.converged.as-proposed.itf.json"]


def _judged(bundle) -> list[dict]:
    """The shortest counterexample of converges, run: alpha holds 2, bravo and charlie 1, as the spec predicts."""
    capture = bundle / "captures" / "counterexample"
    capture.mkdir(parents=True)
    spec_trace = trace.counterexample("as-implemented", "converges")
    plan = trace.plan(spec_trace, CLUSTERS)
    out = Outcome("counterexample", capture, CLUSTERS, Policy("t", "ns"), plan.steps, [{"ok": True}] * len(plan.steps),
                  {"alpha": 2, "bravo": 1, "charlie": 1}, True, {}, {c: [] for c in CLUSTERS}, [], 1000, (), None,
                  {"trace": plan.trace, "realized": plan.realized, "moved": plan.moved, "clusters": plan.clusters})
    return live_itf.judge_into(bundle, ENTRY, out)


def test_the_converged_row_names_a_file_per_variant(tmp_path, capsys):
    rows = _judged(tmp_path)
    assert live_itf.files_of(rows, "/converged") == FILES
    code, said = live_itf.replay(capsys, tmp_path, FILES[0])
    assert code == 0 and said["ok"] and said["variant"] == "as-implemented", said
    assert said["actions"][:2] == ["put(c=a)", "deliver(e=e0, c=a)"]  # the own event consumed at once
    code, said = live_itf.replay(capsys, tmp_path, FILES[1])
    assert code == 1 and not said["ok"] and said["rejected"]["label"] == "put(c=a)", said
    assert said["steps"] == 2 and "left the spec" in said["problem"]  # a second write in the same tick


def test_a_state_edited_in_a_file_is_rejected(tmp_path, capsys):
    _judged(tmp_path)
    # c holding 2 at the end, where the last delivery leaves it 1 (the divergence the spec predicts)
    planted = live_itf.plant(tmp_path, FILES[0], "value", {"a": {"#bigint": "2"}, "b": {"#bigint": "1"},
                                                           "c": {"#bigint": "2"}})
    code, said = live_itf.replay(capsys, tmp_path, planted)
    assert code == 1 and not said["ok"] and "no action of policy-sync" in said["problem"], said
