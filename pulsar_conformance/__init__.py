"""Formal specs and a conformance suite for Apache Pulsar's cross-cluster features.

The checkout's top-level folders are this package's subpackages (see setup.py):
``pulsar_conformance.spec`` is ``spec/``, ``pulsar_conformance.fixtures`` is ``fixtures/``...
"""

__version__ = "0.1.0"
