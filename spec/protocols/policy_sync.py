"""PIP-136: metadata (policy) sync between clusters and its conflict resolution.

Seed: https://github.com/apache/pulsar/blob/master/pip/pip-136.md; the code:
AbstractMetadataStore#handleMetadataEvent / #shouldIgnoreEvent (read in 3.0.0, 4.2.4,
5.0.0-M1; see docs/findings.md).

One metadata path, written concurrently at N clusters. Every write publishes an event
(value, timestamp = the writer's clock, source cluster) to a replicated topic; every
cluster, the writer included, consumes every event, in any order, any number of times,
and decides whether to apply it. Clocks advance independently, so they are skewed.

Variants:
- ``as-proposed``: the PIP's rule. The newer timestamp wins, a tie goes to the
  lexicographically smaller source cluster, and the store keeps the winner's timestamp
  and source. The PIP does not say how deletes compete; they are modelled as tombstones
  (an absent value with a timestamp), the reading under which the rule can converge.
  The rule can only pick one update if (timestamp, source) identifies it, so this
  variant lets a cluster write only once per clock tick.
- ``as-proposed-raw-clock``: the same rule without that assumption, which real
  millisecond clocks do not give: two writes of one cluster in the same millisecond tie
  completely and the first one delivered wins, differently per cluster (a finding).
- ``as-implemented``: Pulsar's code. An incoming event is ignored when the node exists
  and the event is older than the node's modification time, or is a tie from another
  cluster whose name sorts lower than the LOCAL cluster's name. Otherwise it is applied,
  and the node's modification time becomes the local clock at write time (never the
  event's timestamp). A missing node takes any put; deletes leave no tombstone; a delete
  of a missing node fails and changes nothing. Versions are not modelled: events carry
  a null expected version, as unconditional puts publish them.

Values: the write in event slot i writes value i+1; 0 is "absent".
"""
from __future__ import annotations

from ..core.model import ArrayT, BoolT, EnumT, IntT, Mutant, Spec, action, fact, invariant

NONE, PUT, DELETE = 0, 1, 2
KINDS = EnumT(("none", "put", "delete"))
ABSENT = 0


class PolicySync(Spec):
    name = "policy-sync"
    title = "PIP-136 policy sync across clusters: conflict resolution of concurrent updates"
    source = "https://github.com/apache/pulsar/blob/master/pip/pip-136.md"
    VARIANTS = {
        "as-proposed": "the PIP: newer timestamp wins, ties to the smaller source name, store keeps the winner's "
                       "timestamp; a cluster never writes twice within one clock tick (the rule's implicit assumption)",
        "as-proposed-raw-clock": "the PIP's rule with millisecond clocks as they are: one cluster may write twice "
                                 "within one tick, so (timestamp, source) no longer identifies an update",
        "as-implemented": "AbstractMetadataStore#shouldIgnoreEvent: compare with the local modification time and the local name",
    }
    DEFAULT_VARIANT = "as-proposed"
    CONSTANTS = {"CLUSTERS": 3, "WRITES": 2, "MAX_CLOCK": 2}
    CONSTANT_LIMITS = {"CLUSTERS": (1, 5), "WRITES": (1, 5), "MAX_CLOCK": (1, 6)}
    MUTANTS = (
        Mutant("no-tie-break", "an equal timestamp always wins", ("converges", "order_is_total"), "as-proposed"),
        Mutant("last-delivered-wins", "no timestamp comparison at all: the last event applied wins",
               ("converges", "merge_is_commutative"), "as-proposed"),
        Mutant("stamp-local-clock", "the store keeps the local clock as the node's time instead of the event's",
               ("converges",), "as-proposed"),
        Mutant("delete-without-tombstone", "a delete removes the node and forgets its timestamp",
               ("converges",), "as-proposed"),
        Mutant("winner-is-oldest", "the older timestamp wins", ("lww_winner", "newest_wins"), "as-proposed"),
    )

    def setup(self):
        self.clusters = EnumT(tuple(chr(ord("a") + i) for i in range(self.CLUSTERS)))
        self.slots = EnumT(tuple(f"e{i}" for i in range(self.WRITES)))

    def variables(self):
        c, e = self.clusters, self.slots
        clock = IntT(0, self.MAX_CLOCK)
        return {
            "clock": ArrayT(c, clock),
            "value": ArrayT(c, IntT(0, self.WRITES)),  # 0 = absent
            "mtime": ArrayT(c, clock),  # the node's time as the store keeps it
            "wsrc": ArrayT(c, c),  # as-proposed: the stored winner's source cluster
            "tomb": ArrayT(c, BoolT()),  # as-proposed: an absent value that still has a time (tombstone)
            "events": IntT(0, self.WRITES),  # event slots used so far
            "kind": ArrayT(e, KINDS),
            "ets": ArrayT(e, clock),
            "esrc": ArrayT(e, c),
            "delivered": ArrayT(e, ArrayT(c, BoolT())),
        }

    def init(self, k):
        n, w = self.CLUSTERS, self.WRITES
        return {
            "clock": (0,) * n, "value": (ABSENT,) * n, "mtime": (0,) * n, "wsrc": (0,) * n, "tomb": (False,) * n,
            "events": 0, "kind": (NONE,) * w, "ets": (0,) * w, "esrc": (0,) * w,
            "delivered": ((False,) * n,) * w,
        }

    # -------------------------------------------------------------- the rule
    def wins(self, k, ts, src, stored_ts, stored_src, local):
        """Does an incoming (ts, src) replace a stored node with (stored_ts, stored_src) at ``local``?"""
        if self.mutant == "last-delivered-wins":
            return True
        if self.mutant == "winner-is-oldest":
            return k.Or(ts < stored_ts, k.And(ts == stored_ts, src < stored_src))
        if self.variant != "as-implemented":
            tie = k.And(ts == stored_ts, src < stored_src)
            if self.mutant == "no-tie-break":
                tie = ts == stored_ts
            return k.Or(ts > stored_ts, tie)
        # as implemented: ignored if older than the node, or a tie from a lower-named OTHER cluster
        ignored = k.Or(ts < stored_ts, k.And(src != local, ts == stored_ts, src < local))
        return k.Not(ignored)

    def _apply(self, s, k, c, val, ts, src, is_delete):
        """Cluster c receives an event; returns the new (value, mtime, wsrc, tomb) of c."""
        value, mtime, wsrc, tomb = k.at(s.value, c), k.at(s.mtime, c), k.at(s.wsrc, c), k.at(s.tomb, c)
        local_clock = k.at(s.clock, c)
        if self.variant != "as-implemented":
            exists = k.Or(value != ABSENT, tomb)
            take = k.Or(k.Not(exists), self.wins(k, ts, src, mtime, wsrc, c))
            stamp = local_clock if self.mutant == "stamp-local-clock" else ts
            keep_tomb = False if self.mutant == "delete-without-tombstone" else is_delete
            return (k.If(take, val, value), k.If(take, stamp, mtime), k.If(take, src, wsrc),
                    k.If(take, keep_tomb, tomb))
        exists = value != ABSENT
        take = k.Or(k.Not(exists), self.wins(k, ts, src, mtime, wsrc, c))
        # a delete of a missing node fails (NotFound) and changes nothing
        take = k.And(take, k.Or(k.Not(is_delete), exists))
        return k.If(take, val, value), k.If(take, local_clock, mtime), wsrc, False

    # ---------------------------------------------------------------- actions
    @action(c="clusters")
    def clock_tick(self, s, k, c):
        """Cluster c's clock advances (clocks are skewed: each moves on its own)."""
        return True, {"clock": k.store(s.clock, c, k.at(s.clock, c) + 1)}

    @action(c="clusters")
    def put(self, s, k, c):
        """A user updates the policy at cluster c: publish the event, then write locally."""
        return self._write(s, k, c, is_delete=False)

    @action(c="clusters")
    def delete(self, s, k, c):
        """A user deletes the policy at cluster c (only where it exists there)."""
        return self._write(s, k, c, is_delete=True)

    def _write(self, s, k, c, is_delete):
        slot = s.events
        guard = slot < self.WRITES
        if is_delete:
            guard = k.And(guard, k.at(s.value, c) != ABSENT)
        val = ABSENT if is_delete else slot + 1
        ts = k.at(s.clock, c)
        if self.variant == "as-proposed":
            # one write per cluster per clock tick: (timestamp, source) identifies an update
            guard = k.And(guard, *[k.Not(k.And(k.at(s.kind, e) != NONE, k.at(s.esrc, e) == c, k.at(s.ets, e) == ts))
                                   for e in self.slots.values()])
        if self.variant != "as-implemented":
            # the local write is the event applied locally under the same rule
            value, mtime, wsrc, tomb = self._apply(s, k, c, val, ts, c, is_delete)
        else:
            # the local write is unconditional; the store stamps it with the local clock
            value, mtime, wsrc, tomb = val, ts, k.at(s.wsrc, c), False

        def effect():
            return {
                "events": k.Min(slot + 1, self.WRITES),
                "kind": k.store(s.kind, slot, DELETE if is_delete else PUT),
                "ets": k.store(s.ets, slot, ts),
                "esrc": k.store(s.esrc, slot, c),
                "value": k.store(s.value, c, value),
                "mtime": k.store(s.mtime, c, mtime),
                "wsrc": k.store(s.wsrc, c, wsrc),
                "tomb": k.store(s.tomb, c, tomb),
            }

        return guard, effect

    @action(e="slots", c="clusters")
    def deliver(self, s, k, e, c):
        """Cluster c's sync consumer handles event e (again, if it is a redelivery)."""
        kind = k.at(s.kind, e)
        is_delete = kind == DELETE
        val = k.If(is_delete, ABSENT, e + 1)
        value, mtime, wsrc, tomb = self._apply(s, k, c, val, k.at(s.ets, e), k.at(s.esrc, e), is_delete)
        row = k.at(s.delivered, e)
        return kind != NONE, {
            "value": k.store(s.value, c, value),
            "mtime": k.store(s.mtime, c, mtime),
            "wsrc": k.store(s.wsrc, c, wsrc),
            "tomb": k.store(s.tomb, c, tomb),
            "delivered": k.store(s.delivered, e, k.store(row, c, True)),
        }

    # ------------------------------------------------------------- invariants
    def _all_delivered(self, s, k):
        return k.AllOf([k.Implies(k.at(s.kind, e) != NONE, k.at(k.at(s.delivered, e), c))
                        for e in self.slots.values() for c in self.clusters.values()])

    @invariant(holds_in={"as-proposed"}, violated_in={"as-proposed-raw-clock", "as-implemented"})
    def converges(self, s, k):
        """Once every event is delivered everywhere, every cluster holds the same value."""
        first = k.at(s.value, 0)
        same = k.AllOf([k.at(s.value, c) == first for c in self.clusters.values()])
        return k.Implies(self._all_delivered(s, k), same)

    @invariant(holds_in={"as-proposed"}, violated_in={"as-proposed-raw-clock", "as-implemented"})
    def lww_winner(self, s, k):
        """Once every event is delivered, every cluster holds the write of the newest event (ties: smaller source)."""
        # the winner by the PIP's order, computed from the event log alone
        best_val, best_ts, best_src, any_event = ABSENT, -1, 0, False
        for e in self.slots.values():
            kind, ts, src = k.at(s.kind, e), k.at(s.ets, e), k.at(s.esrc, e)
            better = k.And(kind != NONE, k.Or(k.Not(any_event), ts > best_ts, k.And(ts == best_ts, src < best_src)))
            best_val = k.If(better, k.If(kind == DELETE, ABSENT, e + 1), best_val)
            best_ts = k.If(better, ts, best_ts)
            best_src = k.If(better, src, best_src)
            any_event = k.Or(any_event, kind != NONE)
        same = k.AllOf([k.at(s.value, c) == best_val for c in self.clusters.values()])
        return k.Implies(self._all_delivered(s, k), same)

    # ------------------------------------------------------------------ facts
    # Facts speak of the rule alone, for ALL timestamps and cluster names (as integers
    # ordered like the names): z3 proves or refutes them outright.
    @fact(holds_in={"as-proposed", "as-proposed-raw-clock"}, violated_in={"as-implemented"})
    def order_is_total(self, k, *, t1: int, s1: int, t2: int, s2: int, here: int):
        """For two different events, exactly one replaces the other, wherever they meet."""
        distinct = k.Or(t1 != t2, s1 != s2)
        a = self.wins(k, t1, s1, t2, s2, here)
        b = self.wins(k, t2, s2, t1, s1, here)
        return k.Implies(distinct, k.And(k.Or(a, b), k.Not(k.And(a, b))))

    @fact(holds_in={"as-proposed", "as-proposed-raw-clock"}, violated_in={"as-implemented"})
    def merge_is_commutative(self, k, *, t1: int, s1: int, t2: int, s2: int, here: int, there: int):
        """Two clusters that receive the same two events in opposite orders keep the same one."""
        distinct = k.Or(t1 != t2, s1 != s2)
        # at ``here`` event 1 is stored and 2 arrives; at ``there`` the reverse
        keep2_here = self.wins(k, t2, s2, t1, s1, here)
        keep1_there = self.wins(k, t1, s1, t2, s2, there)
        return k.Implies(distinct, keep2_here != keep1_there)

    @fact(holds_in={"as-proposed", "as-proposed-raw-clock"})
    def newest_wins(self, k, *, t1: int, s1: int, t2: int, s2: int, here: int):
        """A strictly newer event always replaces an older one."""
        return k.Implies(t1 > t2, self.wins(k, t1, s1, t2, s2, here))
