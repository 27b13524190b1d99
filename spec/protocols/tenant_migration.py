"""Tenant migration over geo-replication: consumption progress following the data from A to B.

Seed: "Migrating Tenants across Clusters with Pulsar's Geo-replication" (Mingze Han, Tencent
Cloud, 2023-04-17, https://streamnative.io/blog/migrating-tenants-across-clusters-with-pulsars-geo-replication),
and Pulsar's replicated subscriptions (https://pulsar.apache.org/docs/next/administration-geo/#replicated-subscriptions).

One topic of a tenant moves from cluster A to cluster B. A producer on A publishes messages
1..MESSAGES; geo-replication copies them to B in order (B may lag: a backlog). One subscription
consumes on A with individual acks, in any order, so acks leave holes; A's markDeletePosition is
the longest acknowledged prefix. Replicated subscriptions carry progress to B only through cursor
snapshots: A writes a snapshot request into the topic after its latest message, the request
completes once B has replicated up to it (so a backlog on B delays it, and a request can time
out), and B's markDeletePosition may then move to the newest completed snapshot at or below A's
markDeletePosition. The five migration steps: (1) metadata and (2) replication are in place from
the start; (3) ``sync_progress`` waits until B has every message and (the blog's optimisation)
copies A's individual acks to B; (4) ``switch`` moves the consumers to B, which redelivers every
message past its markDeletePosition that B does not know as acknowledged: the duplicates; (5)
``retire`` A.

Variants:
- ``markdelete-only``: Pulsar as it is: only markDeletePosition follows, through snapshots.
- ``with-individual-acks``: the blog's optimisation: step 3 also copies A's individually
  acknowledged messages (matched through originalClusterPosition), and B filters them out.

Message i (0-based) is the (i+1)-th published; a position p counts messages (p = 3: messages
0..2 are at or before it).
"""
from __future__ import annotations

from ..core.model import ArrayT, BoolT, EnumT, IntT, Mutant, Spec, action, invariant

PHASES = EnumT(("replicating", "synced", "switched", "retired"))
REPLICATING, SYNCED, SWITCHED, RETIRED = range(4)


class TenantMigration(Spec):
    name = "tenant-migration"
    title = "Tenant migration over geo-replication: consumption progress and duplicates after the switch"
    source = "https://streamnative.io/blog/migrating-tenants-across-clusters-with-pulsars-geo-replication"
    VARIANTS = {
        "markdelete-only": "Pulsar's replicated subscriptions: only markDeletePosition follows, through periodic "
                           "cursor snapshots that a backlog on B delays",
        "with-individual-acks": "the blog's optimisation: the migration also copies A's individual acks to B, "
                                "which filters them out after the switch",
    }
    DEFAULT_VARIANT = "markdelete-only"
    CONSTANTS = {"MESSAGES": 3}
    CONSTANT_LIMITS = {"MESSAGES": (1, 6)}
    # a live run is replayed with every message it published (the scenarios publish 200)
    REPLAY_LIMITS = {"MESSAGES": (1, 4096)}
    ENDS = True  # a migration ends: A retired
    MUTANTS = (
        Mutant("sync-beyond-markdelete", "B's markDeletePosition moves to the newest snapshot even past A's",
               ("no_unacked_skipped",), "markdelete-only"),
        Mutant("retire-before-drained", "A is retired with messages not yet replicated to B", ("nothing_lost",),
               "markdelete-only"),
        Mutant("snapshot-ignores-backlog", "a snapshot completes before B has the messages it covers",
               ("markdelete_within_replicated",), "markdelete-only"),
        Mutant("copy-acks-up-to-markdelete", "the migration copies only the acks up to A's markDeletePosition, "
               "not the holes after it", ("duplicates_only_from_late_acks",), "with-individual-acks"),
        Mutant("copy-unacked", "the migration copies every delivered message as acknowledged",
               ("copied_acks_are_acks",), "with-individual-acks"),
    )

    def setup(self):
        self.msgs = IntT(0, self.MESSAGES - 1)

    def variables(self):
        n = self.MESSAGES
        count = IntT(0, n)
        return {
            "pub": count,  # published on A
            "rep": count,  # replicated to B (a prefix: replication keeps order)
            "ack_a": ArrayT(n, BoolT()),  # acknowledged on A
            "ack_b": ArrayT(n, BoolT()),  # known to B as acknowledged (with-individual-acks only)
            "pending": BoolT(),  # a snapshot request is in flight
            "req": count,  # ... written after this many messages
            "snaps": ArrayT(n + 1, BoolT()),  # completed snapshots, by position
            "md_b": count,  # B's markDeletePosition
            "phase": PHASES,
            "late": count,  # acks on A since the last sync_progress
            "dup": count,  # messages B redelivers after the switch that A had acknowledged
        }

    def init(self, k):
        n = self.MESSAGES
        return {"pub": 0, "rep": 0, "ack_a": (False,) * n, "ack_b": (False,) * n, "pending": False, "req": 0,
                "snaps": (True,) + (False,) * n, "md_b": 0, "phase": REPLICATING, "late": 0, "dup": 0}

    # ------------------------------------------------------------- derived
    def md_a(self, s, k):
        """A's markDeletePosition: the longest acknowledged prefix."""
        return k.count([k.AllOf([k.at(s.ack_a, j) for j in range(i + 1)]) for i in range(self.MESSAGES)])

    def _before_switch(self, s, k):
        return k.Or(s.phase == REPLICATING, s.phase == SYNCED)

    # ------------------------------------------------------------- actions
    @action()
    def publish(self, s, k):
        """The producer publishes the next message on A (producers move with the consumers)."""
        return k.And(s.pub < self.MESSAGES, self._before_switch(s, k)), {"pub": k.Min(s.pub + 1, self.MESSAGES)}

    @action()
    def replicate(self, s, k):
        """A's replicator writes the next message to B; while it lags, B has a backlog."""
        return k.And(s.rep < s.pub, s.phase != RETIRED), {"rep": k.Min(s.rep + 1, self.MESSAGES)}

    @action(m="msgs")
    def ack(self, s, k, m):
        """A consumer on A acknowledges message m (individually: any order, holes allowed)."""
        guard = k.And(self._before_switch(s, k), m < s.pub, k.Not(k.at(s.ack_a, m)))
        return guard, {"ack_a": k.store(s.ack_a, m, True), "late": k.Min(s.late + 1, self.MESSAGES)}

    @action()
    def request_snapshot(self, s, k):
        """Periodic: A writes a snapshot request into the topic after its latest message."""
        guard = k.And(k.Not(s.pending), s.pub > 0, self._before_switch(s, k))
        return guard, {"pending": True, "req": s.pub}

    @action()
    def complete_snapshot(self, s, k):
        """The request reached B through replication and B answered: the snapshot maps the position."""
        reached = True if self.mutant == "snapshot-ignores-backlog" else s.rep >= s.req
        return k.And(s.pending, reached), {"pending": False, "snaps": k.store(s.snaps, s.req, True)}

    @action()
    def snapshot_timeout(self, s, k):
        """No answer in time (B's backlog held the request back): the request is dropped."""
        return s.pending, {"pending": False}

    @action()
    def sync_markdelete(self, s, k):
        """B's markDeletePosition moves to the newest completed snapshot at or below A's."""
        md_a = self.md_a(s, k)
        positions = range(self.MESSAGES, 0, -1)
        if self.mutant == "sync-beyond-markdelete":
            conds = [k.at(s.snaps, p) for p in positions]
        else:
            conds = [k.And(k.at(s.snaps, p), p <= md_a) for p in positions]
        target = k.first(conds, list(positions), 0)
        return k.And(self._before_switch(s, k), target > s.md_b), {"md_b": target}

    @action()
    def sync_progress(self, s, k):
        """Step 3: wait until B has every message; with-individual-acks also copies A's acks to B."""
        guard = k.And(self._before_switch(s, k), s.rep == s.pub)
        effect = {"phase": SYNCED, "late": 0}
        if self.variant == "with-individual-acks":
            md_a = self.md_a(s, k)
            copied = []
            for i in range(self.MESSAGES):
                known = k.at(s.ack_a, i)
                if self.mutant == "copy-acks-up-to-markdelete":
                    known = k.And(known, i < md_a)
                if self.mutant == "copy-unacked":
                    known = i < s.pub
                copied.append(k.Or(k.at(s.ack_b, i), known))
            effect["ack_b"] = tuple(copied)
        return guard, effect

    @action()
    def switch(self, s, k):
        """Step 4: consumers move to B, which delivers everything after its markDeletePosition
        that it does not know as acknowledged; what A had acknowledged among it comes again."""
        again = k.count([k.And(s.md_b <= i, i < s.rep, k.at(s.ack_a, i), k.Not(k.at(s.ack_b, i)))
                         for i in range(self.MESSAGES)])
        return s.phase == SYNCED, {"phase": SWITCHED, "dup": again}

    @action()
    def retire(self, s, k):
        """Step 5: A is retired once B has every message."""
        drained = True if self.mutant == "retire-before-drained" else s.rep == s.pub
        return k.And(s.phase == SWITCHED, drained), {"phase": RETIRED}

    # ----------------------------------------------------------- invariants
    @invariant(inductive=True)
    def no_unacked_skipped(self, s, k):
        """B never marks deleted a message A has not acknowledged: nothing unacknowledged is skipped."""
        return k.AllOf([k.Implies(i < s.md_b, k.at(s.ack_a, i)) for i in range(self.MESSAGES)])

    @invariant()
    def markdelete_within_replicated(self, s, k):
        """B's markDeletePosition never passes what B has (a snapshot needs B to have the messages)."""
        return s.md_b <= s.rep

    @invariant(inductive=True)
    def copied_acks_are_acks(self, s, k):
        """What B knows as acknowledged was acknowledged on A."""
        return k.AllOf([k.Implies(k.at(s.ack_b, i), k.at(s.ack_a, i)) for i in range(self.MESSAGES)])

    @invariant()
    def nothing_lost(self, s, k):
        """Once A is retired, B has every message A published."""
        return k.Implies(s.phase == RETIRED, s.rep == s.pub)

    @invariant(holds_in={"with-individual-acks"}, violated_in={"markdelete-only"})
    def duplicates_only_from_late_acks(self, s, k):
        """After the switch, B redelivers only messages acknowledged on A after the last sync:
        progress synced is progress kept. As Pulsar is, ack holes and acks since the last
        snapshot come again (the blog's problems 1 and 3)."""
        return k.Implies(k.Or(s.phase == SWITCHED, s.phase == RETIRED), s.dup <= s.late)

    @invariant(holds_in=set(), violated_in={"markdelete-only", "with-individual-acks"})
    def markdelete_follows(self, s, k):
        """Once synced, and with nothing acknowledged since, B's markDeletePosition equals A's. It
        does not: snapshots are periodic, and a backlog on B holds a snapshot request back until it
        times out (problems 2 and 3)."""
        return k.Implies(k.And(s.phase == SYNCED, s.late == 0), s.md_b == self.md_a(s, k))
