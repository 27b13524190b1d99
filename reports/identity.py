"""What was certified (PRODUCT.yaml), with which versions, and which secrets must stay out.

PRODUCT.yaml follows the Kubernetes conformance submission (vendor, name, version, type):
options win, then a ``product:`` mapping in the external deployment file, then what the run
observed (the local backend runs Apache Pulsar of the version it reports).
"""
from __future__ import annotations

import json
import os
import platform
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

import yaml


def _version(dist: str) -> str | None:
    try:
        return version(dist)
    except PackageNotFoundError:
        return None


def deployment_info(out: Path) -> dict:
    path = out / "deployment.json"
    return json.loads(path.read_text()) if path.exists() else {}


def versions(out: Path) -> dict:
    info = deployment_info(out)
    status = info.get("status") or {}
    java = status.get("java") or {}
    return {
        "suite": _version("pulsar-conformance"),
        "spec_catalog": "spec/catalog + conformance/catalog of this suite version",
        "pulsar": status.get("pulsar_version"),
        "pulsar_client_python": _version("pulsar-client"),
        "java": java.get("version"),
        "spark": _version("pyspark"),
        "python": platform.python_version(),
        "platform": platform.platform(),
    }


def product(args, deployment: dict, out: Path) -> dict:
    from_file = {}
    if deployment.get("file"):
        doc = yaml.safe_load(Path(deployment["file"]).read_text()) or {}
        from_file = doc.get("product") if isinstance(doc.get("product"), dict) else {}
    pulsar = versions(out)["pulsar"]
    local = deployment["backend"] == "local"
    return {
        "vendor": args.vendor or from_file.get("vendor") or ("Apache Software Foundation" if local else "unknown"),
        "name": args.product or from_file.get("name") or from_file.get("product") or ("Apache Pulsar" if local else "unknown"),
        "version": from_file.get("version") or pulsar or args.pulsar_version or "unknown",
        "type": from_file.get("type") or ("local embedded standalone clusters" if local else deployment["backend"]),
        "description": from_file.get("description") or "Pulsar cross-cluster features under the pulsar-conformance suite",
        "pulsar_client": {"language": "python", "version": _version("pulsar-client")},
    }


def secrets(deployment: dict) -> list[str]:
    """Every credential the deployment file gives, so the bundle can be scanned for them."""
    if not deployment.get("file"):
        return []
    doc = yaml.safe_load(Path(deployment["file"]).read_text()) or {}
    found = []
    for spec in (doc.get("clusters") or {}).values():
        if not isinstance(spec, dict):
            continue
        if spec.get("token"):
            found.append(str(spec["token"]).strip())
        if spec.get("token_file") and Path(str(spec["token_file"])).is_file():
            found.append(Path(str(spec["token_file"])).read_text().strip())
        if spec.get("token_env") and os.environ.get(str(spec["token_env"])):
            found.append(os.environ[str(spec["token_env"])].strip())
    return [s for s in found if len(s) >= 8]


def redact_tree(root: Path, secret_values: list[str]) -> list[str]:
    """Last line of defence: replace any credential found in a bundle file; return the files touched."""
    touched = []
    needles = [s.encode() for s in secret_values]
    if not needles:
        return touched
    for path in root.rglob("*"):
        if not path.is_file():
            continue
        data = path.read_bytes()
        if any(n in data for n in needles):
            for n in needles:
                data = data.replace(n, b"[REDACTED]")
            path.write_bytes(data)
            touched.append(str(path.relative_to(root)))
    return touched
