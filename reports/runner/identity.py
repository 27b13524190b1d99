"""What was certified (PRODUCT.yaml), with which versions, and which secrets must stay out.

PRODUCT.yaml follows the Kubernetes conformance submission (vendor, name, version, type):
options win, then a ``product:`` mapping in the external deployment file, then what the run
observed (the local backend runs Apache Pulsar of the version it reports).

The client versions are those of the pytest child, not of this process: ``--client-version``
puts another pulsar-client first on the child's PYTHONPATH. certify writes ``client.json``
from a probe of the child's environment before the run; loaded as a pytest plugin in the
child (``-p pulsar_conformance.reports.runner.identity``), this module replaces it at session end
with the client the tests actually imported.
"""
from __future__ import annotations

import json
import platform
import sys
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from pulsar_conformance.files import write_atomic
from pulsar_conformance.fixtures import request_file
from pulsar_conformance.fixtures.client_versions import loaded_client
from pulsar_conformance.fixtures.deploy import client_conf
from pulsar_conformance.fixtures.deploy.deployment_file import read_deployment_file
from pulsar_conformance.redact import document_secrets
from pulsar_conformance.redact import redact_tree as redact

CLIENT_FILE = "client.json"


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
    out = request_file.out_dir()
    if not out or "pulsar" not in sys.modules or not Path(out).is_dir():
        return  # nothing imported it here: certify's probe of this environment stands

    requested, path = request_file.client()
    record = {**loaded_client(), "path": path, "requested": requested, "observed": "imported by the tests"}
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
        # where "pulsar" came from: an external deployment's brokers (GET /admin/v2/brokers/version)
        # or the release the suite's own clusters were started with
        "pulsar_source": status.get("pulsar_version_source") or ("the suite's clusters" if status.get("pulsar_version")
                                                                 else None),
        "pulsar_client_python": client.get("version"),
        "pulsar_client_cpp": client.get("cpp_version"),
        "pulsar_client_java": _java_client(out),
        "java": java.get("version"),
        "spark": _version("pyspark"),
        "python": platform.python_version(),
        "platform": platform.platform(),
    }


def _java_client(out: Path) -> str | None:
    """The pulsar-client-original release the Java scenarios ran, as their captures recorded it (the
    failover client's and PIP-188's Java traffic's ``java.version``; tenant migration's consumer moved to B,
    ``java_on_b``)."""
    for pattern in ("*/failover.json", "*/migration.json"):
        for path in sorted((out / "captures").glob(pattern)):
            found = (json.loads(path.read_text()).get("java") or {}).get("version")
            if found:
                return found
    for path in sorted((out / "captures").glob("*/tenant-migration.json")):
        found = (json.loads(path.read_text()).get("java_on_b") or {}).get("java_client")
        if found:
            return found
    return None


def product(deployment, out: Path, *, vendor: str | None = None, name: str | None = None,
            pulsar_version: str | None = None) -> dict:
    """PRODUCT.yaml: ``vendor``/``name`` (the options) win, then the deployment file's ``product:``,
    then what the run observed; ``deployment`` is reports/runner/request.Deployment."""
    doc = _deployment_document(deployment)
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


def _deployment_document(deployment) -> dict:
    """The external deployment file, read as strictly as the edge read it (no aliases, no duplicate keys)."""
    return read_deployment_file(deployment.file) if deployment.file else {}


def secrets(deployment) -> list[str]:
    """Every credential the deployment file gives (tokens, URL passwords, OAuth2 secrets, key files),
    the client.conf files it names included (read as the edge reads them: the path as given), so the
    bundle can be scanned for them (pulsar_conformance/redact.document_secrets)."""
    if not deployment.file:
        return []
    doc = _deployment_document(deployment)
    confs = [entry["client_conf"] for entry in (doc.get("clusters") or {}).values()
             if isinstance(entry, dict) and isinstance(entry.get("client_conf"), str)]
    return document_secrets(doc) + [value for path in confs for value in client_conf.secrets(path)]


def redact_tree(root: Path, secret_values: list[str]) -> list[str]:
    """Last line of defence: mask any credential found in a bundle file, and URL userinfo in text
    files; return the files touched (pulsar_conformance/redact.redact_tree)."""
    return redact(root, secret_values)
