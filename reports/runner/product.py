"""PRODUCT.yaml: what was certified, with the fields a Kubernetes conformance submission asks.

Fields (cncf/k8s-conformance's PRODUCT.yaml): ``vendor``, ``name``, ``version``, ``website_url``,
``documentation_url``, ``type`` (one of ``TYPES``) and ``contact_email_address`` are required;
``product_logo_url``, ``repo_url`` and ``description`` are optional.

Where they come from, first wins: ``--vendor`` and ``--product NAME``; a product file
(``--product FILE``, a path ending in .yaml or .yml) holding every required field; the external
deployment file's ``product:`` mapping (any of the fields); the run itself (the local and
containers backends run Apache Pulsar's own distribution, of the release they report). A field
nobody gave stays ``unknown`` (names) or null (URLs, contact) and ``missing`` in summary.json lists
it. A product file or a ``product:`` mapping with a missing field, a type outside ``TYPES``, a URL
that is not http(s) or an unknown key is bad input (exit 64), named with its fix, before anything
runs.
"""
from __future__ import annotations

import re
from pathlib import Path

import yaml

from pulsar_conformance.errors import UsageError
from pulsar_conformance.fixtures.deploy.deployment_file import StrictLoader, read_deployment_file

TYPES = ("distribution", "hosted", "installer", "managed")
REQUIRED = ("vendor", "name", "version", "website_url", "documentation_url", "type", "contact_email_address")
OPTIONAL = ("product_logo_url", "repo_url", "description")
ORDER = ("vendor", "name", "version", "website_url", "repo_url", "documentation_url", "product_logo_url", "type",
         "description", "contact_email_address")
URLS = ("website_url", "documentation_url", "product_logo_url", "repo_url")
FILE_SUFFIXES = (".yaml", ".yml")
MAX_BYTES = 64 * 1024  # a product file is ten lines
EXAMPLE = ("vendor: Example Inc.\nname: Example Streaming\nversion: '4.2'\nwebsite_url: https://example.com\n"
           "documentation_url: https://example.com/docs\ntype: hosted\ncontact_email_address: pulsar@example.com")
_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")

# The local and containers backends run Apache Pulsar's binary distribution as released.
APACHE = {
    "vendor": "Apache Software Foundation",
    "name": "Apache Pulsar",
    "website_url": "https://pulsar.apache.org",
    "documentation_url": "https://pulsar.apache.org/docs/",
    "repo_url": "https://github.com/apache/pulsar",
    "type": "distribution",
    "contact_email_address": "dev@pulsar.apache.org",
}


def is_file_option(value: str | None) -> bool:
    """``--product`` names a product file when it ends in .yaml/.yml; anything else is the product's name."""
    return bool(value) and value.lower().endswith(FILE_SUFFIXES)


def check_option(value: str | None) -> str | None:
    """``--product`` as certify keeps it: a name unchanged, a product file resolved after it was read and
    validated (a UsageError naming the field and the fix otherwise)."""
    if not is_file_option(value):
        return value
    path = Path(value).expanduser().resolve()
    load(path)
    return str(path)


def load(path: str | Path) -> dict:
    """The validated product file at ``path``: every required field, known keys only."""
    path = Path(path)
    where = f"--product {path}"
    if not path.is_file():
        raise UsageError(f"{where}: no such file", f"write a product file there, e.g.\n{EXAMPLE}")
    try:
        with path.open("rb") as stream:
            data = stream.read(MAX_BYTES + 1)
        if len(data) > MAX_BYTES:
            raise UsageError(f"{where}: larger than {MAX_BYTES // 1024} KiB; a product file is a few lines",
                             "pass the product file itself")
        text = data.decode("utf-8-sig")
    except (OSError, UnicodeDecodeError) as error:
        raise UsageError(f"{where}: cannot be read as UTF-8 text ({type(error).__name__})",
                         "save the product file as UTF-8 YAML") from None
    document = _parse(text, where)
    return check(document, where, complete=True)


def check(document, where: str, *, complete: bool) -> dict:
    """``document`` as PRODUCT.yaml fields; ``complete``: every required field must be there."""
    if not isinstance(document, dict):
        raise UsageError(f"{where}: expected a mapping of PRODUCT.yaml fields, got {type(document).__name__}",
                         f"write one field per line, e.g.\n{EXAMPLE}")
    known = REQUIRED + OPTIONAL
    unknown = [str(k) for k in document if k not in known]
    if unknown:
        raise UsageError(f"{where}: unknown field(s) {', '.join(unknown)}",
                         f"use only {', '.join(known)} (a typo of one of them?)")
    fields = {}
    for name in known:
        value = document.get(name)
        if value is None or (isinstance(value, str) and not value.strip()):
            if complete and name in REQUIRED:
                raise UsageError(f"{where}: field {name} is missing", _fix(name))
            continue
        if not isinstance(value, str):
            raise UsageError(f"{where}: field {name} is a {type(value).__name__}, not text",
                             f"quote it, e.g. {name}: '{value}' (YAML reads 4.2 as a number)")
        fields[name] = value.strip()
    _check_values(fields, where)
    return fields


def _check_values(fields: dict, where: str) -> None:
    if "type" in fields and fields["type"] not in TYPES:
        raise UsageError(f"{where}: field type is {fields['type']!r}, not one of {', '.join(TYPES)}", _fix("type"))
    for name in URLS:
        if name in fields and not re.match(r"^https?://[^\s/]+", fields[name]):
            raise UsageError(f"{where}: field {name} is not an http(s) URL", _fix(name))
    email = fields.get("contact_email_address")
    if email and not _EMAIL.match(email):
        raise UsageError(f"{where}: field contact_email_address is not an e-mail address",
                         _fix("contact_email_address"))


def _fix(name: str) -> str:
    return {
        "type": f"set type to one of {', '.join(TYPES)} (distribution: your build of Pulsar; hosted: a service "
                "you run for customers; installer: a tool that deploys Pulsar; managed: clusters you operate in "
                "the customer's account)",
        "contact_email_address": "set contact_email_address to the address that answers for this certification, "
                                 "e.g. contact_email_address: pulsar@example.com",
        "version": "set version to the product's release as text, e.g. version: '4.2.4'",
    }.get(name, f"set {name}" + (" to an https:// URL" if name in URLS else "") + f"; a complete file:\n{EXAMPLE}")


def _parse(text: str, where: str):
    if not text.strip():
        raise UsageError(f"{where}: the file is empty", f"write the product's fields, e.g.\n{EXAMPLE}")
    try:
        return yaml.load(text, Loader=StrictLoader)  # noqa: S506 - StrictLoader is a SafeLoader without aliases
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        line = f" at line {mark.line + 1}" if mark else ""
        raise UsageError(f"{where}: not valid YAML{line}", "fix the YAML syntax") from None
    except (RecursionError, ValueError) as error:
        raise UsageError(f"{where}: not a product file ({type(error).__name__})",
                         f"write the product's fields, e.g.\n{EXAMPLE}") from None
    except Exception as error:  # noqa: BLE001 - the strict loader's refusal (an alias, a duplicate key)
        problem = getattr(error, "problem", None)
        if problem is None:
            raise
        raise UsageError(f"{where} line {error.line}: {problem}", error.fix) from None


def check_deployment_product(deployment_option: str | None) -> None:
    """The ``product:`` mapping of an external deployment file, checked like a product file's fields
    (it need not hold them all). Errors of the file itself are left to the deployment's own check."""
    if not deployment_option or deployment_option in ("local", "containers"):
        return
    try:
        document = read_deployment_file(deployment_option)
    except UsageError:
        return  # reports/runner/request.py says what is wrong with the file, in its place
    given = document.get("product")
    if given is not None:
        check(_legacy(given), f"deployment file {deployment_option}: product", complete=False)


def _legacy(given):
    """``product:`` of deployment files written before PRODUCT.yaml had its URLs took ``product`` for ``name``."""
    if isinstance(given, dict) and "product" in given and "name" not in given:
        given = {("name" if k == "product" else k): v for k, v in given.items()}
    return given


def describe(request, observed_pulsar: str | None, deployment_document: dict) -> tuple[dict, list[str]]:
    """PRODUCT.yaml's fields for ``request`` (reports/runner/request.CertifyRequest) in Kubernetes' order, and the
    required fields nobody gave."""
    fields: dict = {}
    if deployment_document.get("product") is not None:
        fields.update(check(_legacy(deployment_document["product"]), "deployment file: product", complete=False))
    if is_file_option(request.product):
        fields.update(load(request.product))
    elif request.product:
        fields["name"] = request.product
    if request.vendor:
        fields["vendor"] = request.vendor
    version = observed_pulsar or request.pulsar_version
    if request.deployment.backend == "external":
        # the release the brokers report wins; a version the file or --product gives is kept only
        # when they did not answer, and said so (issue 32)
        given = fields.get("version")
        if observed_pulsar:
            fields["version"] = observed_pulsar
            source = "version read from the brokers (GET /admin/v2/brokers/version)"
        else:
            source = ("version as the deployment file or --product gives it: the brokers did not report theirs"
                      if given else "")
        if source:
            fields["description"] = f"{fields.get('description') or 'external deployment'} ({source})"
    elif request.deployment.backend in ("local", "containers"):
        described = (f"Apache Pulsar {version} as released" if version else "Apache Pulsar as released")
        shape = ("clusters of ZooKeeper, bookies and brokers" if request.deployment.topology == "cluster"
                 else "standalone clusters")
        fields = {**APACHE, "version": version, "description": f"{described}, run by the suite as "
                  f"{request.deployment.backend} {shape}", **fields}
    missing = [name for name in REQUIRED if not fields.get(name)]
    product = {}
    for name in ORDER:
        value = fields.get(name)
        if value is None and name in ("vendor", "name", "version", "type"):
            value = "unknown"
        if value is not None or name in REQUIRED:
            product[name] = value
    return product, missing
