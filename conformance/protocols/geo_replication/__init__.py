"""Geo-replication between two clusters: the ground the migration protocols stand on."""
