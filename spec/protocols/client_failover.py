"""PIP-121: client cluster failover, as the C++/Python and Java clients implement it.

Seed: https://github.com/apache/pulsar/blob/master/pip/pip-121.md; what the clients really do:
docs/client-failover.md and docs/findings.md.

Time is counted in probe ticks: a ``tick`` is one run of the client's check task, which
probes with a plain TCP connect, so a probe succeeds exactly when the cluster is up at
that tick. The environment takes clusters down and up between ticks, any number of times.

Variables prefixed ``g_`` are ghosts: the protocol never reads them; they record what
really happened (how long the primary has been down, what the last tick did) so that the
invariants can judge the protocol's own counters against the truth.
"""
from __future__ import annotations

import math

from ..core.model import ArrayT, BoolT, EnumT, IntT, Mutant, Spec, action, invariant

# what the last tick did, for the invariants
STAY, FAILOVER, SWITCHBACK, HOP, RECONNECT = 0, 1, 2, 3, 4
TICK_OUTCOMES = EnumT(("stay", "failover", "switchback", "hop", "reconnect"))
PRIMARY = 0


class ClientFailover(Spec):
    name = "client-failover"
    title = "PIP-121 client cluster failover (AutoClusterFailover, ControlledClusterFailover)"
    source = "https://github.com/apache/pulsar/blob/master/pip/pip-121.md"
    VARIANTS = {
        "cpp": "C++/Python AutoClusterFailover: consecutive probe counts against failover/switch-back thresholds",
        "java": "Java AutoClusterFailover: failoverDelay/switchBackDelay measured from the first failed/ok probe, fixed-rate ticks",
        "controlled": "Java ControlledClusterFailover: the client polls an URL provider and follows its answer",
    }
    DEFAULT_VARIANT = "cpp"
    Z3_BITS = 32  # ages times milliseconds: (cap - 1) * CHECK_INTERVAL_MS must fit
    CONSTANTS = {
        "SECONDARIES": 2,
        # cpp: consecutive probes
        "FAILOVER_THRESHOLD": 2,
        "SWITCH_BACK_THRESHOLD": 2,
        # java: milliseconds
        "CHECK_INTERVAL_MS": 1000,
        # whole multiples of the interval: the case where >= and > differ, and where
        # apache/pulsar#25326 says nanoTime jitter adds a probe
        "FAILOVER_DELAY_MS": 2000,
        "SWITCH_BACK_DELAY_MS": 2000,
    }
    # delays of at most 600 intervals: the Java counters count probes up to delay / interval
    CONSTANT_LIMITS = {"SECONDARIES": (1, 4), "FAILOVER_THRESHOLD": (1, 10), "SWITCH_BACK_THRESHOLD": (1, 10),
                       "CHECK_INTERVAL_MS": (100, 60_000), "FAILOVER_DELAY_MS": (0, 60_000),
                       "SWITCH_BACK_DELAY_MS": (0, 60_000)}
    MUTANTS = (
        Mutant("threshold-off-by-one", "fails over one failed probe early", ("no_early_failover",), "cpp"),
        Mutant("switch-without-probe", "fails over to the first listed secondary without checking its probe",
               ("switch_only_to_reachable",), "cpp"),
        Mutant("first-secondary-only", "tries only the first secondary, never the others",
               ("bounded_failover",), "cpp"),
        Mutant("switch-back-on-first-success", "switches back on the first successful primary probe",
               ("no_early_switchback", "no_fast_oscillation"), "cpp"),
        Mutant("switch-back-one-late", "needs one more ok primary probe than configured before switching back",
               ("bounded_switchback",), "cpp"),
        Mutant("stay-on-dead-secondary", "never leaves a secondary that stopped answering",
               ("escape_dead_secondary",), "cpp"),
        Mutant("bug-14442-unguarded-switch-back-check",
               "apache/pulsar#14442 undone: the switch-back check also runs while on the primary, so the client "
               "'switches' to the primary it is on and drops every connection",
               ("no_needless_reconnect",), "java"),
        Mutant("delay-strictly-greater", "waits for elapsed > failoverDelay instead of >=: one probe late",
               ("bounded_failover",), "java"),
        Mutant("ignore-return-to-default", "does not follow the provider back to the default (primary) URL",
               ("follows_provider",), "controlled"),
    )

    # ------------------------------------------------------------------ shape
    def setup(self):
        self.clusters = EnumT(("primary",) + tuple(f"s{i}" for i in range(1, self.SECONDARIES + 1)))
        self.secondaries = tuple(range(1, self.SECONDARIES + 1))
        interval = self.CHECK_INTERVAL_MS
        # Java compares (now - first failed probe) with the delay; in ticks that is the
        # number of probes after the first one. The probe-count equivalents are derived by
        # running the model (describe_constants), these are only the bounds of the counters.
        self.java_fail_cap = math.ceil(self.FAILOVER_DELAY_MS / interval) + 2
        self.java_back_cap = math.ceil(self.SWITCH_BACK_DELAY_MS / interval) + 2
        self.cap = max(self.FAILOVER_THRESHOLD, self.SWITCH_BACK_THRESHOLD, self.java_fail_cap, self.java_back_cap) + 1

    def variables(self):
        c = self.clusters
        return {
            "up": ArrayT(c, BoolT()),
            "current": c,
            # protocol state; each variant uses its own part, the rest stays at 0
            "fails": IntT(0, self.cap),  # cpp: consecutive failed probes of the current cluster
            "oks": IntT(0, self.cap),  # cpp: consecutive ok primary probes while on a secondary
            "fail_age": IntT(0, self.cap),  # java: ticks since the first failed probe, 0 = none recorded
            "recover_age": IntT(0, self.cap),  # java: ticks since the first ok primary probe, 0 = none
            "provider": c,  # controlled: what the URL provider answers
            "polled": BoolT(),  # controlled: the client has polled since the provider's answer changed
            # ghosts
            "g_p_down": IntT(0, self.cap),  # consecutive ticks the primary probed down
            "g_p_up": IntT(0, self.cap),  # consecutive ticks the primary probed up
            "g_cur_down": IntT(0, self.cap),  # consecutive ticks the current cluster probed down
            "g_last": TICK_OUTCOMES,
            "g_target_ok": BoolT(),  # the target of the last switch probed ok on that tick
            "g_gap": IntT(0, self.cap),  # ticks between the last two switches
            "g_since_switch": IntT(0, self.cap),
            "g_other_ok": BoolT(),  # at the last tick, a cluster other than current probed ok
            "g_sec_ok": BoolT(),  # at the last tick, some secondary probed ok
            "g_left_dead": BoolT(),  # the last switch left a cluster that probed down
        }

    def init(self, k):
        n = len(self.clusters.names)
        return {
            "up": (True,) * n, "current": PRIMARY, "fails": 0, "oks": 0, "fail_age": 0, "recover_age": 0,
            "provider": PRIMARY, "polled": True,
            "g_p_down": 0, "g_p_up": 0, "g_cur_down": 0, "g_last": STAY, "g_target_ok": True,
            "g_gap": self.cap, "g_since_switch": self.cap, "g_other_ok": False, "g_sec_ok": True, "g_left_dead": False,
        }

    # ------------------------------------------------------------ environment
    @action(c="clusters")
    def go_down(self, s, k, c):
        """The environment takes cluster c down (its TCP probe will fail)."""
        return k.at(s.up, c), {"up": k.store(s.up, c, False)}

    @action(c="clusters")
    def come_up(self, s, k, c):
        """The environment brings cluster c back."""
        return k.Not(k.at(s.up, c)), {"up": k.store(s.up, c, True)}

    @action(c="clusters")
    def admin_points_to(self, s, k, c):
        """Controlled failover: the operator changes the provider's answer to cluster c."""
        if self.variant != "controlled":
            return False, {}
        return s.provider != c, {"provider": c, "polled": False}

    # ------------------------------------------------------------------- tick
    @action()
    def tick(self, s, k):
        """One run of the client's check task: probe, count, maybe switch."""
        reconnect = False
        if self.variant == "cpp":
            target, counters = self._cpp_tick(s, k)
        elif self.variant == "java":
            target, counters, reconnect = self._java_tick(s, k)
        else:
            target, counters = self._controlled_tick(s, k)
        return True, {**counters, **self._ghosts(s, k, target, reconnect), "current": target}

    def _first_up(self, s, k, candidates, default):
        return k.first([k.at(s.up, c) for c in candidates], list(candidates), default)

    def _cpp_tick(self, s, k):
        ft, st = self.FAILOVER_THRESHOLD, self.SWITCH_BACK_THRESHOLD
        on_primary = s.current == PRIMARY
        p_up = k.at(s.up, PRIMARY)
        cur_up = k.at(s.up, s.current)
        fails = k.If(cur_up, 0, k.Min(s.fails + 1, self.cap))
        # on the primary: fail over once the threshold is reached, to the first reachable secondary
        need = ft - 1 if self.mutant == "threshold-off-by-one" else ft
        candidates = self.secondaries[:1] if self.mutant == "first-secondary-only" else self.secondaries
        if self.mutant == "switch-without-probe":
            failover_to = candidates[0]
        else:
            failover_to = self._first_up(s, k, candidates, PRIMARY)
        from_primary = k.If(fails >= need, failover_to, PRIMARY)
        # on a secondary: a dead secondary is left at once for the primary if it is up, else for
        # another reachable secondary; otherwise count ok primary probes up to the threshold
        oks = k.If(p_up, k.Min(s.oks + 1, self.cap), 0)
        back_need = {"switch-back-on-first-success": 1, "switch-back-one-late": st + 1}.get(self.mutant, st)
        other_sec = k.first([k.And(k.at(s.up, c), s.current != c) for c in self.secondaries],
                            list(self.secondaries), s.current)
        escape = k.If(p_up, PRIMARY, other_sec)
        dead = fails >= ft
        if self.mutant == "stay-on-dead-secondary":
            dead = False
        from_secondary = k.If(dead, escape, k.If(oks >= back_need, PRIMARY, s.current))
        target = k.If(on_primary, from_primary, from_secondary)
        switched = target != s.current
        return target, {
            "fails": k.If(switched, 0, fails),
            "oks": k.If(k.Or(switched, on_primary), 0, oks),
        }

    def _java_tick(self, s, k):
        """AutoClusterFailover.java (4.2.4, 5.0.0-M1) step by step.

        failedTs/recoverTs are instants; the model keeps their age in ticks instead (0 =
        unset, 1 = recorded on this tick), so a timestamp nobody clears keeps ageing, which
        is exactly how a stale one cuts a later delay short.
        """
        interval, cap = self.CHECK_INTERVAL_MS, self.cap
        primary_up = k.at(s.up, PRIMARY)
        on_primary = s.current == PRIMARY

        def aged(age):
            return k.If(age > 0, k.Min(age + 1, cap), 0)

        def overdue(age, delay):
            elapsed = age - 1
            if self.mutant == "delay-strictly-greater":
                return k.And(age > 1, elapsed * interval > delay)
            return k.And(age > 1, elapsed * interval >= delay)

        fail_age, recover_age = aged(s.fail_age), aged(s.recover_age)
        cur_up = k.at(s.up, s.current)
        # part 1, on the primary: probeAndUpdateServiceUrl(List<String> secondaries)
        # part 1, on a secondary: probeAndUpdateServiceUrl(String primary), which never tries
        # another secondary
        fail_age = k.If(cur_up, 0, k.If(fail_age == 0, 1, fail_age))
        due = overdue(fail_age, self.FAILOVER_DELAY_MS)
        first_ok = self._first_up(s, k, self.secondaries, PRIMARY)
        part1 = k.If(on_primary,
                     k.If(due, first_ok, PRIMARY),
                     k.If(k.And(due, primary_up), PRIMARY, s.current))
        switched1 = part1 != s.current
        fail_age = k.If(switched1, 0, fail_age)
        # part 2: probeAndCheckSwitchBack, guarded since #14442 by "current is not the primary"
        if self.mutant == "bug-14442-unguarded-switch-back-check":
            run2 = True
        else:
            run2 = part1 != PRIMARY
        recorded = k.If(primary_up, k.If(recover_age == 0, 1, recover_age), 0)
        back = k.And(run2, primary_up, overdue(recorded, self.SWITCH_BACK_DELAY_MS))
        recover_age = k.If(run2, k.If(back, 0, recorded), recover_age)
        target = k.If(back, PRIMARY, part1)
        # Java's updateServiceUrl closes every connection even when the url is the current one
        reconnect = k.And(back, part1 == PRIMARY)
        return target, {"fail_age": fail_age, "recover_age": recover_age}, reconnect

    def _controlled_tick(self, s, k):
        follow = s.provider
        if self.mutant == "ignore-return-to-default":
            follow = k.If(s.provider == PRIMARY, s.current, s.provider)
        return follow, {"polled": True}

    def _ghosts(self, s, k, target, reconnect):
        p_up = k.at(s.up, PRIMARY)
        cur_up = k.at(s.up, s.current)
        switched = target != s.current
        outcome = k.If(
            k.Not(switched), k.If(reconnect, RECONNECT, STAY),
            k.If(s.current == PRIMARY, FAILOVER, k.If(target == PRIMARY, SWITCHBACK, HOP)),
        )
        since = k.Min(s.g_since_switch + 1, self.cap)
        return {
            "g_p_down": k.If(p_up, 0, k.Min(s.g_p_down + 1, self.cap)),
            "g_p_up": k.If(p_up, k.Min(s.g_p_up + 1, self.cap), 0),
            "g_cur_down": k.If(switched, 0, k.If(cur_up, 0, k.Min(s.g_cur_down + 1, self.cap))),
            "g_last": outcome,
            "g_target_ok": k.If(switched, k.at(s.up, target), s.g_target_ok),
            "g_gap": k.If(switched, since, s.g_gap),
            "g_since_switch": k.If(switched, 0, since),
            "g_other_ok": k.AnyOf([k.And(k.at(s.up, c), s.current != c) for c in self.clusters.values()]),
            "g_sec_ok": k.AnyOf([k.at(s.up, c) for c in self.secondaries]),
            "g_left_dead": k.If(switched, k.Not(cur_up), s.g_left_dead),
        }

    # -------------------------------------------------------------- invariants
    def _switched(self, s, k):
        return k.And(s.g_last != STAY, s.g_last != RECONNECT)

    def _failover_probes(self, streak, k):
        """Has the primary been failing long enough, as the configuration promises?"""
        if self.variant == "java":
            return k.And(streak > 0, (streak - 1) * self.CHECK_INTERVAL_MS >= self.FAILOVER_DELAY_MS)
        return streak >= self.FAILOVER_THRESHOLD

    def _switchback_probes(self, streak, k):
        if self.variant == "java":
            return k.And(streak > 0, (streak - 1) * self.CHECK_INTERVAL_MS >= self.SWITCH_BACK_DELAY_MS)
        return streak >= self.SWITCH_BACK_THRESHOLD

    @invariant(holds_in={"cpp", "java"}, violated_in={"controlled"}, inductive=True)
    def switch_only_to_reachable(self, s, k):
        """Never switch to a cluster whose probe failed on that tick."""
        return k.Implies(self._switched(s, k), s.g_target_ok)

    # Java 4.2.4/5.0.0-M1: failedTs is not cleared when the switch-back check moves the
    # client to the primary, so failures seen on the secondary count toward the next
    # failover (a finding of this spec; see docs/findings.md).
    @invariant(holds_in={"cpp"}, violated_in={"java"})
    def no_early_failover(self, s, k):
        """Never leave the primary before the configured consecutive failed probes (cpp) or delay (java)."""
        return k.Implies(s.g_last == FAILOVER, self._failover_probes(s.g_p_down, k))

    @invariant(holds_in={"cpp", "java"})
    def no_early_switchback(self, s, k):
        """Never switch back before the configured consecutive ok probes (cpp) or delay (java), except
        the documented immediate switch-back when the current secondary is dead."""
        immediate = s.g_left_dead
        return k.Implies(s.g_last == SWITCHBACK, k.Or(self._switchback_probes(s.g_p_up, k), immediate))

    @invariant(holds_in={"cpp", "java"})
    def bounded_failover(self, s, k):
        """Once the primary has failed for the configured probes while a secondary answers, the client is off it."""
        return k.Not(k.And(s.current == PRIMARY, self._failover_probes(s.g_p_down, k), s.g_sec_ok))

    @invariant(holds_in={"cpp", "java"})
    def bounded_switchback(self, s, k):
        """Once the primary has answered for the configured probes, a client on a secondary is back on it."""
        return k.Not(k.And(s.current != PRIMARY, self._switchback_probes(s.g_p_up, k)))

    @invariant(holds_in={"cpp"}, violated_in={"java"})
    def no_fast_oscillation(self, s, k):
        """Two switches are at least min(failover, switch-back) probes apart."""
        if self.variant == "java":
            least = min(self._probes_for(self.FAILOVER_DELAY_MS), self._probes_for(self.SWITCH_BACK_DELAY_MS))
        else:
            least = min(self.FAILOVER_THRESHOLD, self.SWITCH_BACK_THRESHOLD)
        return k.Implies(self._switched(s, k), s.g_gap >= least)

    @invariant()
    def no_needless_reconnect(self, s, k):
        """The client never tears down its connections to switch to the cluster it is already on."""
        return s.g_last != RECONNECT

    @invariant(holds_in={"cpp"}, violated_in={"java"})
    def escape_dead_secondary(self, s, k):
        """A client on a dead secondary moves once the threshold is reached and another cluster answers."""
        return k.Not(k.And(s.current != PRIMARY, s.g_cur_down >= self.FAILOVER_THRESHOLD, s.g_other_ok))

    @invariant(holds_in={"controlled"})
    def follows_provider(self, s, k):
        """Controlled failover: after a poll, the client uses the URL the provider answers."""
        return k.Implies(s.polled, s.current == s.provider)

    def _probes_for(self, delay_ms: int) -> int:
        """How many probe ticks a Java delay stands for: the first probe plus ceil(delay/interval)."""
        return math.ceil(delay_ms / self.CHECK_INTERVAL_MS) + 1

    # ---------------------------------------------------------------- figures
    def describe_constants(self):
        if self.variant != "java":
            return {}
        from ..core.derive import probes_until

        down = probes_until(self, setup=["go_down(c=primary)"], outcome=FAILOVER)
        back = probes_until(self, setup=["go_down(c=primary)"] + ["tick"] * down + ["come_up(c=primary)"],
                            outcome=SWITCHBACK)
        return {
            "failover_delay_ms": self.FAILOVER_DELAY_MS,
            "switch_back_delay_ms": self.SWITCH_BACK_DELAY_MS,
            "check_interval_ms": self.CHECK_INTERVAL_MS,
            "failed_probes_until_failover": down,
            "ok_probes_until_switch_back": back,
            "note": "apache/pulsar#25326: the Java delays act as probe counts; figures derived by running the model",
        }
