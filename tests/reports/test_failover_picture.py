"""The failover timeline of the report: where the client was, which cluster was down, from a
scenario's failover.json (hand-made here; live ones come from conformance/protocols/client_failover)."""
from __future__ import annotations

import json

from pulsar_conformance.reports.view import failover

S = 10**9
DOC = {"config": {"primary": "primary", "secondaries": ["s1", "s2"]}, "start_ns": 100 * S,
       "events": [{"at_ns": 102 * S, "kind": "down", "cluster": "primary"},
                  {"at_ns": 105 * S, "kind": "switch", "cluster": "s1", "origin": "primary"},
                  {"at_ns": 110 * S, "kind": "up", "cluster": "primary"},
                  {"at_ns": 111 * S, "kind": "down", "cluster": "s1"},
                  {"at_ns": 116 * S, "kind": "switch", "cluster": "primary", "origin": "s1"}],
       "markers": [{"ts_ns": 102 * S, "label": "primary killed (SIGKILL)"}],
       "java": {"version": "4.2.4", "failed_probes": [[102 * S + 5, "primary"], [103 * S, "primary"]]}}


def test_where_the_client_was_and_which_cluster_was_down():
    assert failover.attached(DOC) == [(100 * S, "primary"), (105 * S, "s1"), (116 * S, "primary")]
    # s1 never came back: down to the end of the picture
    assert failover.down(DOC, 120 * S) == {"primary": [(102 * S, 110 * S)], "s1": [(111 * S, 120 * S)]}


def test_the_picture_draws_lanes_down_bands_probes_and_markers(tmp_path):
    picture = failover.svg(DOC)
    assert picture.startswith("<svg") and picture.count("<rect") == 2
    assert picture.count("failed probe of primary") == 2 and "primary killed (SIGKILL)" in picture
    assert all(f">{c}</text>" in picture for c in ("primary", "s1", "s2"))
    (tmp_path / "captures" / "kill").mkdir(parents=True)
    (tmp_path / "captures" / "kill" / "failover.json").write_text(json.dumps(DOC))
    [found] = failover.scenarios(tmp_path)
    assert (found["name"], found["client"], found["switches"]) == ("kill", "Java 4.2.4", 2)
    # a document without a configuration draws nothing rather than a wrong picture
    assert failover.svg({"events": []}) == ""
