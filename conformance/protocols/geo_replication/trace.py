"""The projection of a geo-replication run onto a spec: there is none yet. The protocol's
descriptor names no executable spec (pulsar_conformance/protocols/geo_replication.py), so the
capture is judged by the Spark checks alone (judge.py: lost, duplicated, reordered deliveries per
subscription). A spec would be projected here from the outcome (outcome.py), as the other
protocols' trace.py do."""
from __future__ import annotations

from .outcome import Outcome

SPEC = None  # "module:Class" once the protocol has one (the descriptor's ``spec``)


def project(out: Outcome) -> None:
    """Nothing to project onto: no spec (see the module's docstring)."""
    return None
