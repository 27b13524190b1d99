"""PRODUCT.yaml has the fields a Kubernetes conformance submission asks; a product file that lacks one
or has a type outside the list is refused before anything starts, naming the field and the fix."""
from __future__ import annotations

import json

import pytest
import yaml

from pulsar_conformance.errors import UsageError
from pulsar_conformance.reports.runner import product

from .conftest import run_cli
from .handmade import make_bundle

COMPLETE = {"vendor": "Example Inc.", "name": "Example Streaming", "version": "4.2", "website_url": "https://example.com",
            "documentation_url": "https://example.com/docs", "type": "hosted",
            "contact_email_address": "pulsar@example.com"}


def _file(tmp_path, doc, name="product.yaml"):
    path = tmp_path / name
    path.write_text(doc if isinstance(doc, str) else yaml.safe_dump(doc))
    return path


def test_the_local_deployment_gets_apache_pulsar_with_every_field(tmp_path):
    summary = make_bundle(tmp_path / "b")
    written = yaml.safe_load((tmp_path / "b" / "PRODUCT.yaml").read_text())
    for field in product.REQUIRED:
        assert written[field], field
    assert written["vendor"] == "Apache Software Foundation" and written["type"] == "distribution"
    assert written["website_url"] == "https://pulsar.apache.org" and "@" in written["contact_email_address"]
    assert list(written)[:3] == ["vendor", "name", "version"]
    assert summary["product_missing"] == []


def test_a_product_file_is_what_the_bundle_says(tmp_path):
    path = _file(tmp_path, {**COMPLETE, "product_logo_url": "https://example.com/logo.svg"})
    make_bundle(tmp_path / "b", product=str(path))
    written = yaml.safe_load((tmp_path / "b" / "PRODUCT.yaml").read_text())
    assert {k: written[k] for k in COMPLETE} == COMPLETE
    assert written["product_logo_url"] == "https://example.com/logo.svg"
    # --vendor still wins over the file, as it wins over the deployment file
    make_bundle(tmp_path / "c", product=str(path), vendor="Other Vendor")
    assert yaml.safe_load((tmp_path / "c" / "PRODUCT.yaml").read_text())["vendor"] == "Other Vendor"


def test_a_plain_product_name_still_names_the_product(tmp_path):
    assert product.check_option("Example Streaming") == "Example Streaming"
    make_bundle(tmp_path / "b", product="Example Streaming")
    assert yaml.safe_load((tmp_path / "b" / "PRODUCT.yaml").read_text())["name"] == "Example Streaming"


@pytest.mark.parametrize("change, field, fix", [
    ({"type": "cloud"}, "field type is 'cloud', not one of distribution, hosted, installer, managed", "set type to one of"),
    ({"website_url": None}, "field website_url is missing", "set website_url to an https:// URL"),
    ({"contact_email_address": ""}, "field contact_email_address is missing", "contact_email_address: pulsar@"),
    ({"documentation_url": "example.com/docs"}, "field documentation_url is not an http(s) URL", "https://"),
    ({"version": 4.2}, "field version is a float, not text", "quote it"),
    ({"contact_email_address": "nobody"}, "not an e-mail address", "pulsar@example.com"),
    ({"vendr": "typo"}, "unknown field(s) vendr", "use only vendor"),
])
def test_a_bad_product_file_names_the_field_and_the_fix(tmp_path, change, field, fix):
    doc = {k: v for k, v in {**COMPLETE, **change}.items() if v is not None}
    with pytest.raises(UsageError) as raised:
        product.check_option(str(_file(tmp_path, doc)))
    assert field in raised.value.problem and fix in raised.value.fix, raised.value


def test_unreadable_product_files_are_refused(tmp_path):
    for text, said in (("", "the file is empty"), ("vendor: [unclosed\n", "not valid YAML"),
                       ("- a list\n", "expected a mapping"), ("a: &x 1\nb: *x\n", "anchor"),
                       ("vendor: a\nvendor: b\n", "twice")):
        with pytest.raises(UsageError, match=said):
            product.check_option(str(_file(tmp_path, text)))
    with pytest.raises(UsageError, match="no such file"):
        product.check_option(str(tmp_path / "missing.yml"))


def test_certify_refuses_a_bad_product_file_with_exit_64_before_anything_starts(tmp_path):
    bad = _file(tmp_path, {**COMPLETE, "type": "cloud"})
    done = run_cli("certify", "--profile", "smoke", "--product", str(bad), "--out", str(tmp_path / "b"), "--json",
                   timeout=120)
    assert done.returncode == 64, done.stdout + done.stderr
    doc = json.loads(done.stdout)
    assert "field type" in doc["error"] and "distribution" in doc["fix"]
    assert not (tmp_path / "b").exists()
    # the product: of an external deployment file is held to the same fields
    deployment = _file(tmp_path, "product: {vendor: V, type: saas}\nclusters: {}\n", "deployment.yaml")
    done = run_cli("certify", "--profile", "smoke", "--deployment", str(deployment), "--json", timeout=120)
    assert done.returncode == 64 and "product: field type is 'saas'" in json.loads(done.stdout)["error"]


def test_an_external_deployment_without_product_fields_lists_what_is_missing(tmp_path):
    from pulsar_conformance.reports.runner.request import CertifyRequest, Deployment

    request = CertifyRequest(profile=None, deployment=Deployment("external", "x.yaml"), product=None)
    described, missing = product.describe(request, "4.2.4", {"product": {"vendor": "V", "name": "N", "type": "hosted"}})
    assert described["vendor"] == "V" and described["version"] == "4.2.4"
    assert missing == ["website_url", "documentation_url", "contact_email_address"]
    assert described["website_url"] is None
