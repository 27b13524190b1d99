"""PIP-188: blue-green cluster migration of one topic, with incoming replication from a remote region.

Seed: https://github.com/apache/pulsar/blob/master/pip/pip-188.md; what the broker and clients really do:
docs/cluster-migration.md and docs/findings.md.

One producer writes messages 1..MESSAGES in order; one durable subscription reads them. An
admin marks blue migrated; the broker's periodic task then terminates the topic in blue.
The producer is redirected to green only once blue's outgoing replicator to a remote region
has no backlog; the subscription only once it has read everything in blue. On green, the
subscription either exists from the start (auto resource creation) or is created when the
consumer arrives, at the latest position. The migration flag lives in blue's LOCAL policies;
a policy sync copies the global ones to green.

Incoming replication (seed feature 3, PIP188-R07): a producer in the remote region writes
remote messages 1..REMOTE there (stored there = acknowledged to it), and the remote's
replicator copies them, in order, to the cluster it is attached to. On blue that replicator is
just a producer (a Java client producer inside the remote broker), so migration treats it like
the local one: once blue's topic is terminated blue refuses its copy, and TopicMigrated (sent
under the same no-outgoing-backlog condition) redirects it to green, where it resends the copy
blue refused and goes on. A copy counts as replicated once blue or green acknowledged it.
Blue's outgoing replicator does not send entries that came from the remote back there, but
they are backlog until it has read past them: it passes one as it arrives when it is caught up
(and connected: the remote is up, or the copy could not have arrived), else in its turn, one
``replicate`` step per entry as for local ones. With REMOTE=0 the spec is the local one
(trace validation of a captured producer uses it so).

Logs hold entries (0 = empty slot): local message i is i, remote message j is MESSAGES + j, so
both sources interleave in the same logs and each source's order and loss can be read off the
state: what the subscription got is blue[:blue_cursor] then green[green_sub_start:green_cursor],
and one order ghost per source records a message delivered after a later one of its source.
"""
from __future__ import annotations

from ..core.model import ArrayT, BoolT, EnumT, IntT, Mutant, Spec, action, invariant

BLUE, GREEN = 0, 1
SIDES = EnumT(("blue", "green"))


class ClusterMigration(Spec):
    name = "cluster-migration"
    title = "PIP-188 blue-green cluster migration: producer, subscription and incoming replicator redirection"
    source = "https://github.com/apache/pulsar/blob/master/pip/pip-188.md"
    VARIANTS = {
        "auto-create": "clusterMigrationAutoResourceCreation=true: the subscription exists on green before any redirect",
        "no-auto-create": "the default (false): the subscription is created on green when its consumer arrives, "
                          "at the latest position, so what the producer wrote there before is not retained for it",
        "restart-strands": "auto resource creation, and what Pulsar 4.2.4 does when blue restarts after the migration: "
                           "a flagged topic cannot be loaded there again, so its consumer is redirected at once and "
                           "blue's unread backlog is never delivered (docs/findings.md F-188-11)",
    }
    DEFAULT_VARIANT = "auto-create"
    # 2 + 2: four messages interleave in the logs; every mutant dies within BMC depth 10 and a
    # remote message crosses the switch (blue, then green) within it (tests/spec/test_cluster_migration.py).
    # CI (tox.ini) gives Hypothesis 25-step programs: every shortest violation has at most 10 steps,
    # and Hypothesis' time here goes to shrinking long failing programs
    CONSTANTS = {"MESSAGES": 2, "REMOTE": 2}
    CONSTANT_LIMITS = {"MESSAGES": (1, 6), "REMOTE": (0, 4)}
    # a live pair is validated over a window of messages around the switch (6 + 6 by default)
    REPLAY_LIMITS = {"MESSAGES": (1, 64)}
    MUTANTS = (
        Mutant("redirect-consumer-with-backlog", "redirects the consumer before it has read everything in blue",
               ("drained_before_green", "consumer_on_green_has_drained_blue"), "auto-create"),
        Mutant("append-after-terminate", "blue still accepts a write after the topic was terminated",
               ("no_write_after_termination",), "auto-create"),
        Mutant("ignore-replication-backlog", "redirects a producer (or the remote's replicator) while blue's replicator still has a backlog",
               ("remote_complete_before_redirect",), "auto-create"),
        Mutant("migration-state-global", "keeps the migration flag in global policies, which sync to green",
               ("migration_state_stays_local",), "auto-create"),
        Mutant("ack-refused-send", "reports a send that blue refused (topic terminated) as acknowledged",
               ("no_acked_loss",), "auto-create"),
        Mutant("reorder-pending-on-redirect", "after the redirect, sends the message blue refused after the next one",
               ("producer_order",), "auto-create"),
        Mutant("incoming-replicator-reorders-on-redirect",
               "after its redirect, the remote region's replicator resends the copy blue refused after the next one",
               ("incoming_order",), "auto-create"),
        Mutant("incoming-replicator-skips-refused",
               "the remote region's replicator drops the copy blue refused and moves on to the next one",
               ("no_replicated_loss",), "auto-create"),
    )

    def setup(self):
        self.CAP = self.MESSAGES + self.REMOTE  # every message, local or remote, is stored at most once

    def variables(self):
        m, r, cap = self.MESSAGES, self.REMOTE, self.CAP
        entry = IntT(0, cap)
        return {
            "next": IntT(1, m + 1),  # the producer's next message; m+1 = done
            "pside": SIDES,  # where the producer publishes
            "refused": BoolT(),  # blue refused the producer's current message (topic terminated)
            "owed": IntT(0, m),  # reorder mutant: a refused message kept aside
            "acked": ArrayT(m + 1, BoolT()),  # acked[i]: message i was persisted and acknowledged
            "blue": ArrayT(cap, entry), "blue_len": IntT(0, cap),
            "green": ArrayT(cap, entry), "green_len": IntT(0, cap),
            "replicated": IntT(0, cap),  # blue entries blue's outgoing replicator has read
            "remote_up": BoolT(),
            # incoming replication: remote messages 1..remote_written are stored on the remote;
            # its replicator's next one is in_next (those before it, but in_owed, are acknowledged)
            "remote_written": IntT(0, r),
            "in_next": IntT(1, r + 1), "in_side": SIDES, "in_refused": BoolT(),
            "in_owed": IntT(0, r),  # reorder mutant: the refused copy kept aside
            "cluster_migrated": BoolT(), "terminated": BoolT(),
            "blue_loaded": BoolT(),  # restart-strands: false once blue restarted after the termination
            "green_migrated": BoolT(),  # what green believes of its own migration state
            "sside": SIDES, "blue_cursor": IntT(0, cap), "green_cursor": IntT(0, cap),
            "green_sub": BoolT(), "green_sub_start": IntT(0, cap),
            # ghosts
            "g_max_delivered": IntT(0, m), "g_out_of_order": BoolT(),
            "g_max_remote_delivered": IntT(0, r), "g_remote_out_of_order": BoolT(),
            "g_write_after_term": BoolT(),
            "g_redirect_with_repl_backlog": BoolT(), "g_green_read_before_drain": BoolT(),
        }

    def init(self, k):
        m, cap = self.MESSAGES, self.CAP
        auto = self.variant != "no-auto-create"
        return {
            "next": 1, "pside": BLUE, "refused": False, "owed": 0, "acked": (False,) * (m + 1),
            "blue": (0,) * cap, "blue_len": 0, "green": (0,) * cap, "green_len": 0,
            "replicated": 0, "remote_up": True,
            "remote_written": 0, "in_next": 1, "in_side": BLUE, "in_refused": False, "in_owed": 0,
            "cluster_migrated": False, "terminated": False, "blue_loaded": True,
            "green_migrated": False, "sside": BLUE, "blue_cursor": 0, "green_cursor": 0,
            # auto resource creation happens before any redirect, so model it as already done
            "green_sub": auto, "green_sub_start": 0,
            "g_max_delivered": 0, "g_out_of_order": False,
            "g_max_remote_delivered": 0, "g_remote_out_of_order": False, "g_write_after_term": False,
            "g_redirect_with_repl_backlog": False, "g_green_read_before_drain": False,
        }

    def _blue_open(self, s, k):
        return True if self.mutant == "append-after-terminate" else k.Not(s.terminated)

    def _route(self, s, k, side):
        """Where a send from a producer attached to ``side`` goes: (to_blue, to_green, refused).
        The local producer and the remote's replicator are both producers to blue."""
        on_blue = side == BLUE
        blue_open = self._blue_open(s, k)
        return k.And(on_blue, blue_open), k.Not(on_blue), k.And(on_blue, k.Not(blue_open))

    def _append(self, s, k, to_blue, to_green, entry):
        """The logs after ``entry`` is stored on blue or on green (at most one of the two holds)."""
        cap = self.CAP
        return {
            "blue": k.If(to_blue, k.store(s.blue, k.Min(s.blue_len, cap - 1), entry), s.blue),
            "blue_len": k.If(to_blue, k.Min(s.blue_len + 1, cap), s.blue_len),
            "green": k.If(to_green, k.store(s.green, k.Min(s.green_len, cap - 1), entry), s.green),
            "green_len": k.If(to_green, k.Min(s.green_len + 1, cap), s.green_len),
            "g_write_after_term": k.Or(s.g_write_after_term, k.And(to_blue, s.terminated)),
        }

    def _redirect_allowed(self, s):
        """Blue redirects a producer (local or the remote's replicator) only without outgoing replication backlog."""
        return True if self.mutant == "ignore-replication-backlog" else s.replicated == s.blue_len

    # ------------------------------------------------------------------ producer
    @action()
    def publish(self, s, k):
        """The producer sends its current message to the cluster it is attached to."""
        m = self.MESSAGES
        to_blue, to_green, refused = self._route(s, k, s.pside)
        guard = k.And(s.next <= m, k.Not(s.refused))
        stored = k.Or(to_blue, to_green)
        # mutants: a refused send reported as acknowledged; or the refused message kept
        # aside ("owed") and sent after the next one once on green
        fake_ack = self.mutant == "ack-refused-send"
        reorder = self.mutant == "reorder-pending-on-redirect"

        def effect():
            return {
                **self._append(s, k, to_blue, to_green, s.next),
                "acked": k.If(k.Or(stored, k.And(refused, fake_ack)), k.store(s.acked, s.next, True), s.acked),
                "next": k.If(k.Or(stored, k.And(refused, fake_ack or reorder)), s.next + 1, s.next),
                "refused": k.And(refused, not fake_ack),
                "owed": k.If(k.And(refused, reorder), s.next, s.owed),
            }

        return guard, effect

    @action()
    def publish_owed(self, s, k):
        """(reorder mutant only) The message blue refused is sent after the next one."""
        if self.mutant != "reorder-pending-on-redirect":
            return False, {}
        cap = self.CAP
        guard = k.And(s.owed > 0, s.pside == GREEN, s.next > s.owed + 1)
        return guard, lambda: {
            "green": k.store(s.green, k.Min(s.green_len, cap - 1), s.owed),
            "green_len": k.Min(s.green_len + 1, cap),
            "acked": k.store(s.acked, s.owed, True),
            "owed": 0,
        }

    @action()
    def producer_redirect(self, s, k):
        """Blue sends TopicMigrated to the producer (only once the replicator has no backlog); it moves to green."""
        guard = k.And(s.terminated, s.pside == BLUE, self._redirect_allowed(s))
        return guard, {"pside": GREEN, "refused": False,
                       "g_redirect_with_repl_backlog": k.Or(s.g_redirect_with_repl_backlog, s.replicated != s.blue_len)}

    # ------------------------------------------------------- incoming replication
    @action()
    def remote_write(self, s, k):
        """A producer in the remote region stores its next remote message there (acknowledged on the remote)."""
        return s.remote_written < self.REMOTE, {"remote_written": s.remote_written + 1}

    @action()
    def replicate_in(self, s, k):
        """The remote's replicator sends its next copy to the cluster it is attached to (blue refuses once terminated)."""
        m, cap = self.MESSAGES, self.CAP
        to_blue, to_green, refused = self._route(s, k, s.in_side)
        guard = k.And(s.remote_up, s.in_next <= s.remote_written, k.Not(s.in_refused))
        # blue's outgoing replicator, caught up and connected, reads past the new entry at once
        passed = k.And(to_blue, s.replicated == s.blue_len)
        stored = k.Or(to_blue, to_green)
        entry = s.in_next + m
        # mutants: the refused copy dropped (its successor goes next); or kept aside and
        # resent right after its successor once on green (both in one flush of the pending queue)
        skip = self.mutant == "incoming-replicator-skips-refused"
        reorder = self.mutant == "incoming-replicator-reorders-on-redirect"
        flush = k.And(to_green, s.in_owed > 0) if reorder else False

        def effect():
            stored_now = self._append(s, k, to_blue, to_green, entry)
            green = stored_now["green"]
            return {
                **stored_now,
                "replicated": k.If(passed, k.Min(s.blue_len + 1, cap), s.replicated),
                # the flush (reorder mutant, only ever on green) appends the kept copy after this one
                "green": k.If(flush, k.store(green, k.Min(s.green_len + 1, cap - 1), s.in_owed + m), green),
                "green_len": k.If(flush, k.Min(s.green_len + 2, cap), stored_now["green_len"]),
                "in_next": k.If(k.Or(stored, k.And(refused, skip or reorder)), s.in_next + 1, s.in_next),
                "in_refused": k.And(refused, not skip),
                "in_owed": k.If(k.And(refused, reorder), s.in_next, k.If(flush, 0, s.in_owed)),
            }

        return guard, effect

    @action()
    def replicator_redirect(self, s, k):
        """Blue sends TopicMigrated to the remote's replicator, a producer like any other; it continues into green."""
        if self.REMOTE == 0:  # no incoming replication (trace validation of a local producer)
            return False, {}
        guard = k.And(s.terminated, s.in_side == BLUE, self._redirect_allowed(s))
        return guard, {"in_side": GREEN, "in_refused": False,
                       "g_redirect_with_repl_backlog": k.Or(s.g_redirect_with_repl_backlog, s.replicated != s.blue_len)}

    # ---------------------------------------------------------------- broker/admin
    @action()
    def admin_migrate(self, s, k):
        """The admin marks blue migrated (POST /admin/v2/clusters/blue/migrate)."""
        return k.Not(s.cluster_migrated), {"cluster_migrated": True}

    @action()
    def migration_task(self, s, k):
        """Blue's periodic check terminates the topic and marks it migrated."""
        return k.And(s.cluster_migrated, k.Not(s.terminated)), {"terminated": True}

    @action()
    def policy_sync(self, s, k):
        """Global policies reach green; the migration flag is local to blue and must not travel."""
        travels = s.cluster_migrated if self.mutant == "migration-state-global" else False
        return True, {"green_migrated": k.Or(s.green_migrated, travels)}

    @action()
    def blue_restart(self, s, k):
        """Blue restarts after the termination. As the seed has it, the topic loads again and
        nothing changes, so only restart-strands has the action: there the flagged topic cannot
        be loaded (the consumer side of F-188-11, what scenario 5 measured; the producer side is
        not modelled)."""
        if self.variant != "restart-strands":
            return False, {}
        return k.And(s.terminated, s.blue_loaded), {"blue_loaded": False}

    @action()
    def replicate(self, s, k):
        """Blue's outgoing replicator reads its next entry: copies a local one to the remote region, drops one from there."""
        return k.And(s.remote_up, s.replicated < s.blue_len), {"replicated": s.replicated + 1}

    @action()
    def remote_down(self, s, k):
        """The remote region becomes unreachable (replication stalls both ways)."""
        return s.remote_up, {"remote_up": False}

    @action()
    def remote_up_again(self, s, k):
        return k.Not(s.remote_up), {"remote_up": True}

    # ---------------------------------------------------------------- subscription
    @action()
    def consume(self, s, k):
        """The consumer receives the next message of its subscription where it is attached."""
        m, cap = self.MESSAGES, self.CAP
        on_blue = s.sside == BLUE
        loaded = s.blue_loaded if self.variant == "restart-strands" else True
        has_blue = k.And(on_blue, loaded, s.blue_cursor < s.blue_len)
        has_green = k.And(k.Not(on_blue), s.green_sub, s.green_cursor < s.green_len)
        seq = k.If(on_blue, k.at(s.blue, k.Min(s.blue_cursor, cap - 1)), k.at(s.green, k.Min(s.green_cursor, cap - 1)))
        remote = seq > m
        return k.Or(has_blue, has_green), lambda: {
            "blue_cursor": k.If(has_blue, s.blue_cursor + 1, s.blue_cursor),
            "green_cursor": k.If(has_green, s.green_cursor + 1, s.green_cursor),
            "g_out_of_order": k.Or(s.g_out_of_order, k.And(k.Not(remote), seq < s.g_max_delivered)),
            "g_max_delivered": k.If(remote, s.g_max_delivered, k.Max(s.g_max_delivered, seq)),
            "g_remote_out_of_order": k.Or(s.g_remote_out_of_order, k.And(remote, seq - m < s.g_max_remote_delivered)),
            "g_max_remote_delivered": k.If(remote, k.Max(s.g_max_remote_delivered, seq - m), s.g_max_remote_delivered),
            "g_green_read_before_drain": k.Or(s.g_green_read_before_drain,
                                              k.And(has_green, s.blue_cursor < s.blue_len)),
        }

    @action()
    def consumer_redirect(self, s, k):
        """Blue redirects the consumer once its subscription has no backlog in the terminated topic."""
        # a topic blue cannot load has no backlog to serve: the consumer goes at once (restart-strands)
        drained = s.blue_cursor == s.blue_len
        if self.variant == "restart-strands":  # only there can blue_loaded be false
            drained = k.Or(drained, k.Not(s.blue_loaded))
        if self.mutant == "redirect-consumer-with-backlog":
            drained = True
        guard = k.And(s.terminated, s.sside == BLUE, drained)
        # without auto creation the subscription is created now, at the latest position
        return guard, {
            "sside": GREEN,
            "green_sub": True,
            "green_sub_start": k.If(s.green_sub, s.green_sub_start, s.green_len),
            "green_cursor": k.If(s.green_sub, s.green_cursor, s.green_len),
        }

    # ------------------------------------------------------------------ invariants
    def _readable(self, s, k):
        """Per slot of blue and of green: whether the subscription got that entry or can still read it."""
        cap = self.CAP
        # on green an entry is readable when the subscription exists, or will be created
        # from the start (only auto creation does that)
        later = k.Not(s.green_sub) if self.variant != "no-auto-create" else False
        blue = [k.And(j < s.blue_len, k.Or(s.sside == BLUE, j < s.blue_cursor)) for j in range(cap)]
        green = [k.And(j < s.green_len, k.Or(k.And(s.green_sub, j >= s.green_sub_start), later)) for j in range(cap)]
        return blue, green

    def _kept(self, s, k, readable, value):
        """Entry ``value`` was delivered or is still readable by the subscription."""
        blue, green = readable
        return k.Or(k.AnyOf([k.And(ok, k.at(s.blue, j) == value) for j, ok in enumerate(blue)]),
                    k.AnyOf([k.And(ok, k.at(s.green, j) == value) for j, ok in enumerate(green)]))

    @invariant(holds_in={"auto-create"}, violated_in={"no-auto-create", "restart-strands"})
    def no_acked_loss(self, s, k):
        """Every acknowledged message is delivered or still readable by the subscription."""
        readable = self._readable(s, k)
        return k.AllOf([k.Implies(k.at(s.acked, i), self._kept(s, k, readable, i)) for i in range(1, self.MESSAGES + 1)])

    @invariant(holds_in={"auto-create"}, violated_in={"no-auto-create", "restart-strands"})
    def no_replicated_loss(self, s, k):
        """Every remote message the replicator has had acknowledged (by blue or green) is delivered or still readable."""
        m, readable = self.MESSAGES, self._readable(s, k)
        return k.AllOf([k.Implies(k.And(j < s.in_next, s.in_owed != j), self._kept(s, k, readable, m + j))
                        for j in range(1, self.REMOTE + 1)])

    @invariant()
    def producer_order(self, s, k):
        """The subscription gets one producer's messages in the order they were sent, across the switch."""
        return k.Not(s.g_out_of_order)

    @invariant()
    def incoming_order(self, s, k):
        """The subscription gets the remote region's messages in the order the remote stored them, across the switch."""
        return k.Not(s.g_remote_out_of_order)

    @invariant(inductive=True, holds_in={"auto-create", "no-auto-create"}, violated_in={"restart-strands"})
    def drained_before_green(self, s, k):
        """A subscription reads on green only after it has read everything in blue."""
        return k.Not(s.g_green_read_before_drain)

    @invariant(inductive=True, holds_in={"auto-create", "no-auto-create"}, violated_in={"restart-strands"})
    def consumer_on_green_has_drained_blue(self, s, k):
        """A consumer attached to green has read all of blue's terminated topic (strengthens the one above)."""
        return k.Implies(s.sside == GREEN, k.And(s.terminated, s.blue_cursor == s.blue_len))

    @invariant(inductive=True)
    def no_write_after_termination(self, s, k):
        """No message is appended to the topic in blue once it is terminated for migration."""
        return k.Not(s.g_write_after_term)

    @invariant(inductive=True)
    def remote_complete_before_redirect(self, s, k):
        """A producer (the local one, or the remote's replicator) leaves blue only when blue's outgoing replicator has no backlog."""
        return k.Not(s.g_redirect_with_repl_backlog)

    @invariant(inductive=True)
    def migration_state_stays_local(self, s, k):
        """Green never believes itself migrated (the flag lives in blue's LOCAL policies)."""
        return k.Not(s.green_migrated)
