"""The §5.2 checks as PySpark DataFrame jobs.

Why it is shaped like this (measured on 2 cores, benchmarks/spark/README.md): Spark's costs
here are moving rows through shuffles, sorting, and window operators over millions of groups
of 2-5 rows. So:

- Identity is numbers. In format /2 a uid is ``<producer>/<seq>`` (docs/capture.md), so a
  message is keyed by (producer code, seq): the producer dictionary-coded from the Parquet
  files' own dictionaries (pyarrow at the driver, milliseconds), seq as read. No uid string is
  hashed on the hot path. Rows whose seq is not positive (messages that did not come through a
  capture: ``foreign:...`` uids with seq 0) and every row of a format /1 capture (whose uid is
  not its producer and seq) are keyed by two hashes of the uid instead (96 bits: a collision
  among 10^8 uids has odds below 10^-12). (topic, subscription) and, on receives, (client,
  producer, key) become 64-bit hashes, the kind a code.
- One shuffle by identity puts all events of a message in one partition. Two hash
  aggregations on that partitioning, per pair (uid, topic, subscription) over receives and
  acks and per uid over sends and receives, with fixed-width aggregates only (a struct
  aggregate makes Spark sort instead). A pair's least and greatest delivery, in (ts,
  redelivery count) order packed into one long, make its facts exact for up to two
  deliveries: its first delivery goes to the ordering check, its duplicate and
  redelivered_after_ack findings follow directly, and so do the uid's lost findings.
- Everything else marks its uid: a pair delivered three times or more, a uid delivered
  without a send_ok (unexpected, recovered: the per-pair classes that need the uid's sends,
  and the ordering check that must leave a never-sent uid out). Marked uids are few and
  broadcast: the first pass's rows of a marked uid are dropped, and a second pass takes its
  events and decides it whole with the exact window formulation, whose sort covers their
  rows only.
- The ordering check needs the only other shuffle: first deliveries by (subscription, client,
  producer, key), one sort, one running max. The other classes' findings ride through it, so
  the job stays one stream: one ranking, one collect.
- The few examples are turned back into strings at the end by one filtered scan.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from functools import partial

import pyarrow.compute as pc
import pyarrow.parquet as pq
from pyspark.sql import Column, DataFrame, SparkSession, Window
from pyspark.sql import functions as F

from pulsar_conformance.fixtures.capture.schema import FORMAT

from .capture_input import CaptureInput
from .classes import (
    CLASSES,
    DUPLICATE,
    LOST,
    MAX_EXAMPLES,
    NONMONOTONIC,
    RECOVERED,
    REDELIVERED_AFTER_ACK,
    UNEXPECTED,
)

OK, ERR, UNKNOWN, RECV, ACK = 0, 1, 2, 3, 4
_KIND_CODES = {"send_ok": OK, "send_err": ERR, "send_unknown": UNKNOWN, "receive": RECV, "ack": ACK}
# A message's identity: (producer code, seq), or two uid hashes (module docstring).
_ID = ["idp", "ids"]
# What a row of the stream into the ordering check stands for: a first delivery that the
# check orders (it may carry findings too), findings only, or a uid for the second pass.
ORDER, PASS, MARKER = 0, 1, 2
# Up to this many producers are coded by a search in a literal array; more by a broadcast join.
INLINE_PRODUCERS = 64
_FINDING = ("struct<class:string,k1:bigint,k2:bigint,k3:bigint,idp:int,ids:bigint,tsk:bigint,seq:bigint,"
            "fgrp:bigint,detail:string>")
_FINDINGS = f"array<{_FINDING}>"


def run_checks(spark: SparkSession, capture: CaptureInput) -> dict:
    must_see = capture.manifest["must_see"]
    identity = partial(_with_identity, spark=spark, producers=_producers(capture))
    raw, ranked = _plan(spark, capture, identity)
    rows = ranked.filter(F.col("rank") <= MAX_EXAMPLES).orderBy("class", "rank").collect()
    counts = {name: 0 for name in CLASSES}
    for row in rows:
        counts[row["class"]] = row["n"]
    examples = _examples(raw, rows, must_see, identity)
    # Only "were there any sends" matters to the verdict, and this stops at the first one.
    sends = raw.filter(F.col("kind").isin("send_ok", "send_err", "send_unknown")).limit(1).count()
    return {"counts": counts, "examples": examples, "sends": sends}


def _producers(capture: CaptureInput) -> tuple[str, ...] | None:
    """The producer names of a format /2 capture, from the column dictionaries; None for /1."""
    if capture.manifest["format"] != FORMAT:
        return None
    names: set[str] = set()
    for path in capture.files:
        column = pq.read_table(path, columns=["producer"], read_dictionary=["producer"]).column(0)
        for chunk in column.chunks:
            names.update(chunk.dictionary.to_pylist())
    names.discard(None)
    return tuple(sorted(names))


def _with_identity(df: DataFrame, *, spark: SparkSession, producers: tuple[str, ...] | None) -> DataFrame:
    """``df`` with the identity columns ``idp`` (int) and ``ids`` (long)."""
    c = F.col
    if producers is None:
        return df.withColumns({"idp": F.hash("uid"), "ids": F.xxhash64("uid")})
    if len(producers) <= INLINE_PRODUCERS:
        code = F.array_position(F.array(*map(F.lit, producers)), c("producer")).cast("int")
    else:
        codes = spark.createDataFrame(list(enumerate(producers, 1)), "_pcode int, producer string")
        df = df.join(F.broadcast(codes), "producer", "left")
        code = c("_pcode")
    # The harness numbers from 1; a message it did not number (seq 0) is known by its uid alone.
    numbered = c("seq") > 0
    return df.withColumns({"idp": F.when(numbered, code).otherwise(F.lit(-1)),
                           "ids": F.when(numbered, c("seq")).otherwise(F.xxhash64("uid"))})


def _plan(spark: SparkSession, capture: CaptureInput, identity) -> tuple[DataFrame, DataFrame]:
    """The capture and its findings ranked per class (``n`` findings, ``rank`` from 1)."""
    must_see = capture.manifest["must_see"]
    # Explicit partition counts: the events and both inputs of the ordering check must stay
    # partitioned alike, which Spark's coalescing of small shuffles would undo.
    parts = int(spark.conf.get("spark.sql.shuffle.partitions"))
    raw = spark.read.parquet(*capture.files)
    events = _shared(_numeric(identity(raw)).repartition(parts, *_ID))
    first = _shared(_first_pass(_use(events), must_see, DeliveryOrder.of(capture)).repartition(parts, "tsk", "fgrp"))
    # The marked uids are few (a redelivery loop, a message never sent ok): broadcast, they
    # leave both big inputs where they are.
    marked = F.broadcast(_use(first).filter(F.col("role") == MARKER).select(*_ID))
    decided = _second_pass(_use(events).join(marked, _ID, "left_semi"), must_see)
    kept = _use(first).filter(F.col("role") != MARKER).join(marked, _ID, "left_anti")
    stream = kept.drop("role").unionByName(decided.drop("role").repartition(parts, "tsk", "fgrp"))
    found = _ordering(stream).select(F.explode("found").alias("f")).select("f.*")
    by_class = Window.partitionBy("class")
    ranked = found.withColumn("n", F.count("*").over(by_class)).withColumn(
        "rank", F.row_number().over(by_class.orderBy("k1", "k2", "k3", *_ID, "tsk")))
    return raw, ranked


@dataclass(frozen=True)
class DeliveryOrder:
    """Deliveries in (ts, redelivery count) order as one long: ts from the capture's first
    event, shifted left by ``bits``, and the redelivery count (at most 2^bits - 1) below it.
    Eight bits unless the capture spans more than 2^54 ns (208 days)."""
    origin: int
    bits: int

    @classmethod
    def of(cls, capture: CaptureInput) -> DeliveryOrder:
        low, high = _ts_range(capture.files)
        return cls(low, max(0, min(8, 62 - (high - low).bit_length())))

    def key(self) -> Column:
        c = F.col
        cap = (1 << self.bits) - 1
        return F.when(c("k") == RECV, F.shiftleft(c("ts") - self.origin, self.bits).bitwiseOR(F.least(c("rc0"), F.lit(cap))))

    def ts(self, key: Column) -> Column:
        return F.shiftright(key, self.bits) + self.origin

    def redeliveries(self, key: Column) -> Column:
        return key.bitwiseAND((1 << self.bits) - 1)


def _ts_range(files) -> tuple[int, int]:
    """The least and greatest ts_ns, from the Parquet footers (the column itself where a footer has no statistics)."""
    lows, highs = [], []
    for path in files:
        metadata = pq.read_metadata(path)
        index = metadata.schema.to_arrow_schema().get_field_index("ts_ns")
        stats = [metadata.row_group(g).column(index).statistics for g in range(metadata.num_row_groups)]
        if all(s is not None and s.has_min_max for s in stats):
            lows += [s.min for s in stats]
            highs += [s.max for s in stats]
        else:
            low_high = pc.min_max(pq.read_table(path, columns=["ts_ns"]).column(0))
            lows.append(low_high["min"].as_py())
            highs.append(low_high["max"].as_py())
    lows, highs = [v for v in lows if v is not None], [v for v in highs if v is not None]
    return (min(lows), max(highs)) if lows else (0, 0)


def _shared(df: DataFrame) -> DataFrame:
    """Lets several consumers read one exchange (read it through ``_use``).

    Spark optimizes each consumer's copy of a plan on its own: it moves each one's filters
    and column pruning below the exchange, the copies then differ, and the exchange and
    everything under it run once per consumer (five scans of the capture, measured).
    ``_keep`` is never computed (spark_partition_id() is never negative), but it is
    non-deterministic, which keeps filters above it, and it names every column, which
    keeps the pruning above it.
    """
    keep = F.when(F.spark_partition_id() < 0, F.hash(*df.columns))
    return df.select("*", keep.alias("_keep"))


def _use(df: DataFrame) -> DataFrame:
    return df.filter(F.col("_keep").isNull()).drop("_keep")


def _numeric(raw: DataFrame) -> DataFrame:
    kind = F.col("kind")
    code = F.lit(None).cast("byte")
    for name, value in _KIND_CODES.items():
        code = F.when(kind == name, F.lit(value).cast("byte")).otherwise(code)
    return raw.select(
        *_ID,
        # xxhash64 skips nulls, so a send row's tsk is the hash of its topic alone.
        F.xxhash64("topic", "subscription").alias("tsk"),
        code.alias("k"),
        F.col("ts_ns").alias("ts"),
        F.coalesce(F.col("redelivery_count"), F.lit(0)).alias("rc0"),
        F.col("seq"),
        # The ordering check groups first deliveries by (client, producer, key): one hash
        # serves it, and the examples get the three strings back from the final lookup.
        F.when(kind == "receive", F.xxhash64("client", "producer", "key")).alias("grp"),
    ).filter(F.col("k").isNotNull())


def _first_pass(events: DataFrame, must_see: list[dict], order: DeliveryOrder) -> DataFrame:
    """Stream rows (first deliveries, findings, marked uids) from two hash aggregations."""
    c = F.col
    recv = c("k") == RECV
    # Only fixed-width aggregates (no structs), which keeps these hash aggregations: with a
    # struct Spark sorts instead (SortAggregate), which cost 2-3x the whole job.
    key = order.key()
    pairs = events.filter(c("k") >= RECV).groupBy(*_ID, "tsk").agg(
        F.count_if(recv).alias("deliveries"),
        F.min(F.when(c("k") == ACK, c("ts"))).alias("acked_ts"),
        # The least and greatest delivery: with at most two, these are both.
        F.min(key).alias("first_key"),
        F.max(key).alias("last_key"),
        F.min_by("grp", key).alias("fgrp"),
        F.max(F.when(recv, c("seq"))).alias("fseq"),
    ).filter(c("deliveries") > 0).select(
        "*", order.ts(c("first_key")).alias("fts"), order.ts(c("last_key")).alias("last_ts"),
        order.redeliveries(c("last_key")).alias("last_rc"))
    # The classes that need the uid's sends (unexpected, recovered) are left to the second pass.
    few = c("deliveries") <= 2
    _, found = _findings(_pair_findings(_few_deliveries(), with_sends=False))
    pair_rows = pairs.select(*_stream_row(F.when(few, ORDER).otherwise(MARKER), F.when(few, found)))
    is_ok = c("k") == OK
    ok_ts = F.when(is_ok, c("ts"))
    uids = events.filter(c("k") != ACK).groupBy(*_ID).agg(
        F.max(is_ok).alias("uid_ok"),
        F.max(recv).alias("delivered"),
        # The first send_ok (of several at one instant, any one).
        F.min(ok_ts).alias("ok_ts"),
        F.min_by("tsk", ok_ts).alias("ok_tsk"),
        F.max(F.when(is_ok, c("seq"))).alias("ok_seq"),
        *[F.max(recv & (c("tsk") == _pair_hash(m["topic"], m["subscription"]))).alias(f"seen{i}")
          for i, m in enumerate(must_see)],
    )
    marked = c("delivered") & ~c("uid_ok")
    any_lost, lost = _findings(_lost_findings(must_see, F.lit(True)))
    none = F.lit(None).cast("long")
    uid_rows = uids.filter(marked | any_lost).select(
        "*", none.alias("tsk"), none.alias("fgrp"), none.alias("fts"), none.alias("fseq"),
    ).select(*_stream_row(F.when(marked, MARKER).otherwise(PASS), lost))
    return pair_rows.unionByName(uid_rows)


def _few_deliveries() -> dict[str, Column]:
    """A pair's facts from its least and greatest delivery: exact for one or two deliveries.

    Ties: an ack at the same instant as a delivery counts as later, and of two deliveries at
    one instant the one with a redelivery count as the second (the benefit of the doubt).
    """
    c = F.col
    two, acked = c("deliveries") == 2, c("acked_ts")
    before_ack = acked.isNull() | (c("last_ts") <= acked)
    return {
        "unexplained": F.when(two & (c("last_rc") == 0) & before_ack, 1).otherwise(0),
        "after_ack": (F.coalesce(c("fts") > acked, F.lit(False)).cast("int")
                      + F.coalesce(two & (c("last_ts") > acked), F.lit(False)).cast("int")),
        "last_ts": c("last_ts"),
    }


def _pair_findings(facts: dict[str, Column], *, with_sends: bool = True) -> list[tuple[Column, Column]]:
    """The per-pair classes of a row holding its pair's facts, as (when, finding); with its
    uid's facts too (``with_sends``), also those that depend on the sends."""
    c = F.col
    unexplained, after_ack, last_ts = facts["unexplained"], facts["after_ack"], facts["last_ts"]
    deliveries, fts, acked = c("deliveries"), c("fts"), c("acked_ts")
    found = [
        (unexplained > 0, _finding(DUPLICATE, -unexplained, -deliveries, fts, deliveries=deliveries,
                                   unexplained=unexplained)),
        (after_ack > 0, _finding(REDELIVERED_AFTER_ACK, -after_ack, -(last_ts - acked), fts,
                                 acked_ts_ns=acked, after_ack=after_ack, last_ts_ns=last_ts)),
    ]
    if not with_sends:
        return found
    return found + [
        (~c("uid_sent"), _finding(UNEXPECTED, -deliveries, fts, F.lit(0), deliveries=deliveries, first_ts_ns=fts)),
        (c("uid_sent") & ~c("uid_ok"), _finding(RECOVERED, fts, F.lit(0), F.lit(0), first_ts_ns=fts,
                                                send_unknown=c("uid_unknown").cast("int"))),
    ]


def _lost_findings(must_see: list[dict], carrier: Column) -> list[tuple[Column, Column]]:
    """Lost on a must-see subscription: the uid's first send_ok went to its topic, and no delivery there."""
    c = F.col
    return [(carrier & c("uid_ok") & (c("ok_tsk") == _topic_hash(m["topic"])) & ~c(f"seen{i}"),
             _finding(LOST, c("ok_ts"), F.lit(0), F.lit(0), sent_ts_ns=c("ok_ts"), must_see=F.lit(i),
                      tsk=_pair_hash(m["topic"], m["subscription"]), seq=c("ok_seq"), fgrp=F.lit(None)))
            for i, m in enumerate(must_see)]


def _second_pass(events: DataFrame, must_see: list[dict]) -> DataFrame:
    """The marked uids, decided whole with the exact window formulation over their events."""
    c = F.col
    p = _pairs(events, must_see)
    delivered = c("deliveries") > 0
    _, found = _findings([(delivered & when, f) for when, f in _pair_findings(
        {name: c(name) for name in ("unexplained", "after_ack", "last_ts")})]
        + _lost_findings(must_see, c("rn_uid") == 1))
    return p.select(*_stream_row(F.when(delivered & c("uid_sent"), ORDER).otherwise(PASS), found)).filter(
        (c("role") == ORDER) | c("found").isNotNull())


def _stream_row(role: Column, found: Column) -> list[Column]:
    """The columns of the stream into the ordering check. An ORDER row's first delivery
    (columns tsk, fgrp, fts, fseq) takes part in the check; every other row carries only its
    findings, in a group of its own: no topic, its identity's ids for a group."""
    c = F.col
    role = role.cast("byte").alias("role")
    ordered = role == ORDER
    return [role, F.when(ordered, c("tsk")).alias("tsk"), F.when(ordered, c("fgrp")).otherwise(c("ids")).alias("fgrp"),
            F.when(ordered, c("fts")).alias("fts"), F.when(ordered, c("fseq")).alias("fseq"),
            *_ID, found.cast(_FINDINGS).alias("found")]


def _pairs(events: DataFrame, must_see: list[dict]) -> DataFrame:
    """One row per (uid, topic, subscription) with that pair's and its uid's facts.

    A uid's sends form a group of their own (subscription null). All windows share one
    ordering, so Spark sorts the events once.
    """
    c = F.col
    is_recv, is_ack = c("k") == RECV, c("ia")
    # Ties: an ack at the same instant as a delivery comes after it, and a delivery with a
    # redelivery count after one without (the benefit of the doubt either way). Both window
    # specs spell out the same sort order (idp, ids, tsk, ts, ia, rc0) so that Spark sorts once.
    pair_rows = Window.partitionBy(*_ID, "tsk").orderBy("ts", "ia", "rc0")
    before = pair_rows.rowsBetween(Window.unboundedPreceding, -1)
    pair = pair_rows.rowsBetween(Window.unboundedPreceding, Window.unboundedFollowing)
    uid_rows = Window.partitionBy(*_ID).orderBy("tsk", "ts", "ia", "rc0")
    uid = uid_rows.rowsBetween(Window.unboundedPreceding, Window.unboundedFollowing)
    events = events.withColumn("ia", c("k") == ACK)
    stage1 = events.select(
        "*",
        F.coalesce(F.max(is_ack).over(before), F.lit(False)).alias("acked_before"),
        F.coalesce(F.max(is_recv).over(before), F.lit(False)).alias("recv_before"),
        F.row_number().over(pair_rows).alias("rn_pair"),
        F.row_number().over(uid_rows).alias("rn_uid"),
        F.max(c("k") <= UNKNOWN).over(uid).alias("uid_sent"),
        F.max(c("k") == OK).over(uid).alias("uid_ok"),
        F.max(c("k") == UNKNOWN).over(uid).alias("uid_unknown"),
        F.min(F.when(c("k") == OK, F.struct("ts", "tsk", "seq"))).over(uid).alias("ok"),
        *[F.max(is_recv & (c("tsk") == _pair_hash(m["topic"], m["subscription"]))).over(uid).alias(f"seen{i}")
          for i, m in enumerate(must_see)],
    )
    recv = c("k") == RECV
    stage2 = stage1.select(
        "*",
        F.sum(recv.cast("int")).over(pair).alias("deliveries"),
        F.sum((recv & c("recv_before") & (c("rc0") == 0) & ~c("acked_before")).cast("int")).over(pair).alias(
            "unexplained"),
        F.sum((recv & c("acked_before")).cast("int")).over(pair).alias("after_ack"),
        F.min(F.when(is_ack, c("ts"))).over(pair).alias("acked_ts"),
        F.max(F.when(recv, c("ts"))).over(pair).alias("last_ts"),
        F.min(F.when(recv, F.struct("ts", "rc0", "grp", "seq"))).over(pair).alias("first"),
    )
    return stage2.filter(c("rn_pair") == 1).select(
        *_ID, "tsk", "rn_uid", "uid_sent", "uid_ok", "uid_unknown", *[f"seen{i}" for i in range(len(must_see))],
        c("ok.ts").alias("ok_ts"), c("ok.tsk").alias("ok_tsk"), c("ok.seq").alias("ok_seq"), "deliveries", "unexplained", "after_ack", "acked_ts", "last_ts",
        c("first.grp").alias("fgrp"), c("first.seq").alias("fseq"), c("first.ts").alias("fts"),
    )


def _ordering(stream: DataFrame) -> DataFrame:
    """Each row's findings (column ``found``), a nonmonotonic one added where the first
    delivery has a lower seq than an earlier first delivery of the same (subscription,
    client, producer, key). Order is per consumer client (docs/spark-checks.md); equal timestamps
    give the benefit of the doubt. Rows without findings are left out."""
    c = F.col
    group = Window.partitionBy("tsk", "fgrp").orderBy("fts", "fseq")
    ordered = stream.withColumn("after_seq", F.max("fseq").over(group.rowsBetween(Window.unboundedPreceding, -1)))
    late = F.coalesce(c("fseq") < c("after_seq"), F.lit(False))
    nonmonotonic = _finding(NONMONOTONIC, -(c("after_seq") - c("fseq")), c("fts"), F.lit(0),
                            after_seq=c("after_seq"), ts_ns=c("fts"))
    return ordered.filter(late | c("found").isNotNull()).select(
        F.when(late, F.concat(F.coalesce(c("found"), F.array().cast(_FINDINGS)), F.array(nonmonotonic)))
        .otherwise(c("found")).alias("found"))


def _finding(name: str, k1, k2, k3, *, tsk=None, seq=None, fgrp=None, **detail) -> Column:
    """One finding: its class, its sort keys (worst first), what the examples are looked up
    by (identity, pair hash, seq, ordering group: the row's own first delivery unless given),
    and its class's details as JSON."""
    c = F.col
    return F.struct(
        F.lit(name).alias("class"), k1.cast("long").alias("k1"), k2.cast("long").alias("k2"),
        k3.cast("long").alias("k3"), c("idp").alias("idp"), c("ids").alias("ids"),
        (c("tsk") if tsk is None else tsk).cast("long").alias("tsk"),
        (c("fseq") if seq is None else seq).cast("long").alias("seq"),
        (c("fgrp") if fgrp is None else fgrp).cast("long").alias("fgrp"),
        F.to_json(F.struct(*[v.cast("long").alias(k) for k, v in detail.items()])).alias("detail"),
    ).cast(_FINDING)


def _findings(candidates: list[tuple[Column, Column]]) -> tuple[Column, Column]:
    """Whether any (when, finding) applies, and the array of those that do (null if none):
    the array is built only for the few rows with a finding."""
    applies = F.lit(False)
    for when, _ in candidates:
        applies = applies | F.coalesce(when, F.lit(False))
    found = F.filter(F.array(*[F.when(when, finding) for when, finding in candidates]), lambda f: f.isNotNull())
    return applies, F.when(applies, found)


def _topic_hash(topic: str) -> Column:
    return F.xxhash64(F.lit(topic))


def _pair_hash(topic: str, subscription: str) -> Column:
    return F.xxhash64(F.lit(topic), F.lit(subscription))


def _examples(raw: DataFrame, rows: list, must_see: list[dict], identity) -> dict[str, list[dict]]:
    """Turn the numeric top rows back into the strings people read, with one filtered scan."""
    examples: dict[str, list[dict]] = {name: [] for name in CLASSES}
    if not rows:
        return examples
    # Every row of a message carries its seq, so filtering on the (numeric) seq first leaves
    # a few rows per example to give an identity to, instead of the whole capture.
    seqs = {row["seq"] for row in rows}
    by_seq = F.col("seq").isin(sorted(seqs)) if None not in seqs else F.lit(True)
    wanted = {(row["idp"], row["ids"]) for row in rows}
    pair_names: dict = {}
    group_names: dict = {}
    uid_facts: dict = {}
    for r in identity(raw.filter(by_seq)).filter(F.col("ids").isin(sorted({i for _, i in wanted}))).select(
        "uid", "topic", "subscription", "client", "producer", "key", "kind", *_ID,
        F.xxhash64("topic", "subscription").alias("tsk"), F.xxhash64("client", "producer", "key").alias("grp"),
    ).collect():
        if (r["idp"], r["ids"]) not in wanted:
            continue
        pair_names[r["tsk"]] = (r["topic"], r["subscription"])
        group_names[r["grp"]] = (r["client"], r["producer"], r["key"])
        if (r["idp"], r["ids"]) not in uid_facts or r["kind"] == "send_ok":
            uid_facts[(r["idp"], r["ids"])] = (r["uid"], r["producer"], r["key"])
    for row in rows:
        detail = json.loads(row["detail"])
        name = row["class"]
        topic, subscription = pair_names.get(row["tsk"], (None, None))
        uid, producer, key = uid_facts.get((row["idp"], row["ids"]), (None, None, None))
        if name == LOST:
            m = must_see[detail["must_see"]]
            examples[name].append({"topic": m["topic"], "subscription": m["subscription"], "uid": uid,
                                   "producer": producer, "seq": row["seq"], "key": key,
                                   "sent_ts_ns": detail["sent_ts_ns"]})
            continue
        base = {"topic": topic, "subscription": subscription, "uid": uid, "producer": producer, "seq": row["seq"]}
        if name == DUPLICATE:
            examples[name].append({**base, "deliveries": detail["deliveries"], "unexplained": detail["unexplained"]})
        elif name == REDELIVERED_AFTER_ACK:
            examples[name].append({**base, "acked_ts_ns": detail["acked_ts_ns"], "after_ack": detail["after_ack"],
                                   "last_ts_ns": detail["last_ts_ns"]})
        elif name == UNEXPECTED:
            examples[name].append({**base, "deliveries": detail["deliveries"], "first_ts_ns": detail["first_ts_ns"]})
        elif name == RECOVERED:
            examples[name].append({**base, "send_kind": "send_unknown" if detail["send_unknown"] else "send_err",
                                   "first_ts_ns": detail["first_ts_ns"]})
        elif name == NONMONOTONIC:
            client, producer, key = group_names.get(row["fgrp"], (None, producer, key))
            examples[name].append({"topic": topic, "subscription": subscription, "client": client,
                                   "producer": producer, "key": key, "uid": uid, "seq": row["seq"],
                                   "after_seq": detail["after_seq"], "ts_ns": detail["ts_ns"]})
    return examples
