"""Tenant migration over geo-replication, live: a replicated subscription with ack holes on A,
the consumers switched to B, the duplicates measured against what the spec predicts."""
