"""What was certified (PRODUCT.yaml), with which versions, and which secrets must stay out.

PRODUCT.yaml follows the Kubernetes conformance submission (vendor, name, version, type):
options win, then a ``product:`` mapping in the external deployment file, then what the run
observed (the local backend runs Apache Pulsar of the version it reports).

The client versions are those of the pytest child, not of this process: ``--client-version``
puts another pulsar-client first on the child's PYTHONPATH. certify writes ``client.json``
from a probe of the child's environment before the run; loaded as a pytest plugin in the
child (``-p pulsar_conformance.reports.identity``), this module replaces it at session end
with the client the tests actually imported.
"""
from __future__ import annotations

import json
import os
import platform
import sys
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

import yaml

from pulsar_conformance.files import write_atomic

CLIENT_FILE = "client.json"
ENV_OUT = "PULSAR_CONFORMANCE_CERTIFY_OUT"


def _version(dist: str) -> str | None:
    try:
        return version(dist)
    except PackageNotFoundError:
        return None


def deployment_info(out: Path) -> dict:
    path = out / "deployment.json"
    return json.loads(path.read_text()) if path.exists() else {}


def client_info(out: Path) -> dict:
    """The pulsar-client of the run; without client.json (a bundle built by hand), this process's."""
    path = out / CLIENT_FILE
    if path.exists():
        return json.loads(path.read_text())
    return {"version": _version("pulsar-client"), "cpp_version": None, "observed": "the building process"}


def write_client_info(out: Path, record: dict) -> None:
    write_atomic(out / CLIENT_FILE, json.dumps(record, indent=2))


def pytest_sessionfinish(session) -> None:
    """In the certify child: record the pulsar-client the tests imported, if they did."""
    out = os.environ.get(ENV_OUT)
    if not out or "pulsar" not in sys.modules or not Path(out).is_dir():
        return  # nothing imported it here: certify's probe of this environment stands
    from pulsar_conformance.fixtures.client_versions import ENV_DIR, ENV_VERSION, loaded_client

    record = {**loaded_client(), "path": os.environ.get(ENV_DIR),
              "requested": os.environ.get(ENV_VERSION), "observed": "imported by the tests"}
    write_client_info(Path(out), record)
    if record["requested"] and record["version"] != record["requested"]:
        # The tests judged another client than the one certify verified: no verdict of theirs stands.
        sys.stderr.write(f"certify: the tests imported pulsar-client {record['version']} from {record['module']}, "
                         f"not {record['requested']}\n")
        session.exitstatus = 4


def versions(out: Path) -> dict:
    info = deployment_info(out)
    client = client_info(out)
    status = info.get("status") or {}
    java = status.get("java") or {}
    return {
        "suite": _version("pulsar-conformance"),
        "spec_catalog": "spec/catalog + conformance/catalog of this suite version",
        "pulsar": status.get("pulsar_version"),
        "pulsar_client_python": client.get("version"),
        "pulsar_client_cpp": client.get("cpp_version"),
        "pulsar_client_java": _java_client(out),
        "java": java.get("version"),
        "spark": _version("pyspark"),
        "python": platform.python_version(),
        "platform": platform.platform(),
    }


def _java_client(out: Path) -> str | None:
    """The pulsar-client-original release the Java scenarios ran, as their captures recorded it."""
    for path in sorted((out / "captures").glob("*/failover.json")):
        found = (json.loads(path.read_text()).get("java") or {}).get("version")
        if found:
            return found
    return None


def product(deployment, out: Path, *, vendor: str | None = None, name: str | None = None,
            pulsar_version: str | None = None) -> dict:
    """PRODUCT.yaml: ``vendor``/``name`` (the options) win, then the deployment file's ``product:``,
    then what the run observed; ``deployment`` is reports/request.Deployment."""
    from_file = {}
    if deployment.file:
        doc = yaml.safe_load(Path(deployment.file).read_text()) or {}
        from_file = doc.get("product") if isinstance(doc.get("product"), dict) else {}
    observed = versions(out)
    pulsar = observed["pulsar"]
    local = deployment.backend == "local"
    return {
        "vendor": vendor or from_file.get("vendor") or ("Apache Software Foundation" if local else "unknown"),
        "name": name or from_file.get("name") or from_file.get("product") or ("Apache Pulsar" if local else "unknown"),
        "version": from_file.get("version") or pulsar or pulsar_version or "unknown",
        "type": from_file.get("type") or ("local embedded standalone clusters" if local else deployment.backend),
        "description": from_file.get("description") or "Pulsar cross-cluster features under the pulsar-conformance suite",
        "pulsar_client": {"language": "python", "version": observed["pulsar_client_python"],
                          "cpp_version": observed["pulsar_client_cpp"]},
    }


def secrets(deployment) -> list[str]:
    """Every credential the deployment file gives, so the bundle can be scanned for them."""
    if not deployment.file:
        return []
    doc = yaml.safe_load(Path(deployment.file).read_text()) or {}
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
