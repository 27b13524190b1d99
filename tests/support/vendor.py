"""A vendor's deployment file describing the suite's own token-protected local clusters, for the
tests that certify through an external deployment with real credentials (the canaries)."""
from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

PRODUCT = "product: {vendor: Example Vendor, name: Example Streaming, version: '9.9', type: hosted}"


def vendor_file(path: Path, deployment, entry: Callable[[object], dict[str, str]]) -> Path:
    """Write ``path``: the product line, then each cluster of ``deployment`` under its name with the
    keys ``entry(cluster)`` gives (URLs and a token, or a client_conf path)."""
    lines = [PRODUCT, "clusters:"]
    for cluster in deployment.clusters.values():
        lines += [f"  {cluster.name}:", *(f"    {key}: {value}" for key, value in entry(cluster).items())]
    path.write_text("\n".join(lines) + "\n")
    return path
