"""What a tenant-migration run leaves to be judged (``Outcome``, saved beside its capture as
outcome.json by harness/outcome.py; the capture's rows are read back from the capture): the plan it
ran, the two cursors read at the switch, B's cursor polled over time and where B stored each message,
as the scenario read them. The figures the judge reads (``Figures``) are the judge's, computed from
those (judge.figures); Spark's verdict (``verdict``) is None until the record step (record.py) has taken
it. Positions are (ledger, entry) on the cluster that delivered the message."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ...harness import outcome as saved


def position(text: str | None) -> tuple[int, int] | None:
    """``ledger:entry[:...]`` (a msg_id or a markDeletePosition) as a comparable pair."""
    if not text or ":" not in text:
        return None
    ledger, entry = text.split(":")[:2]
    return int(ledger), int(entry)


@dataclass
class Figures:
    sent: int
    acked_on_a: int
    holes: int  # never acknowledged on A (delivered there or, a delayed message, not yet)
    delivered_on_b: int
    unacked_missing_on_b: int  # a hole B never delivered: skipped, lost to the application
    duplicates: int  # delivered on B although A had acknowledged them
    past_a_markdelete: int  # ... of which acknowledged past A's markDeletePosition (ack holes: problem 1)
    snapshot_lag: int  # ... of which at or before A's markDeletePosition (B's lagged: problems 2-3)
    a_markdelete: str | None
    b_markdelete: str | None
    b_followed_s: float | None = None  # after the last ack on A (or the link's release), until B's settled
    # the spec's bound (markdelete-only's switch): every message A acknowledged that B stored past its
    # markDeletePosition comes again, and nothing else; None without B's positions
    spec_bound: int | None = None
    below_b_markdelete: int = 0  # delivered on B although stored at or before B's markDeletePosition
    b_replicated_s: float | None = None  # after A's link to B was released, until B had every entry
    # seconds after the last ack on A (or the link's release) until A's replicator to B had no backlog,
    # waited for before the switch; None: B never caught up, and the switch judges no progress sync
    b_caught_up_s: float | None = None
    replicator_at_switch: dict | None = None  # A's replicator to B as topic stats showed it then
    # messages acknowledged on A or delivered on B with no position B's reader listed (B had trimmed the ledger
    # holding them once its consumer drained them): the bound cannot be counted then, and is None
    unlisted_on_b: int = 0

    def text(self) -> str:
        return (f"{self.sent} sent, {self.acked_on_a} acknowledged on A, {self.holes} holes left; after the switch B "
                f"delivered {self.delivered_on_b}: {self.duplicates} of them acknowledged on A before "
                f"({self.past_a_markdelete} past A's markDeletePosition {self.a_markdelete}: ack holes; "
                f"{self.snapshot_lag} before it: B's markDeletePosition {self.b_markdelete} lagged), "
                f"{self.unacked_missing_on_b} unacknowledged messages never delivered on B; "
                + ("B's markDeletePosition never moved while polled" if self.b_followed_s is None else
                   f"B's markDeletePosition settled {self.b_followed_s} s after the last ack on A (or the link's release)")
                + ("" if self.b_replicated_s is None else
                   f"; B had every entry {self.b_replicated_s} s after the link's release")
                + ("" if self.b_caught_up_s is None else
                   f"; the switch waited until A's replicator to B had no backlog ({self.b_caught_up_s} s)")
                + (f"; the spec's bound (markdelete-only) not counted: {self.unlisted_on_b} of the messages acknowledged "
                   "on A or delivered on B have no position B's reader listed (B trimmed the ledger that held them)"
                   if self.unlisted_on_b else
                   "; the spec "
                   f"(markdelete-only) bounds the duplicates by {self.spec_bound}: what A acknowledged past B's "
                   f"markDeletePosition"
                   + (f"; {self.below_b_markdelete} delivered from at or before it" if self.below_b_markdelete else "")))


@dataclass(frozen=True)
class Plan:
    messages: int = 300
    hole_every: int = 10  # every k-th message stays unacknowledged on A ...
    holes_from: int = 1  # ... from this message on (a clean prefix lets A's markDeletePosition advance)
    rate: float = 0.0  # messages per second (0: as fast as the broker takes them); cursor snapshots come every second
    sub_type: str = "Shared"  # Shared | KeyShared
    settle_s: float = 8.0  # for cursor snapshots (every second by default) and the markDelete sync
    skip_on_b: int = 0  # a broken run: skip this many messages on B before the switch (a loss)
    hold_link_s: float = 0.0  # A -> B held from before the first message until this long after the last ack on A
    delayed: tuple[int, ...] = ()  # these messages are sent with deliver_after ``delay_s`` (a hole on A ...)
    delay_s: float = 0.0  # ... that lasts past the switch: B must deliver them once due
    # settle_s is then at most: polls end once B's markDeletePosition moved and held still 3 s
    settle_until_moved: bool = False
    # the client of the consumer moved to B: "python" (the capture's own) or "java" (pulsar-client-original
    # of the run's Java client release, the Java harness's mode=drain; no delayed messages)
    consumer_on_b: str = "python"


@dataclass
class Outcome:
    name: str
    run_dir: Path
    topic: str
    plan: Plan
    verdict: dict | None  # Spark's, over the capture: None until the record step took it (record.py)
    markers: list
    a_cursor: dict
    b_cursor: dict
    # no figures: the judge computes them from these fields and the capture (judge.figures); an outcome.json
    # saved before issue 49 holds them too, under "figures", which loading leaves out
    progress: list[dict]  # both markDeletePositions and what B has, polled
    b_positions: dict[str, str]  # uid -> where B stored it (a reader's view)
    columns: dict = saved.captured()  # the capture's rows (the capture's files hold them)


# ---------------------------------------------------------------------------------------------------
# The seed's step 2 on existing data (TM-S2): A holds a backlog and retained messages before B is
# added to the namespace's replication clusters; what reaches B is judged against the setting.

# the start positions the release's replicationStartAt can say: "earliest" as its documentation says,
# MessageId.earliest's text as the releases before PR #23719 need (their "earliest" gives Latest)
EARLIEST_VALUES = ("earliest", "-1:-1:-1")


@dataclass(frozen=True)
class StartPlan:
    start_at: str = ""  # replicationStartAt set on A before B is added; "": the release's default
    before: int = 100  # messages on A before B is added ...
    acked_before: int = 50  # ... of which the subscription on A acknowledges the first (the rest: A's backlog)
    after: int = 50  # messages on A after B was added (A's consumer has left: nobody consumes them on A)


@dataclass
class StartOutcome:
    name: str
    run_dir: Path
    topic: str
    plan: StartPlan
    verdict: dict | None  # Spark's: None until the record step took it
    markers: list
    # the setting as asked and as the broker then reported it (GET .../configuration/runtime):
    # {"asked", "effective", "present" (the release has the key), "refused" (the admin's answer)}
    setting: dict
    added_ns: int  # when B was added to A's replication clusters: sends before it are A's existing data
    on_a: dict  # A's topic before B was added: lastConfirmedEntry, the subscription's markDeletePosition
    replicator_cursor: dict  # A's cursor pulsar.repl.<B> right after B was added (where it starts)
    caught_up_s: float | None  # after the last send, until A's replicator to B had no backlog
    replicator: dict  # A's replicator to B as topic stats showed it then
    b_positions: dict[str, str]  # uid -> where B stored it (a reader from earliest)
    columns: dict = saved.captured()


# ---------------------------------------------------------------------------------------------------
# The seed's step 5 (TM-S5): after the switch, A removed from B's replication clusters, A's backlog to
# B drained, then A removed from A's own list and the tenant's topic on A deleted.

@dataclass(frozen=True)
class CleanupPlan:
    # 3 s of publishing: cursor snapshots (every second) land inside the prefix, so B's markDeletePosition
    # moves before the clean-up (at 100 messages in 1 s it never did in 10 s: 4.2.4, 2026-11-25)
    messages: int = 300
    acked: int = 200  # the subscription on A acknowledges the first ``acked`` (a clean prefix)
    rate: float = 100.0  # messages per second
    settle_s: float = 10.0  # at most, for B's markDeletePosition to follow A's and hold still


@dataclass
class CleanupOutcome:
    name: str
    run_dir: Path
    topic: str
    plan: CleanupPlan
    verdict: dict | None  # Spark's: None until the record step took it
    markers: list
    steps: list[dict]  # each clean-up call in order: what was asked, when, the answer
    a_topic_gone: bool | None  # A no longer lists the topic after the clean-up (None: never read)
    b_cursor_before: dict  # the subscription on B right before the clean-up ...
    b_cursor_after: dict  # ... and right after it (markDeletePosition, individuallyDeletedMessages)
    b_before: dict[str, str]  # uid -> position on B before the clean-up (a reader)
    b_after: dict[str, str]  # ... and after it
    columns: dict = saved.captured()


# ---------------------------------------------------------------------------------------------------
# The seed's step 4 (TM-S4): "trigger topic unload" on A and on B while A's replicator carries a backlog
# and producers keep writing.

# how the switch renews the clients: the seed's unloads, or what an operator does instead, a rolling
# restart of each cluster's brokers (graceful: SIGTERM runs the broker's shutdown)
SWITCHES = ("unload", "restart")


@dataclass(frozen=True)
class UnloadPlan:
    producers: int = 1  # producers per topic on A (the research note: V1 dedup loses with several)
    dedup: bool = False  # deduplication enabled on the namespace on A and on B
    rate: float = 300.0  # messages per second, all producers together
    seconds: float = 8.0  # how long they write at least (a restart's switch writes on until 2 s after it)
    unload_at_s: float = 4.0  # when both namespaces are unloaded (A's, then B's)
    throttle: int = 100  # A's replicator dispatch rate (msg/s) until after the unloads: a backlog at the switch
    switch: str = "unload"  # SWITCHES: the namespace unloaded, or the cluster restarted, A then B
    # A's namespace retains what it stores, so A's own copies can be read back: a producer's resend over
    # a restart may store a message twice on A already, which is no copy made by replication
    retain_on_a: bool = False

    def __post_init__(self) -> None:
        if self.switch not in SWITCHES:
            raise ValueError(f"switch {self.switch!r}: one of {', '.join(SWITCHES)}")


@dataclass
class UnloadOutcome:
    name: str
    run_dir: Path
    topic: str
    plan: UnloadPlan
    verdict: dict | None  # Spark's: None until the record step took it
    markers: list
    unloads: list[dict]  # each unload: which cluster, when, A's replicator to B just before, the answer
    settings: dict  # replicationProducerQueueSize, B's deduplication status, as read
    caught_up_s: float | None  # after the throttle was lifted, until A's replicator to B had no backlog
    replicator: dict  # A's replicator to B then
    b_stored: list[list[str]]  # [uid, position] for every message B holds, in B's order (a reader)
    columns: dict = saved.captured()
    a_stored: list[list[str]] | None = None  # the same on A (plan.retain_on_a), None: not read


# ---------------------------------------------------------------------------------------------------
# Step 4 with a message TTL on A's namespace while B is unreachable (TM-S4-ttl): what of A's replication
# backlog outlives the TTL once B is reachable again.

@dataclass(frozen=True)
class TtlPlan:
    # messageTTLInSeconds on A's namespace, set once A's replicator to B runs: a replicator takes its
    # namespace's TTL at the replication check that follows a policy change (PersistentTopic.checkReplication),
    # as one that has run longer than replicationPolicyCheckDurationSeconds (600 s) always has
    ttl_s: int = 5
    rate: float = 50.0  # messages per second on A, from the cut until A's replicator has caught up again
    outage_s: float = 8.0  # B unreachable from A (A's link to B cut) this long: longer than the TTL


@dataclass
class TtlOutcome:
    name: str
    run_dir: Path
    topic: str
    plan: TtlPlan
    verdict: dict | None  # Spark's: None until the record step took it
    markers: list
    ttl: dict  # the TTL as asked and as A's namespace then reported it (GET .../messageTTL), or the refusal
    cut_ns: int  # when B became unreachable from A ...
    healed_ns: int  # ... and reachable again
    caught_up_ns: int | None  # when A's replicator to B was connected with no backlog (None: never, in time)
    replicator: dict  # A's replicator to B then
    b_stored: list[list[str]]  # [uid, position] for every message B holds, in B's order (a reader)
    columns: dict = saved.captured()
