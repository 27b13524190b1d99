"""The §5.2 checks as PySpark DataFrame jobs.

Why it is shaped like this: on a small machine Spark's cost is moving strings through
shuffles and sorting on them (uids share long prefixes, so sort prefixes don't help). So
the scan turns every event into a row of numbers: two independent hashes of the uid (96
bits: a collision among 10^8 uids has odds below 10^-12), 64-bit hashes of
(topic, subscription) and of (client, producer, key), and a kind code. One shuffle by the uid
hash then puts all events of a uid in one partition; windows, aggregations and joins reuse
that partitioning. The ordering check needs the only other shuffle. The few examples are
turned back into strings at the end by one filtered scan.
"""
from __future__ import annotations

from pyspark.sql import DataFrame, SparkSession, Window
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
_PAIR = ["h", "g", "tsk"]
_UID = ["h", "g"]


def run_checks(spark: SparkSession, capture: CaptureInput) -> dict:
    must_see = capture.manifest["must_see"]
    raw = spark.read.parquet(*capture.files)
    pairs = _pairs(_numeric(raw).repartition("h"), must_see)
    # Almost every pair is clean: keep only rows where some class applies before building
    # and exploding the candidate structs (9 per row otherwise, nearly all null).
    # Rows without a delivery (a uid's sends, acks alone) can only be lost findings: drop the
    # rest of them before the ordering check's shuffle (they are a third of its rows).
    pairs = pairs.filter((F.col("deliveries") > 0) | _any_lost(must_see))
    found = _ordering(pairs).filter(_any_candidate(must_see)).select(
        F.explode(_candidates(must_see)).alias("f")).filter(F.col("f").isNotNull()).select("f.*")
    by_class = Window.partitionBy("class")
    ranked = found.withColumn("n", F.count("*").over(by_class)).withColumn(
        "rank", F.row_number().over(by_class.orderBy("k1", "k2", "k3", "h", "g")))
    rows = ranked.filter(F.col("rank") <= MAX_EXAMPLES).orderBy("class", "rank").collect()
    counts = {name: 0 for name in CLASSES}
    for row in rows:
        counts[row["class"]] = row["n"]
    examples = _examples(raw, rows, must_see)
    # Only "were there any sends" matters to the verdict, and this stops at the first one.
    sends = raw.filter(F.col("kind").isin("send_ok", "send_err", "send_unknown")).limit(1).count()
    return {"counts": counts, "examples": examples, "sends": sends}


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
        # The ordering check groups by (client, producer, key): one hash serves it, and the
        # examples get the three strings back from the final lookup.
        F.xxhash64("client", "producer", "key").alias("grp"),
    ).filter(F.col("k").isNotNull())


def _pairs(ev: DataFrame, must_see: list[dict]) -> DataFrame:
    """One row per (uid, topic, subscription) with that pair's and its uid's facts.

    A uid's sends form a group of their own (subscription null). All windows share one
    ordering, so Spark sorts the shuffled events once.
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
    ev = ev.withColumn("ia", c("k") == ACK)
    stage1 = ev.select(
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
        *_UID, "tsk", "rn_uid", "uid_sent", "uid_ok", "uid_unknown", "ok",
        *[f"seen{i}" for i in range(len(must_see))],
        "deliveries", "unexplained", "after_ack", "acked_ts", "last_ts",
        c("first.grp").alias("fgrp"), c("first.seq").alias("fseq"), c("first.ts").alias("fts"),
    )


def _ordering(pairs: DataFrame) -> DataFrame:
    """Adds ``after_seq``: the highest seq among earlier first deliveries of the same
    (subscription, client, producer, key). Order is per consumer client (design.md §5.2);
    equal timestamps give the benefit of the doubt. The few rows without deliveries that
    reach it (lost findings) ride along (their columns are null) so that the whole check
    stays one stream with no recompute."""
    # Rows without deliveries get one tiny group each, keyed by their uid hash, instead of
    # one group per topic.
    alone = F.when(F.col("deliveries") == 0, F.col("h"))
    group = Window.partitionBy("tsk", "fgrp", alone).orderBy("fts", "fseq")
    delivered_seq = F.when(F.col("deliveries") > 0, F.col("fseq"))
    return pairs.withColumn("after_seq", F.max(delivered_seq).over(group.rowsBetween(Window.unboundedPreceding, -1)))


def _finding(name: str, k1, k2, k3, tsk, seq, **detail) -> F.Column:
    fields = [F.lit(name).alias("class"), k1.cast("long").alias("k1"), k2.cast("long").alias("k2"),
              k3.cast("long").alias("k3"), F.col("h"), F.col("g"), tsk.alias("tsk"), seq.alias("seq")]
    fields.append(F.col("fgrp").alias("fgrp"))
    fields.append(F.to_json(F.struct(*[v.cast("long").alias(k) for k, v in detail.items()])).alias("detail"))
    return F.struct(*fields)


def _conditions(must_see: list[dict]) -> list[tuple[str, F.Column]]:
    """(class, when a row is a finding of it); a lost condition per must-see subscription."""
    c = F.col
    delivered = c("deliveries") > 0
    sent = F.coalesce(c("uid_sent"), F.lit(False))
    conditions = [
        (DUPLICATE, c("unexplained") > 0),
        (REDELIVERED_AFTER_ACK, c("after_ack") > 0),
        (UNEXPECTED, delivered & ~sent),
        (RECOVERED, delivered & sent & ~c("uid_ok")),
        (NONMONOTONIC, delivered & (c("fseq") < c("after_seq"))),
    ]
    # A uid's first row carries its per-uid facts.
    for i, m in enumerate(must_see):
        conditions.append((LOST, (c("rn_uid") == 1) & c("ok").isNotNull() & (c("ok.tsk") == _topic_hash(m["topic"]))
                           & ~c(f"seen{i}")))
    return conditions


def _any_lost(must_see: list[dict]) -> F.Column:
    condition = F.lit(False)
    for name, when in _conditions(must_see):
        if name == LOST:
            condition = condition | F.coalesce(when, F.lit(False))
    return condition


def _any_candidate(must_see: list[dict]) -> F.Column:
    condition = F.lit(False)
    for _, when in _conditions(must_see):
        condition = condition | F.coalesce(when, F.lit(False))
    return condition


def _candidates(must_see: list[dict]) -> F.Column:
    c = F.col
    (_, dup), (_, after), (_, unexpected), (_, recovered), (_, nonmonotonic), *lost = _conditions(must_see)
    candidates = [
        F.when(dup, _finding(DUPLICATE, -c("unexplained"), -c("deliveries"), c("fts"), c("tsk"),
                                              c("fseq"), deliveries=c("deliveries"), unexplained=c("unexplained"))),
        F.when(after, _finding(REDELIVERED_AFTER_ACK, -c("after_ack"), -(c("last_ts") - c("acked_ts")),
                                            c("fts"), c("tsk"), c("fseq"), acked_ts_ns=c("acked_ts"),
                                            after_ack=c("after_ack"), last_ts_ns=c("last_ts"))),
        F.when(unexpected, _finding(UNEXPECTED, -c("deliveries"), c("fts"), F.lit(0), c("tsk"), c("fseq"),
                                           deliveries=c("deliveries"), first_ts_ns=c("fts"))),
        F.when(recovered,
               _finding(RECOVERED, c("fts"), F.lit(0), F.lit(0), c("tsk"), c("fseq"), first_ts_ns=c("fts"),
                        send_unknown=c("uid_unknown").cast("int"))),
        F.when(nonmonotonic,
               _finding(NONMONOTONIC, -(c("after_seq") - c("fseq")), c("fts"), F.lit(0), c("tsk"), c("fseq"),
                        after_seq=c("after_seq"), ts_ns=c("fts"))),
    ]
    for i, (m, (_, lost_when)) in enumerate(zip(must_see, lost, strict=True)):
        candidates.append(F.when(
            lost_when,
            F.struct(F.lit(LOST).alias("class"), c("ok.ts").alias("k1"), F.lit(0).cast("long").alias("k2"),
                     F.lit(0).cast("long").alias("k3"), c("h"), c("g"),
                     _pair_hash(m["topic"], m["subscription"]).alias("tsk"), c("ok.seq").alias("seq"),
                     F.lit(None).cast("long").alias("fgrp"),
                     F.to_json(F.struct(c("ok.ts").alias("sent_ts_ns"), F.lit(i).alias("must_see"))).alias("detail"))))
    return F.array(*candidates)


def _topic_hash(topic: str) -> F.Column:
    return F.xxhash64(F.lit(topic))


def _pair_hash(topic: str, subscription: str) -> F.Column:
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
