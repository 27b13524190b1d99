"""A tenant-migration run replayed through the spec's markdelete-only variant (Pulsar as it is).

Observed, in time order: each message the producer published on A (its send), each first
acknowledgement on A, and, at the switch, B's markDeletePosition. Not observable: replication,
snapshot requests and their completion. They are filled in with the witness that follows the
observations: one snapshot at B's markDeletePosition, requested when A had published that many
messages and completed at once (B replicated up to it), every message replicated before the sync,
and B's markDeletePosition synced once, after the last acknowledgement (acks only ever raise A's
markDeletePosition, so a sync allowed earlier is allowed then too). The replay must accept every
step, keep every invariant the variant says holds, and end where the run ended: A's
markDeletePosition and the duplicates after the switch are the spec's own (``md_a``, the ``switch``
action's ``dup``), compared with what the run measured.

Positions become message counts: a markDeletePosition covers the messages stored at or before it
(A's from the producer's acknowledged message ids, B's from the reader's view of B)."""
from __future__ import annotations

from dataclasses import dataclass, field

from pulsar_conformance.spec.core.backend import CONCRETE
from pulsar_conformance.spec.core.interpreter import apply, find_ground, initial_state, violated
from pulsar_conformance.spec.protocols.tenant_migration import TenantMigration

from ...harness import evidence, itf_traces
from .outcome import position


@dataclass
class Replay:
    ok: bool | None  # None: the run gave nothing to replay
    text: str
    steps: int = 0
    spec_dup: int | None = None
    spec_md_a: int | None = None
    # what a disagreement is about: progress synced past A's acknowledgements (TM-R02), or the
    # duplicates and A's markDeletePosition differing from the spec's (TM-R04)
    requirements: tuple[str, ...] = ("TM-R02", "TM-R04")
    # the steps replayed as a spec behaviour (the filled-in witness included), saved as an ITF file
    witness: itf_traces.LiveTrace | None = field(default=None, compare=False, repr=False)


def covered(positions: dict[str, str | None], markdelete: str | None) -> int | None:
    """How many of the messages (uid -> position) lie at or before ``markdelete``."""
    md = position(markdelete)
    if md is None:
        return None
    return sum(1 for p in positions.values() if position(p) is not None and position(p) <= md)


def labels(columns: dict, topic: str, b_count: int) -> tuple[list[str], int]:
    """The witness's steps (action labels) and the number of messages."""
    sends = sorted(evidence.rows(columns, kind="send_ok", topic=topic), key=lambda r: r["seq"])
    index = {r["uid"]: i for i, r in enumerate(sends)}
    acks: dict[str, int] = {}
    for r in evidence.rows(columns, kind="ack", topic=topic, cluster="blue"):
        acks[r["uid"]] = min(acks.get(r["uid"], r["ts_ns"]), r["ts_ns"])
    events = [(r["ts_ns"], 0, "publish") for r in sends]
    events += [(ts, 1, f"ack(m={index[uid]})") for uid, ts in acks.items() if uid in index]
    steps, published, replicated = [], 0, 0
    for _, _, label in sorted(events):
        steps.append(label)
        if label == "publish":
            published += 1
            if published == b_count:  # the snapshot B's markDeletePosition stands on
                steps += ["request_snapshot", *["replicate"] * (b_count - replicated), "complete_snapshot"]
                replicated = b_count
    steps += ["replicate"] * (len(sends) - replicated)
    if b_count:
        steps.append("sync_markdelete")
    return steps + ["sync_progress", "switch"], len(sends)


def replay(columns: dict, topic: str, a_markdelete: str | None, b_markdelete: str | None,
           b_positions: dict[str, str] | None, measured_dup: int) -> Replay:
    sends = evidence.rows(columns, kind="send_ok", topic=topic)
    b_count = covered(b_positions or {}, b_markdelete)
    a_count = covered({r["uid"]: r["msg_id"] for r in sends}, a_markdelete)
    if not sends or b_count is None or a_count is None:
        return Replay(None, f"nothing to replay: {len(sends)} sends, A's markDeletePosition {a_markdelete}, "
                            f"B's {b_markdelete}, {len(b_positions or {})} positions read on B")
    # a send B's reader did not list (B trimmed the ledger holding it once its consumer drained it) might lie at or
    # before B's markDeletePosition: ``covered`` would undercount it, and the replay would hold Pulsar to a smaller
    # markDelete than B had
    unlisted = sum(1 for r in sends if position((b_positions or {}).get(r["uid"])) is None)
    if unlisted:
        return Replay(None, f"nothing to replay: {unlisted} of {len(sends)} sends have no position B's reader listed "
                            f"(B trimmed the ledger that held them), so B's markDeletePosition {b_markdelete} cannot be "
                            "counted in messages")
    steps, n = labels(columns, topic, b_count)
    spec = TenantMigration(variant="markdelete-only", MESSAGES=n)
    # the invariants this variant documents as broken (duplicates, a lagging markDelete) are what
    # the run measures, not a disagreement
    kept = tuple(i for i in spec.invariants if spec.expectation(i) == "holds")
    state = initial_state(spec)
    states = [state]

    def witness(rejected: str = "", broken: tuple = ()) -> itf_traces.LiveTrace:
        done = len(states) - 1
        t = itf_traces.LiveTrace(spec, list(states), steps[:done], [s if _observed(s) else None for s in steps[:done]],
                                 "replay", broken=[(done, name) for name in broken])
        if rejected:
            t.rejected = {"step": done + 1, "label": steps[done], "note": "", "problem": rejected}
        return t

    for i, label in enumerate(steps, 1):
        nxt = apply(spec, state, find_ground(spec, label))
        if nxt is None:
            why = (f"B's markDeletePosition covers {b_count} messages, A's acknowledged prefix only "
                   f"{spec.md_a(state, CONCRETE)}" if label == "sync_markdelete" else "")
            said = (f"not a behaviour of the spec (markdelete-only, {n} messages): step {i} of "
                    f"{len(steps)}, {label}, is not enabled{': ' + why if why else ''}")
            return Replay(False, said, i - 1, requirements=("TM-R02",), witness=witness(said))
        state = nxt
        states.append(state)
        broken = violated(spec, state, kept)
        if broken:
            return Replay(False, f"step {i} ({label}) breaks {', '.join(broken)}, which the spec says holds", i,
                          requirements=("TM-R02",), witness=witness(broken=tuple(broken)))
    md_a = spec.md_a(state, CONCRETE)
    agree = state.dup == measured_dup and md_a == a_count
    return Replay(agree, (f"{len(steps)} steps replayed through the spec (markdelete-only, {n} messages; "
                          f"B's markDeletePosition covers {b_count}): the spec's A markDeletePosition covers {md_a} "
                          f"(observed {a_count}), its switch redelivers {state.dup} acknowledged messages "
                          f"(measured {measured_dup})" + ("" if agree else ": the run and the spec disagree")),
                  len(steps), state.dup, md_a, ("TM-R02", "TM-R04") if agree else ("TM-R04",), witness())


def _observed(label: str) -> bool:
    """A step the run observed (a send, a first acknowledgement); the others are the filled-in witness."""
    return label == "publish" or label.startswith("ack(")
