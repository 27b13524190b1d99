"""PIP-454: metadata store migration (ZooKeeper to Oxia) with a read-only window.

Seed: https://github.com/apache/pulsar/blob/master/pip/pip-454.md (PR #25196), the code:
MigrationCoordinator and DualMetadataStore (read in 5.0.0-M1).

A coordinator, PARTICIPANTS brokers/bookies and KEYS persistent metadata nodes, each with a
value and a version in the source store (ZooKeeper) and, once copied, in the target (Oxia).
The phase flag lives in the source store; each participant learns it through a watch, later
than it was written (``seen``). A participant accepts a metadata write where its view allows:
on the source before the migration or after FAILED, nowhere in PREPARATION/COPYING, on the
target after COMPLETED. A write is begun and completed in two steps, so a write in flight when
the flag changes is modelled (the participant drains them before it acknowledges).

Preparation: each participant recreates its ephemeral node in the target and acknowledges by
deleting its registration; the coordinator waits for every registration to go, then copies
every key (value and version), then writes COMPLETED. A participant that starts during the
migration registers and prepares as well; one that crashes loses its registration (an
ephemeral node). The target may become unreachable and the coordinator may crash.

Variants:
- ``as-proposed``: the PIP: "if migration fails at any point, the coordinator updates the phase
  to FAILED" and the cluster returns to the source store, writes enabled (automatic recovery,
  a coordinator loss included).
- ``as-implemented``: 5.0.0-M1: the coordinator sets FAILED from its own thread only (a timeout
  or a copy error); when it crashes nobody does, the flag stays PREPARATION or COPYING, every
  participant keeps refusing writes, and a new ``start`` is refused ("already in progress").
  And a participant registers only when its store is created: after a FAILED migration the
  acknowledged registrations are gone, so a retry finds no one to wait for and copies while
  participants still write the source.

Values: a write to a key stores a new value (the write's number, 1..WRITES); 0 is "absent".
"""
from __future__ import annotations

from ..core.model import ArrayT, BoolT, EnumT, IntT, Mutant, Spec, action, invariant

PHASE = EnumT(("not_started", "preparation", "copying", "completed", "failed"))
NOT_STARTED, PREPARATION, COPYING, COMPLETED, FAILED = range(5)
COORD = EnumT(("idle", "running", "crashed"))
IDLE, RUNNING, CRASHED = range(3)
NONE = 0  # no write in flight; a write in flight to key k is k + 1


class MetadataMigration(Spec):
    name = "metadata-migration"
    title = "PIP-454 metadata store migration: phases, read-only window, copy with versions, rollback"
    source = "https://github.com/apache/pulsar/blob/master/pip/pip-454.md"
    VARIANTS = {
        "as-proposed": "the PIP: any failure, the coordinator's loss included, ends in FAILED with writes back on "
                       "the source",
        "as-implemented": "MigrationCoordinator (5.0.0-M1): FAILED only from the coordinator's own thread; a crashed "
                          "coordinator leaves the cluster read-only",
    }
    DEFAULT_VARIANT = "as-proposed"
    CONSTANTS = {"PARTICIPANTS": 2, "KEYS": 1, "WRITES": 2}
    CONSTANT_LIMITS = {"PARTICIPANTS": (1, 4), "KEYS": (1, 3), "WRITES": (1, 4)}
    MUTANTS = (
        Mutant("write-slips-in-during-copying", "read-only mode not enforced: a participant that sees "
               "PREPARATION or COPYING still accepts source writes", ("copy_is_exact",), "as-proposed"),
        Mutant("no-ephemeral-recreation", "a participant acknowledges without recreating its ephemeral node in "
               "the target", ("ephemerals_before_copy",), "as-proposed"),
        Mutant("versions-not-preserved", "the copy gives every key version 0 in the target",
               ("versions_preserved",), "as-proposed"),
        Mutant("participant-not-waited-for", "the coordinator copies once ONE participant has acknowledged",
               ("no_source_write_while_copying",), "as-proposed"),
        Mutant("cutover-at-copying", "a participant switches to the target as soon as it sees COPYING",
               ("target_only_after_completed",), "as-proposed"),
        Mutant("no-rollback", "nothing ever sets FAILED: a lost target or coordinator stalls the migration",
               ("never_stuck_read_only",), "as-proposed"),
    )

    def setup(self):
        self.participants = EnumT(tuple(f"p{i}" for i in range(self.PARTICIPANTS)))
        self.keys = EnumT(tuple(f"k{i}" for i in range(self.KEYS)))

    def variables(self):
        p, k = self.participants, self.keys
        value, version = IntT(0, self.WRITES), IntT(0, self.WRITES)
        return {
            "phase": PHASE,
            "coord": COORD,
            "target_up": BoolT(),
            "seen": ArrayT(p, PHASE),  # what each participant's watch has told it
            "alive": ArrayT(p, BoolT()),
            "registered": ArrayT(p, BoolT()),  # its registration node exists (not acknowledged yet)
            "eph_target": ArrayT(p, BoolT()),  # its ephemeral node recreated in the target
            "late": ArrayT(p, BoolT()),  # (re)started while a migration was under way
            "inflight": ArrayT(p, IntT(0, self.KEYS)),  # NONE or key + 1
            "writes": IntT(0, self.WRITES),
            "src_val": ArrayT(k, value), "src_ver": ArrayT(k, version),
            "tgt_val": ArrayT(k, value), "tgt_ver": ArrayT(k, version),
            "copied": ArrayT(k, BoolT()),
            "copy_val": ArrayT(k, value), "copy_ver": ArrayT(k, version),  # what the copy gave the target
            "src_write_in_copy": BoolT(),  # a source write completed while the flag said COPYING
        }

    def init(self, kit):
        n, m = self.PARTICIPANTS, self.KEYS
        return {
            "phase": NOT_STARTED, "coord": IDLE, "target_up": True,
            "seen": (NOT_STARTED,) * n, "alive": (True,) * n, "registered": (True,) * n,
            "eph_target": (False,) * n, "late": (False,) * n, "inflight": (NONE,) * n, "writes": 0,
            "src_val": (0,) * m, "src_ver": (0,) * m, "tgt_val": (0,) * m, "tgt_ver": (0,) * m,
            "copied": (False,) * m, "copy_val": (0,) * m, "copy_ver": (0,) * m, "src_write_in_copy": False,
        }

    # ---------------------------------------------------------------- writes
    def _writes_source(self, k, seen):
        ok = k.Or(seen == NOT_STARTED, seen == FAILED)
        if self.mutant == "write-slips-in-during-copying":
            ok = k.Or(ok, seen == PREPARATION, seen == COPYING)
        return ok

    @action(p="participants", key="keys")
    def begin_write(self, s, k, p, key):
        """A client asks participant p to write key: on the source, if p's view allows."""
        seen = k.at(s.seen, p)
        guard = k.And(k.at(s.alive, p), k.at(s.inflight, p) == NONE, s.writes < self.WRITES,
                      self._writes_source(k, seen))
        return guard, {"inflight": k.store(s.inflight, p, key + 1)}

    @action(p="participants")
    def end_write(self, s, k, p):
        """p's source write completes (in whatever phase the flag is by then)."""
        key = k.at(s.inflight, p) - 1
        n = s.writes + 1
        return k.at(s.inflight, p) != NONE, {
            "inflight": k.store(s.inflight, p, NONE), "writes": n,
            "src_val": k.store(s.src_val, key, n), "src_ver": k.store(s.src_ver, key, k.at(s.src_ver, key) + 1),
            "src_write_in_copy": k.Or(s.src_write_in_copy, s.phase == COPYING),
        }

    def uses_target(self, s, k, p):
        """Does p read and write the target store? (DualMetadataStore routes by its phase.)"""
        seen = k.at(s.seen, p)
        if self.mutant == "cutover-at-copying":
            return k.Or(seen == COPYING, seen == COMPLETED)
        return seen == COMPLETED

    @action(p="participants", key="keys")
    def write_target(self, s, k, p, key):
        """After the cutover p writes the target (a conditional write on the copied version)."""
        n = s.writes + 1
        guard = k.And(k.at(s.alive, p), self.uses_target(s, k, p), s.target_up, s.writes < self.WRITES)
        return guard, {"writes": n, "tgt_val": k.store(s.tgt_val, key, n),
                       "tgt_ver": k.store(s.tgt_ver, key, k.at(s.tgt_ver, key) + 1)}

    # ------------------------------------------------------- the coordinator
    @action()
    def start(self, s, k):
        """``metadata-migration start --target oxia://...``: the flag goes to PREPARATION. As
        proposed, the coordinator knows every participant before it starts ("this allows the
        coordinator to know how many participants exist before migration starts")."""
        guard = k.And(s.coord != RUNNING, k.Or(s.phase == NOT_STARTED, s.phase == FAILED))
        if self.variant == "as-proposed":
            guard = k.And(guard, k.AllOf([k.Implies(k.at(s.alive, p), k.at(s.registered, p))
                                          for p in self.participants.values()]))
        return guard, {"phase": PREPARATION, "coord": RUNNING}

    @action()
    def begin_copy(self, s, k):
        """Every registration is gone (all acknowledged): the flag goes to COPYING."""
        regs = [k.at(s.registered, p) for p in self.participants.values()]
        if self.mutant == "participant-not-waited-for":
            ready = k.AnyOf([k.Not(r) for r in regs])
        else:
            ready = k.AllOf([k.Not(r) for r in regs])
        return k.And(s.coord == RUNNING, s.phase == PREPARATION, ready), {"phase": COPYING}

    @action(key="keys")
    def copy(self, s, k, key):
        """The coordinator copies one key, its value and (preserved) version, to the target."""
        ver = 0 if self.mutant == "versions-not-preserved" else k.at(s.src_ver, key)
        val = k.at(s.src_val, key)
        guard = k.And(s.coord == RUNNING, s.phase == COPYING, s.target_up, k.Not(k.at(s.copied, key)))
        return guard, {"copied": k.store(s.copied, key, True), "tgt_val": k.store(s.tgt_val, key, val),
                       "tgt_ver": k.store(s.tgt_ver, key, ver), "copy_val": k.store(s.copy_val, key, val),
                       "copy_ver": k.store(s.copy_ver, key, ver)}

    @action()
    def complete(self, s, k):
        everything = k.AllOf([k.at(s.copied, key) for key in self.keys.values()])
        return k.And(s.coord == RUNNING, s.phase == COPYING, everything), {"phase": COMPLETED, "coord": IDLE}

    @action()
    def fail(self, s, k):
        """The coordinator gives up for a reason: a participant has not acknowledged (its
        preparation timed out) or the target is unreachable."""
        waiting = k.AnyOf([k.at(s.registered, p) for p in self.participants.values()])
        reason = k.Or(k.And(s.phase == PREPARATION, waiting), k.Not(s.target_up))
        guard = k.And(s.coord == RUNNING, k.Or(s.phase == PREPARATION, s.phase == COPYING), reason)
        if self.mutant == "no-rollback":
            guard = False
        return guard, {"phase": FAILED, "coord": IDLE, "copied": (False,) * self.KEYS}

    @action()
    def coordinator_crash(self, s, k):
        """The coordinator's broker dies mid-migration. The PIP's automatic recovery is taken as
        immediate (the loss noticed, the flag set to FAILED); 5.0.0-M1 has no such recovery."""
        recovers = self.variant != "as-implemented" and self.mutant != "no-rollback"
        if not recovers:
            return s.coord == RUNNING, {"coord": CRASHED}
        return s.coord == RUNNING, {"coord": CRASHED, "phase": FAILED, "copied": (False,) * self.KEYS}

    @action()
    def target_lost(self, s, k):
        return s.target_up, {"target_up": False}

    # ------------------------------------------------------- the participants
    @action(p="participants")
    def notice(self, s, k, p):
        """p's watch delivers the flag as it is now. As proposed, a participant that learns of a
        FAILED migration is again a participant of the next one (the retry the PIP tells operators
        to run waits for it); 5.0.0-M1 registers a participant only when its store is created."""
        effect = {"seen": k.store(s.seen, p, s.phase)}
        if self.variant == "as-proposed":
            again = s.phase == FAILED
            effect["registered"] = k.store(s.registered, p, k.Or(k.at(s.registered, p), again))
            effect["eph_target"] = k.store(s.eph_target, p, k.And(k.at(s.eph_target, p), k.Not(again)))
        return k.And(k.at(s.alive, p), k.at(s.seen, p) != s.phase), effect

    @action(p="participants")
    def prepare(self, s, k, p):
        """p has drained its writes: it recreates its ephemeral node in the target and acknowledges."""
        seen = k.at(s.seen, p)
        guard = k.And(k.at(s.alive, p), k.Or(seen == PREPARATION, seen == COPYING), k.at(s.registered, p),
                      k.at(s.inflight, p) == NONE, s.target_up)
        recreated = self.mutant != "no-ephemeral-recreation"
        return guard, {"eph_target": k.store(s.eph_target, p, recreated), "registered": k.store(s.registered, p, False)}

    @action(p="participants")
    def crash(self, s, k, p):
        """p stops (no write in flight): its session ends, so do its ephemeral and registration nodes."""
        guard = k.And(k.at(s.alive, p), k.at(s.inflight, p) == NONE)
        return guard, {"alive": k.store(s.alive, p, False), "registered": k.store(s.registered, p, False),
                       "eph_target": k.store(s.eph_target, p, False)}

    @action(p="participants")
    def restart(self, s, k, p):
        """p starts again: it reads the flag and registers as a participant (after COMPLETED it
        starts on the target store)."""
        during = k.Or(s.phase == PREPARATION, s.phase == COPYING)
        # after COMPLETED it starts on the target, its ephemeral node created there
        return k.Not(k.at(s.alive, p)), {"alive": k.store(s.alive, p, True), "seen": k.store(s.seen, p, s.phase),
                                        "registered": k.store(s.registered, p, True),
                                        "late": k.store(s.late, p, during),
                                        "eph_target": k.store(s.eph_target, p, s.phase == COMPLETED)}

    # ------------------------------------------------------------ invariants
    @invariant(holds_in={"as-proposed"}, violated_in={"as-implemented"})
    def no_source_write_while_copying(self, s, k):
        """No metadata write reaches the source store while the coordinator copies it."""
        return k.Not(s.src_write_in_copy)

    @invariant(holds_in={"as-proposed"}, violated_in={"as-implemented"})
    def copy_is_exact(self, s, k):
        """At COMPLETED the target got every key's final source value (nothing written after its copy)."""
        same = k.AllOf([k.at(s.copy_val, key) == k.at(s.src_val, key) for key in self.keys.values()])
        return k.Implies(s.phase == COMPLETED, same)

    @invariant(holds_in={"as-proposed"}, violated_in={"as-implemented"})
    def versions_preserved(self, s, k):
        """At COMPLETED every key has its source version in the target: conditional writes keep working."""
        same = k.AllOf([k.at(s.copy_ver, key) == k.at(s.src_ver, key) for key in self.keys.values()])
        return k.Implies(s.phase == COMPLETED, same)

    @invariant(holds_in={"as-proposed", "as-implemented"})
    def target_only_after_completed(self, s, k):
        """No participant reads or writes the target unless the migration COMPLETED (single source of truth)."""
        return k.AllOf([k.Implies(k.And(k.at(s.alive, p), self.uses_target(s, k, p)), s.phase == COMPLETED)
                        for p in self.participants.values()])

    @invariant(holds_in={"as-proposed", "as-implemented"})
    def ephemerals_before_copy(self, s, k):
        """A participant acknowledges only once its ephemeral node is in the target; so once copying
        starts, every live participant that was there when the migration began has it there (the
        cluster is live in both stores). The acknowledgement half is what a random trace reaches
        quickly (three steps), where the copy half needs every participant to prepare first."""
        migrating = k.Or(s.phase == PREPARATION, s.phase == COPYING, s.phase == COMPLETED)
        acked = [k.And(migrating, k.at(s.alive, p), k.Not(k.at(s.late, p)), k.Not(k.at(s.registered, p)))
                 for p in self.participants.values()]
        copying = [k.And(k.Or(s.phase == COPYING, s.phase == COMPLETED), k.at(s.alive, p), k.Not(k.at(s.late, p)))
                   for p in self.participants.values()]
        return k.AllOf([k.Implies(k.Or(a, c), k.at(s.eph_target, p))
                        for a, c, p in zip(acked, copying, self.participants.values(), strict=True)])

    @invariant(holds_in={"as-proposed"}, violated_in={"as-implemented"})
    def never_stuck_read_only(self, s, k):
        """Writes are refused only while a coordinator is running to end it (COMPLETED or FAILED)."""
        return k.Implies(k.Or(s.phase == PREPARATION, s.phase == COPYING), s.coord == RUNNING)
