"""PIP-121 client cluster failover on real clusters: a failover client, its traffic and the
clusters it is attached to over time (client.py), scenarios with faults (scenario.py), the
projection of what was observed onto the client-failover spec (trace.py) and the verdicts."""
