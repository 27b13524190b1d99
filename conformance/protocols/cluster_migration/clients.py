"""Which clients drive the PIP-188 scenarios (``certify --migration-client CLIENT``): the Python
client (pulsar-client, the C++ client underneath; the default), the Java client (pulsar-client-original,
harness/java_traffic.py, ``test_java_*.py``), or both.

The Java client's scenario starts a blue and a green of its own (a cluster-level migration cannot be
undone), minutes the CI budget has not got: it runs only when asked for, and the profile's default
selection (``--select`` included) stays what it was. conftest.py deselects the other client's modules.
"""
from __future__ import annotations

from pulsar_conformance.errors import UsageError
from pulsar_conformance.fixtures import request_file

ENV = "PULSAR_CONFORMANCE_MIGRATION_CLIENT"
CHOICES = {"python": ("python",), "java": ("java",), "all": ("python", "java")}


def check(value: str | None) -> tuple[str, ...]:
    """The clients ``value`` names (exit 64 with the choices for any other)."""
    found = CHOICES.get((value or "python").strip())
    if found is None:
        raise UsageError(f"unknown --migration-client {value!r}",
                         "use python (the Python client's scenarios, the default), java (the Java client's "
                         "namespace- and cluster-level scenarios) or all (both)")
    return found


def chosen() -> tuple[str, ...]:
    """The clients of this run (certify's request file, else the variable: fixtures/request_file.option)."""
    return check(request_file.option("migration_client", ENV))


def client_of(module_name: str) -> str:
    """Which client a live module of this package drives: ``test_java_*.py`` the Java one."""
    return "java" if module_name.startswith("test_java_") else "python"
