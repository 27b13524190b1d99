"""A switch's history as an outcome: five messages on A, 3 an acknowledgement hole, B's markDeletePosition
covering 1-2 (the offline tests of the judge and of the record step judge it; tests never import tests)."""
from __future__ import annotations

from pulsar_conformance.conformance.protocols.tenant_migration.outcome import Outcome, Plan

T = "persistent://t/ns/orders"
NAMES = ("kind", "topic", "cluster", "uid", "msg_id", "ts_ns", "seq")


def holes(run_dir, delivered_on_b, plan: Plan, verdict: dict | None) -> Outcome:
    """B delivers ``delivered_on_b``; ``verdict`` None: not checked by Spark yet, as the scenario saves it."""
    rows = [("send_ok", T, "blue", f"p/{i}", f"7:{i}:-1:-1", i, i) for i in range(1, 6)]
    rows += [("receive", T, "blue", f"p/{i}", f"7:{i}:-1:-1", 10 + i, i) for i in range(1, 6)]
    rows += [("ack", T, "blue", f"p/{i}", f"7:{i}:-1:-1", 20 + i, i) for i in (1, 2, 4, 5)]
    rows += [("receive", T, "green", f"p/{i}", f"9:{i}:-1:-1", 30 + i, i) for i in delivered_on_b]
    columns = {n: [r[i] for r in rows] for i, n in enumerate(NAMES)}
    a_cursor, b_cursor = {"markDeletePosition": "7:2"}, {"markDeletePosition": "9:2", "caught_up_s": 1.5}
    positions = {f"p/{i}": f"9:{i}:-1:-1" for i in range(1, 6)}
    progress = [{"ts_ns": 1, "a": "7:2", "b": "9:2", "b_has": "9:5"}]
    return Outcome("holes", run_dir, T, plan, verdict, [{"ts_ns": 1, "label": "switch"}], a_cursor, b_cursor,
                   progress, positions, columns)
