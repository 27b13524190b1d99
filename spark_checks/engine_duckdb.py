"""The §5.2 checks in DuckDB SQL: the single-node yardstick ``bench spark`` compares with.

Same definitions, tie-breaks and example order as engine_python (tests hold them equal).
"""
from __future__ import annotations

import json
import os

import duckdb

from .capture_input import CaptureInput
from .classes import CLASSES, MAX_EXAMPLES

_QUERY = """
WITH ev AS (
  SELECT ts_ns, client, topic, subscription, kind, uid, producer, seq, key,
         coalesce(redelivery_count, 0) AS rc0
  FROM read_parquet($files)
),
sends AS (
  SELECT uid, bool_or(kind = 'send_ok') AS ok, bool_or(kind = 'send_unknown') AS unknown
  FROM ev WHERE kind IN ('send_ok', 'send_err', 'send_unknown') GROUP BY uid
),
sent_ok AS (
  SELECT uid, min({'ts': ts_ns, 'topic': topic, 'producer': producer, 'seq': seq, 'key': key}) AS s
  FROM ev WHERE kind = 'send_ok' GROUP BY uid
),
flagged AS (
  SELECT *,
    coalesce(bool_or(kind = 'ack') OVER before, false) AS acked_before,
    coalesce(bool_or(kind = 'receive') OVER before, false) AS recv_before
  FROM ev WHERE kind IN ('receive', 'ack')
  WINDOW before AS (PARTITION BY topic, subscription, uid ORDER BY ts_ns, kind = 'ack', rc0
                    ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING)
),
pairs AS (
  SELECT topic, subscription, uid,
    count(*) FILTER (WHERE kind = 'receive') AS deliveries,
    count(*) FILTER (WHERE kind = 'receive' AND recv_before AND rc0 = 0 AND NOT acked_before) AS unexplained,
    count(*) FILTER (WHERE kind = 'receive' AND acked_before) AS after_ack,
    min(ts_ns) FILTER (WHERE kind = 'ack') AS acked_ts_ns,
    max(ts_ns) FILTER (WHERE kind = 'receive') AS last_ts_ns,
    min({'ts': ts_ns, 'rc': rc0, 'client': client, 'producer': producer, 'seq': seq, 'key': key})
      FILTER (WHERE kind = 'receive') AS f
  FROM flagged GROUP BY topic, subscription, uid
),
delivered AS (
  SELECT p.*, s.ok AS uid_ok, s.unknown AS uid_unknown, s.uid IS NOT NULL AS uid_sent
  FROM pairs p LEFT JOIN sends s USING (uid) WHERE p.deliveries > 0
),
must_see AS (SELECT * FROM (VALUES {must_see}) AS m(topic, subscription) WHERE topic IS NOT NULL),
firsts AS (
  -- a uid never sent has no producer order (docs/spark-checks.md): it stays out of the ordering check
  SELECT topic, subscription, f.client AS client, f.producer AS producer, f.key AS key, uid, f.seq AS seq,
         f.ts AS ts_ns FROM delivered WHERE uid_sent
),
late AS (
  SELECT *, max(seq) OVER (PARTITION BY topic, subscription, client, producer, key ORDER BY ts_ns, seq
                           ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS after_seq
  FROM firsts
),
found AS (
  SELECT 'duplicate' AS class, -unexplained AS k1, -deliveries AS k2, f.ts AS k3, uid AS k4,
    to_json({'topic': topic, 'subscription': subscription, 'uid': uid, 'producer': f.producer, 'seq': f.seq,
             'deliveries': deliveries, 'unexplained': unexplained}) AS example
  FROM delivered WHERE unexplained > 0
  UNION ALL
  SELECT 'redelivered_after_ack', -after_ack, -(last_ts_ns - acked_ts_ns), f.ts, uid,
    to_json({'topic': topic, 'subscription': subscription, 'uid': uid, 'producer': f.producer, 'seq': f.seq,
             'acked_ts_ns': acked_ts_ns, 'after_ack': after_ack, 'last_ts_ns': last_ts_ns})
  FROM delivered WHERE after_ack > 0
  UNION ALL
  SELECT 'unexpected', -deliveries, f.ts, 0, uid,
    to_json({'topic': topic, 'subscription': subscription, 'uid': uid, 'producer': f.producer, 'seq': f.seq,
             'deliveries': deliveries, 'first_ts_ns': f.ts})
  FROM delivered WHERE NOT uid_sent
  UNION ALL
  SELECT 'recovered', f.ts, 0, 0, uid,
    to_json({'topic': topic, 'subscription': subscription, 'uid': uid, 'producer': f.producer, 'seq': f.seq,
             'send_kind': CASE WHEN uid_unknown THEN 'send_unknown' ELSE 'send_err' END, 'first_ts_ns': f.ts})
  FROM delivered WHERE uid_sent AND NOT uid_ok
  UNION ALL
  SELECT 'lost', o.s.ts, 0, 0, o.uid,
    to_json({'topic': m.topic, 'subscription': m.subscription, 'uid': o.uid, 'producer': o.s.producer,
             'seq': o.s.seq, 'key': o.s.key, 'sent_ts_ns': o.s.ts})
  FROM sent_ok o JOIN must_see m ON o.s.topic = m.topic
  WHERE NOT EXISTS (SELECT 1 FROM pairs p WHERE p.uid = o.uid AND p.topic = m.topic
                    AND p.subscription = m.subscription AND p.deliveries > 0)
  UNION ALL
  SELECT 'nonmonotonic', -(after_seq - seq), ts_ns, 0, uid,
    to_json({'topic': topic, 'subscription': subscription, 'client': client, 'producer': producer, 'key': key,
             'uid': uid, 'seq': seq, 'after_seq': after_seq, 'ts_ns': ts_ns})
  FROM late WHERE seq < after_seq
),
ranked AS (
  SELECT class, example, count(*) OVER (PARTITION BY class) AS n,
         row_number() OVER (PARTITION BY class ORDER BY k1, k2, k3, k4) AS rank
  FROM found
)
SELECT class, n, example FROM ranked WHERE rank <= {max_examples} ORDER BY class, rank
"""

_TOTALS = """
SELECT count(*) AS events, count(*) FILTER (WHERE kind IN ('send_ok', 'send_err', 'send_unknown')) AS sends
FROM read_parquet($files)
"""


def run_checks(capture: CaptureInput, *, threads: int | None = None) -> dict:
    con = duckdb.connect()
    try:
        con.execute(f"SET threads = {int(threads or os.cpu_count() or 1)}")
        con.execute("SET preserve_insertion_order = false")
        must_see = ", ".join(
            f"({_quote(m['topic'])}, {_quote(m['subscription'])})" for m in capture.manifest["must_see"]
        ) or "(NULL, NULL)"
        query = _QUERY.replace("{must_see}", must_see).replace("{max_examples}", str(MAX_EXAMPLES))
        files = list(capture.files)
        rows = con.execute(query, {"files": files}).fetchall()
        events, sends = con.execute(_TOTALS, {"files": files}).fetchone()
    finally:
        con.close()
    counts = {name: 0 for name in CLASSES}
    examples: dict[str, list] = {name: [] for name in CLASSES}
    for name, n, example in rows:
        counts[name] = int(n)
        examples[name].append(json.loads(example))
    return {"events": int(events), "sends": int(sends), "counts": counts, "examples": examples}


def _quote(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"
