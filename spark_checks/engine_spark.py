"""The §5.2 checks as PySpark DataFrame jobs.

Why it is shaped like this (measured on 2 cores, benchmarks/spark/README.md): Spark's costs
here are moving strings through shuffles, sorting, and window operators over millions of
groups of 2-5 rows. So:

- The scan turns every event into a row of numbers: two independent hashes of the uid (96
  bits: a collision among 10^8 uids has odds below 10^-12), 64-bit hashes of (topic,
  subscription) and, on receives, of (client, producer, key), and a kind code. One shuffle
  by the uid hash puts all events of a uid in one partition.
- The first pass over them is two hash aggregations and no sort: per (uid, topic,
  subscription) over receives and acks, and per uid over sends and receives. Their facts
  are exact for a pair with at most one delivery and for a uid with at most one send_ok,
  which is nearly every pair and uid of a capture: those give their first delivery to the
  ordering check and their redelivered_after_ack and lost findings directly.
- Everything else is marked: a pair delivered twice or more, a uid sent ok twice, a uid
  delivered without a send_ok (the duplicate, unexpected and recovered candidates). A
  second pass joins the shuffled events with the marked uids (a hash join on the same
  partitioning, no new shuffle) and decides those few uids with the exact window
  formulation, whose sort then covers their rows only.
- The ordering check needs the only other shuffle: first deliveries by (subscription,
  client, producer, key), one sort, one running max. The other classes' findings ride
  through it, so the job stays one stream: one ranking, one collect.
- The few examples are turned back into strings at the end by one filtered scan.
"""
from __future__ import annotations

from pyspark.sql import Column, DataFrame, SparkSession, Window
from pyspark.sql import functions as F

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
_UID = ["h", "g"]
# What a row of the stream into the ordering check stands for: a first delivery that the
# check orders (it may carry findings too), findings only, or a uid for the second pass.
ORDER, PASS, MARKER = 0, 1, 2
_FINDING = ("struct<class:string,k1:bigint,k2:bigint,k3:bigint,h:bigint,g:int,tsk:bigint,seq:bigint,"
            "fgrp:bigint,detail:string>")
_FINDINGS = f"array<{_FINDING}>"


def run_checks(spark: SparkSession, capture: CaptureInput) -> dict:
    must_see = capture.manifest["must_see"]
    raw, ranked = _plan(spark, capture)
    rows = ranked.filter(F.col("rank") <= MAX_EXAMPLES).orderBy("class", "rank").collect()
    counts = {name: 0 for name in CLASSES}
    for row in rows:
        counts[row["class"]] = row["n"]
    examples = _examples(raw, rows, must_see)
    # Only "were there any sends" matters to the verdict, and this stops at the first one.
    sends = raw.filter(F.col("kind").isin("send_ok", "send_err", "send_unknown")).limit(1).count()
    return {"counts": counts, "examples": examples, "sends": sends}


def _plan(spark: SparkSession, capture: CaptureInput) -> tuple[DataFrame, DataFrame]:
    """The capture and its findings ranked per class (``n`` findings, ``rank`` from 1)."""
    must_see = capture.manifest["must_see"]
    # Explicit partition counts: the events, the marked uids and both inputs of the ordering
    # check must stay partitioned alike, which Spark's coalescing of small shuffles would undo.
    parts = int(spark.conf.get("spark.sql.shuffle.partitions"))
    raw = spark.read.parquet(*capture.files)
    events = _shared(_numeric(raw).repartition(parts, "h"))
    first = _shared(_first_pass(_use(events), must_see).repartition(parts, "tsk", "fgrp"))
    marked = _use(first).filter(F.col("role") == MARKER).select(*_UID).repartition(parts, "h")
    decided = _second_pass(_use(events).join(marked.hint("shuffle_hash"), _UID, "left_semi"), must_see)
    stream = _use(first).filter(F.col("role") != MARKER).drop("role").unionByName(
        decided.drop("role").repartition(parts, "tsk", "fgrp"))
    found = _ordering(stream).select(F.explode("found").alias("f")).select("f.*")
    by_class = Window.partitionBy("class")
    ranked = found.withColumn("n", F.count("*").over(by_class)).withColumn(
        "rank", F.row_number().over(by_class.orderBy("k1", "k2", "k3", "h", "g", "tsk")))
    return raw, ranked


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
        F.xxhash64("uid").alias("h"),
        F.hash("uid").alias("g"),
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


def _first_pass(events: DataFrame, must_see: list[dict]) -> DataFrame:
    """Rows for the ordering check, findings, and marked uids, from hash aggregations only."""
    c = F.col
    recv = c("k") == RECV
    # Per (uid, topic, subscription): exact whenever the pair has at most one delivery.
    pairs = events.filter(c("k") >= RECV).groupBy(*_UID, "tsk").agg(
        F.count_if(recv).alias("deliveries"),
        F.min(F.when(c("k") == ACK, c("ts"))).alias("acked_ts"),
        F.min(F.when(recv, c("ts"))).alias("fts"),
        F.max("grp").alias("fgrp"),
        F.max(F.when(recv, c("seq"))).alias("fseq"),
    ).filter(c("deliveries") > 0)
    single = c("deliveries") == 1
    # One delivery, acked before it (an ack at the same instant counts as later).
    after_ack = F.when(single & (c("acked_ts") < c("fts")), F.array(_finding(
        REDELIVERED_AFTER_ACK, F.lit(-1), -(c("fts") - c("acked_ts")), c("fts"), c("tsk"), c("fseq"), c("fgrp"),
        acked_ts_ns=c("acked_ts"), after_ack=F.lit(1), last_ts_ns=c("fts"))))
    pair_rows = pairs.select(*_stream_row(F.when(single, F.lit(ORDER)).otherwise(F.lit(MARKER)), after_ack, single))
    # Per uid: its sends and which must-see subscriptions got it.
    is_ok = c("k") == OK
    uids = events.filter(c("k") != ACK).groupBy(*_UID).agg(
        F.count_if(is_ok).alias("oks"),
        F.max(recv).alias("delivered"),
        F.min(F.when(is_ok, c("ts"))).alias("ok_ts"),
        F.max(F.when(is_ok, c("tsk"))).alias("ok_tsk"),
        F.max(F.when(is_ok, c("seq"))).alias("ok_seq"),
        *[F.max(recv & (c("tsk") == _pair_hash(m["topic"], m["subscription"]))).alias(f"seen{i}")
          for i, m in enumerate(must_see)],
    )
    # Several send_ok leave "the first one" to the second pass; so do deliveries without any
    # send_ok, whose findings (unexpected, recovered) are per pair.
    marked = (c("oks") >= 2) | (c("delivered") & (c("oks") == 0))
    lost = [(c("oks") == 1) & (c("ok_tsk") == _topic_hash(m["topic"])) & ~c(f"seen{i}") for i, m in enumerate(must_see)]
    any_lost = F.lit(False)
    for when in lost:
        any_lost = any_lost | when
    lost_findings = _findings(*[F.when(when, _lost(i, m, c("ok_ts"), c("ok_seq")))
                                for i, (when, m) in enumerate(zip(lost, must_see, strict=True))])
    uid_rows = uids.filter(marked | any_lost).select(*_stream_row(
        F.when(marked, F.lit(MARKER)).otherwise(F.lit(PASS)), F.when(~marked, lost_findings)))
    return pair_rows.unionByName(uid_rows)


def _second_pass(events: DataFrame, must_see: list[dict]) -> DataFrame:
    """The marked uids, decided with the exact window formulation over their events.

    The first pass already gave their single-delivery pairs to the ordering check (with any
    redelivered_after_ack finding) and the lost findings of uids with one send_ok, so these
    rows carry everything else.
    """
    c = F.col
    p = _pairs(events, must_see)
    delivered = c("deliveries") > 0
    many = c("deliveries") >= 2
    sent = F.coalesce(c("uid_sent"), F.lit(False))
    found = _findings(
        F.when(c("unexplained") > 0, _finding(DUPLICATE, -c("unexplained"), -c("deliveries"), c("fts"), c("tsk"),
                                              c("fseq"), c("fgrp"), deliveries=c("deliveries"),
                                              unexplained=c("unexplained"))),
        F.when(many & (c("after_ack") > 0), _finding(
            REDELIVERED_AFTER_ACK, -c("after_ack"), -(c("last_ts") - c("acked_ts")), c("fts"), c("tsk"), c("fseq"),
            c("fgrp"), acked_ts_ns=c("acked_ts"), after_ack=c("after_ack"), last_ts_ns=c("last_ts"))),
        F.when(delivered & ~sent, _finding(UNEXPECTED, -c("deliveries"), c("fts"), F.lit(0), c("tsk"), c("fseq"),
                                           c("fgrp"), deliveries=c("deliveries"), first_ts_ns=c("fts"))),
        F.when(delivered & sent & ~c("uid_ok"), _finding(RECOVERED, c("fts"), F.lit(0), F.lit(0), c("tsk"), c("fseq"),
                                                          c("fgrp"), first_ts_ns=c("fts"),
                                                          send_unknown=c("uid_unknown").cast("int"))),
        # A uid's first row carries its per-uid facts.
        *[F.when((c("rn_uid") == 1) & (c("uid_oks") >= 2) & (c("ok.tsk") == _topic_hash(m["topic"])) & ~c(f"seen{i}"),
                 _lost(i, m, c("ok.ts"), c("ok.seq")))
          for i, m in enumerate(must_see)],
    )
    return p.withColumn("found", found).filter(many | (F.size("found") > 0)).select(*_stream_row(
        F.when(many, F.lit(ORDER)).otherwise(F.lit(PASS)), c("found"), many))


def _stream_row(role: Column, found: Column, ordered: Column | None = None) -> list[Column]:
    """The columns of the stream into the ordering check. ``ordered``: when the row's first
    delivery (columns tsk, fgrp, fts, fseq) takes part in the check. Every other row carries
    only its findings, in a group of its own: no topic, its uid hash for a group."""
    c = F.col
    none = F.lit(None).cast("long")
    if ordered is None:
        delivery = [none.alias("tsk"), c("h").alias("fgrp"), none.alias("fts"), none.alias("fseq")]
    else:
        delivery = [F.when(ordered, c("tsk")).alias("tsk"), F.when(ordered, c("fgrp")).otherwise(c("h")).alias("fgrp"),
                    F.when(ordered, c("fts")).alias("fts"), F.when(ordered, c("fseq")).alias("fseq")]
    return [role.cast("byte").alias("role"), *delivery, c("h"), c("g"), found.cast(_FINDINGS).alias("found")]


def _pairs(events: DataFrame, must_see: list[dict]) -> DataFrame:
    """One row per (uid, topic, subscription) with that pair's and its uid's facts.

    A uid's sends form a group of their own (subscription null). All windows share one
    ordering, so Spark sorts the events once.
    """
    c = F.col
    is_recv, is_ack = c("k") == RECV, c("ia")
    # Ties: an ack at the same instant as a delivery comes after it, and a delivery with a
    # redelivery count after one without (the benefit of the doubt either way). Both window
    # specs spell out the same sort order (h, g, tsk, ts, ia, rc0) so that Spark sorts once.
    pair_rows = Window.partitionBy(*_UID, "tsk").orderBy("ts", "ia", "rc0")
    before = pair_rows.rowsBetween(Window.unboundedPreceding, -1)
    pair = pair_rows.rowsBetween(Window.unboundedPreceding, Window.unboundedFollowing)
    uid_rows = Window.partitionBy(*_UID).orderBy("tsk", "ts", "ia", "rc0")
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
        F.sum((c("k") == OK).cast("int")).over(uid).alias("uid_oks"),
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
        *_UID, "tsk", "rn_uid", "uid_sent", "uid_ok", "uid_oks", "uid_unknown", "ok",
        *[f"seen{i}" for i in range(len(must_see))],
        "deliveries", "unexplained", "after_ack", "acked_ts", "last_ts",
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
    nonmonotonic = _finding(NONMONOTONIC, -(c("after_seq") - c("fseq")), c("fts"), F.lit(0), c("tsk"), c("fseq"),
                            c("fgrp"), after_seq=c("after_seq"), ts_ns=c("fts"))
    return ordered.filter(late | c("found").isNotNull()).select(
        F.when(late, F.concat(F.coalesce(c("found"), F.array().cast(_FINDINGS)), F.array(nonmonotonic)))
        .otherwise(c("found")).alias("found"))


def _finding(name: str, k1, k2, k3, tsk, seq, fgrp, **detail) -> Column:
    """One finding: its class, its sort keys (worst first), the hashes the examples are
    looked up by, and its class's details as JSON."""
    return F.struct(
        F.lit(name).alias("class"), k1.cast("long").alias("k1"), k2.cast("long").alias("k2"),
        k3.cast("long").alias("k3"), F.col("h").alias("h"), F.col("g").alias("g"), tsk.cast("long").alias("tsk"),
        seq.cast("long").alias("seq"), fgrp.cast("long").alias("fgrp"),
        F.to_json(F.struct(*[v.cast("long").alias(k) for k, v in detail.items()])).alias("detail"),
    ).cast(_FINDING)


def _lost(i: int, m: dict, sent_ts: Column, seq: Column) -> Column:
    return _finding(LOST, sent_ts, F.lit(0), F.lit(0), _pair_hash(m["topic"], m["subscription"]), seq,
                    F.lit(None), sent_ts_ns=sent_ts, must_see=F.lit(i))


def _findings(*candidates: Column) -> Column:
    return F.filter(F.array(*candidates), lambda f: f.isNotNull())


def _topic_hash(topic: str) -> Column:
    return F.xxhash64(F.lit(topic))


def _pair_hash(topic: str, subscription: str) -> Column:
    return F.xxhash64(F.lit(topic), F.lit(subscription))


def _examples(raw: DataFrame, rows: list, must_see: list[dict]) -> dict[str, list[dict]]:
    """Turn the hashed top rows back into the strings people read, with one filtered scan."""
    import json

    examples: dict[str, list[dict]] = {name: [] for name in CLASSES}
    if not rows:
        return examples
    wanted = sorted({row["h"] for row in rows})
    # Every row of a message carries its seq, so filtering on the (numeric) seq first leaves
    # a few rows per example to hash instead of the whole capture.
    seqs = {row["seq"] for row in rows}
    by_seq = F.col("seq").isin(sorted(seqs)) if None not in seqs else F.lit(True)
    pair_names: dict = {}
    group_names: dict = {}
    uid_facts: dict = {}
    for r in raw.filter(by_seq & F.xxhash64("uid").isin(wanted)).select(
        "uid", "topic", "subscription", "client", "producer", "key", "kind",
        F.xxhash64("uid").alias("h"), F.hash("uid").alias("g"),
        F.xxhash64("topic", "subscription").alias("tsk"), F.xxhash64("client", "producer", "key").alias("grp"),
    ).collect():
        pair_names[r["tsk"]] = (r["topic"], r["subscription"])
        group_names[r["grp"]] = (r["client"], r["producer"], r["key"])
        if (r["h"], r["g"]) not in uid_facts or r["kind"] == "send_ok":
            uid_facts[(r["h"], r["g"])] = (r["uid"], r["producer"], r["key"])
    for row in rows:
        detail = json.loads(row["detail"])
        name = row["class"]
        topic, subscription = pair_names.get(row["tsk"], (None, None))
        uid, producer, key = uid_facts.get((row["h"], row["g"]), (None, None, None))
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
