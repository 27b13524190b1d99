"""The checks the geo-replication scenario records (conformance/catalog/geo-replication.yaml)."""
from __future__ import annotations

from ...harness.checks import Check, Checks

CHECKS = Checks(
    area="geo-replication",
    where="conformance/protocols/geo_replication/checks.py",
    scenarios=("geo-replication",),
    checks=(
        Check("geo-replication/blue-to-green", ("GEO-R01",), "every acknowledged message delivered on the other cluster, once, in order"),
        Check("geo-replication/after-outage", ("GEO-R02",), "what was published during a replication outage arrives once it is back"),
        # the same two for each explored schedule (explore.py), named by it so that a bundle's rows stay apart
        Check("geo-replication/<scenario>/blue-to-green", ("GEO-R01",), "as blue-to-green, in one explored schedule"),
        Check("geo-replication/<scenario>/after-outage", ("GEO-R02",), "as after-outage, in one explored schedule"),
    ),
)
