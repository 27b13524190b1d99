"""Which Pulsar releases ``certify`` accepts, checked before anything starts.

The check lives in fixtures/deploy/versions.py, beside the release numbers it reads, so that
``up`` refuses the same releases certify does (fixtures never import reports).
"""
from __future__ import annotations

from pulsar_conformance.fixtures.deploy.versions import KNOWN_LINES, RUN_HERE, check_release, lines_text

__all__ = ["KNOWN_LINES", "RUN_HERE", "check_release", "lines_text"]
