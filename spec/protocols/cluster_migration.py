"""PIP-188: blue-green cluster migration of one topic.

Seed: shared/seeds/pip-188-cluster-migration.md; what the broker and clients really do:
shared/reference/pulsar-facts.md §4 and §7.

One producer writes messages 1..MESSAGES in order; one durable subscription reads them. An
admin marks blue migrated; the broker's periodic task then terminates the topic in blue.
The producer is redirected to green only once blue's outgoing replicator to a remote region
has no backlog; the subscription only once it has read everything in blue. On green, the
subscription either exists from the start (auto resource creation) or is created when the
consumer arrives, at the latest position. The migration flag lives in blue's LOCAL policies;
a policy sync copies the global ones to green.

Logs hold message numbers (0 = empty slot), so order and loss can be read off the state.
"""
from __future__ import annotations

from ..core.model import ArrayT, BoolT, EnumT, IntT, Mutant, Spec, action, invariant

BLUE, GREEN = 0, 1
SIDES = EnumT(("blue", "green"))


class ClusterMigration(Spec):
    name = "cluster-migration"
    title = "PIP-188 blue-green cluster migration: producer and subscription redirection"
    source = "shared/seeds/pip-188-cluster-migration.md"
    VARIANTS = {
        "auto-create": "clusterMigrationAutoResourceCreation=true: the subscription exists on green before any redirect",
        "no-auto-create": "the default (false): the subscription is created on green when its consumer arrives, "
                          "at the latest position, so what the producer wrote there before is not retained for it",
    }
    DEFAULT_VARIANT = "auto-create"
    CONSTANTS = {"MESSAGES": 3}
    MUTANTS = (
        Mutant("redirect-consumer-with-backlog", "redirects the consumer before it has read everything in blue",
               ("drained_before_green", "consumer_on_green_has_drained_blue"), "auto-create"),
        Mutant("append-after-terminate", "blue still accepts a write after the topic was terminated",
               ("no_write_after_termination",), "auto-create"),
        Mutant("ignore-replication-backlog", "redirects the producer while blue's replicator still has a backlog",
               ("remote_complete_before_redirect",), "auto-create"),
        Mutant("migration-state-global", "keeps the migration flag in global policies, which sync to green",
               ("migration_state_stays_local",), "auto-create"),
        Mutant("ack-refused-send", "reports a send that blue refused (topic terminated) as acknowledged",
               ("no_acked_loss",), "auto-create"),
        Mutant("reorder-pending-on-redirect", "after the redirect, sends the message blue refused after the next one",
               ("producer_order",), "auto-create"),
    )

    def variables(self):
        m = self.MESSAGES
        seq = IntT(0, m)
        return {
            "next": IntT(1, m + 1),  # the producer's next message; m+1 = done
            "pside": SIDES,  # where the producer publishes
            "refused": BoolT(),  # blue refused the producer's current message (topic terminated)
            "owed": IntT(0, m),  # reorder mutant: a refused message kept aside
            "acked": ArrayT(m + 1, BoolT()),  # acked[i]: message i was persisted and acknowledged
            "blue": ArrayT(m, seq), "blue_len": IntT(0, m),
            "green": ArrayT(m, seq), "green_len": IntT(0, m),
            "replicated": IntT(0, m),  # blue entries the remote region has
            "remote_up": BoolT(),
            "cluster_migrated": BoolT(), "terminated": BoolT(),
            "green_migrated": BoolT(),  # what green believes of its own migration state
            "sside": SIDES, "blue_cursor": IntT(0, m), "green_cursor": IntT(0, m),
            "green_sub": BoolT(), "green_sub_start": IntT(0, m),
            "delivered": ArrayT(m + 1, BoolT()),
            # ghosts
            "g_max_delivered": seq, "g_out_of_order": BoolT(), "g_write_after_term": BoolT(),
            "g_redirect_with_repl_backlog": BoolT(), "g_green_read_before_drain": BoolT(),
        }

    def init(self, k):
        m = self.MESSAGES
        auto = self.variant == "auto-create"
        return {
            "next": 1, "pside": BLUE, "refused": False, "owed": 0, "acked": (False,) * (m + 1),
            "blue": (0,) * m, "blue_len": 0, "green": (0,) * m, "green_len": 0,
            "replicated": 0, "remote_up": True, "cluster_migrated": False, "terminated": False,
            "green_migrated": False, "sside": BLUE, "blue_cursor": 0, "green_cursor": 0,
            # auto resource creation happens before any redirect, so model it as already done
            "green_sub": auto, "green_sub_start": 0, "delivered": (False,) * (m + 1),
            "g_max_delivered": 0, "g_out_of_order": False, "g_write_after_term": False,
            "g_redirect_with_repl_backlog": False, "g_green_read_before_drain": False,
        }

    # ------------------------------------------------------------------ producer
    @action()
    def publish(self, s, k):
        """The producer sends its current message to the cluster it is attached to."""
        m = self.MESSAGES
        on_blue = s.pside == BLUE
        blue_open = True if self.mutant == "append-after-terminate" else k.Not(s.terminated)
        to_blue = k.And(on_blue, blue_open)
        to_green = k.Not(on_blue)
        refused = k.And(on_blue, k.Not(blue_open))
        guard = k.And(s.next <= m, k.Not(s.refused))
        stored = k.Or(to_blue, to_green)
        # mutants: a refused send reported as acknowledged; or the refused message kept
        # aside ("owed") and sent after the next one once on green
        fake_ack = self.mutant == "ack-refused-send"
        reorder = self.mutant == "reorder-pending-on-redirect"

        def effect():
            return {
                "blue": k.If(to_blue, k.store(s.blue, k.Min(s.blue_len, m - 1), s.next), s.blue),
                "blue_len": k.If(to_blue, k.Min(s.blue_len + 1, m), s.blue_len),
                "green": k.If(to_green, k.store(s.green, k.Min(s.green_len, m - 1), s.next), s.green),
                "green_len": k.If(to_green, k.Min(s.green_len + 1, m), s.green_len),
                "acked": k.If(k.Or(stored, k.And(refused, fake_ack)), k.store(s.acked, s.next, True), s.acked),
                "next": k.If(k.Or(stored, k.And(refused, fake_ack or reorder)), s.next + 1, s.next),
                "refused": k.And(refused, not fake_ack),
                "owed": k.If(k.And(refused, reorder), s.next, s.owed),
                "g_write_after_term": k.Or(s.g_write_after_term, k.And(to_blue, s.terminated)),
            }

        return guard, effect

    @action()
    def publish_owed(self, s, k):
        """(reorder mutant only) The message blue refused is sent after the next one."""
        if self.mutant != "reorder-pending-on-redirect":
            return False, {}
        m = self.MESSAGES
        guard = k.And(s.owed > 0, s.pside == GREEN, s.next > s.owed + 1)
        return guard, lambda: {
            "green": k.store(s.green, k.Min(s.green_len, m - 1), s.owed),
            "green_len": k.Min(s.green_len + 1, m),
            "acked": k.store(s.acked, s.owed, True),
            "owed": 0,
        }

    @action()
    def producer_redirect(self, s, k):
        """Blue sends TopicMigrated to the producer (only once the replicator has no backlog); it moves to green."""
        drained = s.replicated == s.blue_len
        if self.mutant == "ignore-replication-backlog":
            drained = True
        guard = k.And(s.terminated, s.pside == BLUE, drained)
        return guard, {"pside": GREEN, "refused": False,
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
    def replicate(self, s, k):
        """Blue's replicator copies its next entry to the remote region."""
        return k.And(s.remote_up, s.replicated < s.blue_len), {"replicated": s.replicated + 1}

    @action()
    def remote_down(self, s, k):
        return s.remote_up, {"remote_up": False}

    @action()
    def remote_up_again(self, s, k):
        return k.Not(s.remote_up), {"remote_up": True}

    # ---------------------------------------------------------------- subscription
    @action()
    def consume(self, s, k):
        """The consumer receives the next message of its subscription where it is attached."""
        m = self.MESSAGES
        on_blue = s.sside == BLUE
        has_blue = k.And(on_blue, s.blue_cursor < s.blue_len)
        has_green = k.And(k.Not(on_blue), s.green_sub, s.green_cursor < s.green_len)
        seq = k.If(on_blue, k.at(s.blue, k.Min(s.blue_cursor, m - 1)), k.at(s.green, k.Min(s.green_cursor, m - 1)))
        return k.Or(has_blue, has_green), {
            "blue_cursor": k.If(has_blue, s.blue_cursor + 1, s.blue_cursor),
            "green_cursor": k.If(has_green, s.green_cursor + 1, s.green_cursor),
            "delivered": k.store(s.delivered, seq, True),
            "g_out_of_order": k.Or(s.g_out_of_order, seq < s.g_max_delivered),
            "g_max_delivered": k.Max(s.g_max_delivered, seq),
            "g_green_read_before_drain": k.Or(s.g_green_read_before_drain,
                                              k.And(has_green, s.blue_cursor < s.blue_len)),
        }

    @action()
    def consumer_redirect(self, s, k):
        """Blue redirects the consumer once its subscription has no backlog in the terminated topic."""
        drained = s.blue_cursor == s.blue_len
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
    @invariant(holds_in={"auto-create"}, violated_in={"no-auto-create"})
    def no_acked_loss(self, s, k):
        """Every acknowledged message is delivered or still readable by the subscription."""
        m = self.MESSAGES
        checks = []
        for i in range(1, m + 1):
            in_blue = k.AnyOf([k.And(k.at(s.blue, j) == i, j < s.blue_len, k.Or(s.sside == BLUE, j < s.blue_cursor))
                               for j in range(m)])
            # on green a message is readable when the subscription exists, or will be created
            # from the start (only auto creation does that)
            in_green = k.AnyOf([k.And(k.at(s.green, j) == i, j < s.green_len,
                                      k.Or(k.And(s.green_sub, j >= s.green_sub_start),
                                           k.Not(s.green_sub) if self.variant == "auto-create" else False))
                                for j in range(m)])
            checks.append(k.Implies(k.at(s.acked, i), k.Or(k.at(s.delivered, i), in_blue, in_green)))
        return k.AllOf(checks)

    @invariant()
    def producer_order(self, s, k):
        """The subscription gets one producer's messages in the order they were sent, across the switch."""
        return k.Not(s.g_out_of_order)

    @invariant(inductive=True)
    def drained_before_green(self, s, k):
        """A subscription reads on green only after it has read everything in blue."""
        return k.Not(s.g_green_read_before_drain)

    @invariant(inductive=True)
    def consumer_on_green_has_drained_blue(self, s, k):
        """A consumer attached to green has read all of blue's terminated topic (strengthens the one above)."""
        return k.Implies(s.sside == GREEN, k.And(s.terminated, s.blue_cursor == s.blue_len))

    @invariant(inductive=True)
    def no_write_after_termination(self, s, k):
        """No message is appended to the topic in blue once it is terminated for migration."""
        return k.Not(s.g_write_after_term)

    @invariant(inductive=True)
    def remote_complete_before_redirect(self, s, k):
        """The producer leaves blue only when the remote region has every message blue stored."""
        return k.Not(s.g_redirect_with_repl_backlog)

    @invariant(inductive=True)
    def migration_state_stays_local(self, s, k):
        """Green never believes itself migrated (the flag lives in blue's local policies)."""
        return k.Not(s.green_migrated)
