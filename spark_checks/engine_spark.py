"""The §5.2 checks as PySpark DataFrame jobs.

Plan: one shuffle puts every event of a uid in the same partition (keyed by a 64-bit hash
of the uid, so that sorts compare longs, not the uids' common prefixes); per-uid and
per-(subscription, uid) results then come from windows and aggregations that reuse that
partitioning without another shuffle. Only the ordering check needs a second shuffle, of
first deliveries, by (subscription, client, producer, key). The per-pair table is cached
because every class's count and examples are read from it.
"""
from __future__ import annotations

import json

from pyspark import StorageLevel
from pyspark.sql import DataFrame, SparkSession, Window
from pyspark.sql import functions as F

from .capture_input import NEEDED, CaptureInput
from .classes import (
    DUPLICATE,
    LOST,
    MAX_EXAMPLES,
    NONMONOTONIC,
    RECOVERED,
    REDELIVERED_AFTER_ACK,
    UNEXPECTED,
)

_SEND_KINDS = ["send_ok", "send_err", "send_unknown"]


def run_checks(spark: SparkSession, capture: CaptureInput) -> dict:
    events = spark.read.parquet(*capture.files).select(*NEEDED)
    by_uid = events.withColumn("h", F.xxhash64("uid")).repartition("h")
    pairs = _pairs(by_uid).persist(StorageLevel.MEMORY_AND_DISK)
    try:
        return _verdict_parts(pairs, capture.manifest["must_see"])
    finally:
        pairs.unpersist()


def _pairs(ev: DataFrame) -> DataFrame:
    """One row per (uid, topic, subscription): send rows form the subscription-less group."""
    is_recv = F.col("kind") == "receive"
    is_ack = F.col("kind") == "ack"
    is_send = F.col("kind").isin(_SEND_KINDS)
    rc0 = F.coalesce(F.col("redelivery_count"), F.lit(0))
    per_uid = Window.partitionBy("h", "uid")
    # Ties: an ack at the same instant as a delivery comes after it, and a delivery with a
    # redelivery count after one without (the benefit of the doubt either way).
    per_pair = Window.partitionBy("h", "uid", "topic", "subscription").orderBy(
        "ts_ns", F.col("kind") == "ack", "rc0")
    before = per_pair.rowsBetween(Window.unboundedPreceding, -1)
    flagged = (
        ev.withColumn("rc0", rc0)
        .withColumn("is_recv", is_recv)
        .withColumn("uid_sent", F.max(is_send).over(per_uid))
        .withColumn("uid_ok", F.max(F.col("kind") == "send_ok").over(per_uid))
        .withColumn("uid_unknown", F.max(F.col("kind") == "send_unknown").over(per_uid))
        .withColumn("acked_before", F.coalesce(F.max(is_ack).over(before), F.lit(False)))
        .withColumn("recv_before", F.coalesce(F.max(is_recv).over(before), F.lit(False)))
    )
    recv = F.col("is_recv")
    return flagged.groupBy("h", "uid", "topic", "subscription").agg(
        F.first("uid_sent").alias("uid_sent"),
        F.first("uid_ok").alias("uid_ok"),
        F.first("uid_unknown").alias("uid_unknown"),
        F.max(F.col("kind") == "send_ok").alias("sent_ok_here"),
        F.min(F.when(F.col("kind") == "send_ok", F.struct("ts_ns", "producer", "seq", "key"))).alias("send"),
        F.sum(recv.cast("int")).alias("deliveries"),
        F.sum((recv & F.col("recv_before") & (F.col("rc0") == 0) & ~F.col("acked_before")).cast("int")).alias(
            "unexplained"),
        F.sum((recv & F.col("acked_before")).cast("int")).alias("after_ack"),
        F.min(F.when(is_ack, F.col("ts_ns"))).alias("acked_ts_ns"),
        F.max(F.when(recv, F.col("ts_ns"))).alias("last_ts_ns"),
        F.min(F.when(recv, F.struct("ts_ns", "rc0", "client", "producer", "seq", "key"))).alias("first"),
    )


def _verdict_parts(pairs: DataFrame, must_see: list[dict]) -> dict:
    # Materializes the cache and counts sends in one job.
    sends = pairs.filter(F.col("subscription").isNull() & F.col("uid_sent")).count()
    delivered = pairs.filter(F.col("deliveries") > 0)
    base = [F.col("topic"), F.col("subscription"), F.col("uid"), F.col("first.producer").alias("producer"),
            F.col("first.seq").alias("seq")]
    first_ts = F.col("first.ts_ns")
    zero = F.lit(0).cast("long")
    # (condition, sort key (k1, k2) ascending then uid, example columns), as in engine_python.
    per_pair = {
        DUPLICATE: (F.col("unexplained") > 0, (-F.col("unexplained"), -F.col("deliveries")),
                    base + ["deliveries", "unexplained"]),
        REDELIVERED_AFTER_ACK: (F.col("after_ack") > 0,
                                (-F.col("after_ack"), -(F.col("last_ts_ns") - F.col("acked_ts_ns"))),
                                base + ["acked_ts_ns", "after_ack", "last_ts_ns"]),
        UNEXPECTED: (~F.col("uid_sent"), (-F.col("deliveries"), first_ts),
                     base + ["deliveries", first_ts.alias("first_ts_ns")]),
        RECOVERED: (F.col("uid_sent") & ~F.col("uid_ok"), (first_ts, zero),
                    base + [F.when(F.col("uid_unknown"), "send_unknown").otherwise("send_err").alias("send_kind"),
                            first_ts.alias("first_ts_ns")]),
    }
    found = delivered.select(F.explode(F.array(*[
        F.when(condition, _finding(name, k1, k2, F.col("uid"), columns))
        for name, (condition, (k1, k2), columns) in per_pair.items()
    ])).alias("f")).filter(F.col("f").isNotNull()).select("f.*")
    found = found.unionByName(_lost(pairs, must_see)).unionByName(_nonmonotonic(delivered))
    ranked = found.withColumn("n", F.count("*").over(Window.partitionBy("class"))).withColumn(
        "rank", F.row_number().over(Window.partitionBy("class").orderBy("k1", "k2", "k3")))
    counts = {name: 0 for name in (LOST, DUPLICATE, UNEXPECTED, RECOVERED, NONMONOTONIC, REDELIVERED_AFTER_ACK)}
    examples: dict[str, list] = {name: [] for name in counts}
    for row in ranked.filter(F.col("rank") <= MAX_EXAMPLES).orderBy("class", "rank").collect():
        counts[row["class"]] = row["n"]
        examples[row["class"]].append(json.loads(row["example"]))
    return {"counts": counts, "examples": examples, "sends": sends}


def _finding(name: str, k1, k2, k3, columns) -> F.Column:
    return F.struct(F.lit(name).alias("class"), k1.cast("long").alias("k1"), k2.cast("long").alias("k2"),
                    k3.alias("k3"), F.to_json(F.struct(*columns)).alias("example"))


def _lost(pairs: DataFrame, must_see: list[dict]) -> DataFrame:
    empty = pairs.limit(0).select(_finding(LOST, F.lit(0), F.lit(0), F.col("uid"), ["uid"]).alias("f")).select("f.*")
    if not must_see:
        return empty
    seen = [
        F.max((F.col("topic") == m["topic"]) & (F.col("subscription") == m["subscription"])
              & (F.col("deliveries") > 0)).alias(f"seen{k}")
        for k, m in enumerate(must_see)
    ]
    per_uid = pairs.groupBy("h", "uid").agg(
        F.min(F.when(F.col("sent_ok_here"), F.struct(F.col("send.ts_ns"), "topic", F.col("send.producer"),
                                                     F.col("send.seq"), F.col("send.key")))).alias("ok"),
        *seen,
    ).filter(F.col("ok").isNotNull())
    lost = empty
    for k, m in enumerate(must_see):
        columns = [F.col("ok.topic").alias("topic"), F.lit(m["subscription"]).alias("subscription"), "uid",
                   F.col("ok.producer").alias("producer"), F.col("ok.seq").alias("seq"),
                   F.col("ok.key").alias("key"), F.col("ok.ts_ns").alias("sent_ts_ns")]
        missing = per_uid.filter((F.col("ok.topic") == m["topic"]) & ~F.col(f"seen{k}"))
        lost = lost.unionByName(
            missing.select(_finding(LOST, F.col("ok.ts_ns"), F.lit(0), F.col("uid"), columns).alias("f")).select("f.*"))
    return lost


def _nonmonotonic(delivered: DataFrame):
    first = delivered.select(
        "topic", "subscription", F.col("first.client").alias("client"), F.col("first.producer").alias("producer"),
        F.col("first.key").alias("key"), "uid", F.col("first.seq").alias("seq"), F.col("first.ts_ns").alias("ts_ns"))
    # Order is per consumer client (design.md §5.2); equal timestamps give the benefit of the doubt.
    group = Window.partitionBy("topic", "subscription", "client", "producer", "key").orderBy("ts_ns", "seq")
    earlier = F.max("seq").over(group.rowsBetween(Window.unboundedPreceding, -1))
    late = first.withColumn("after_seq", earlier).filter(F.col("seq") < F.col("after_seq"))
    columns = ["topic", "subscription", "client", "producer", "key", "uid", "seq", "after_seq", "ts_ns"]
    return late.select(_finding(NONMONOTONIC, -(F.col("after_seq") - F.col("seq")), F.col("ts_ns"), F.col("uid"),
                                columns).alias("f")).select("f.*")
