"""The requirements catalog is well formed and every link it makes points at something real."""
from __future__ import annotations

import pytest

from pulsar_conformance.spec.catalog import CatalogError, dangling_links, load


def test_shipped_catalog_has_no_dangling_links():
    catalog = load()
    assert len(catalog.by_area("client-failover")) >= 10 and len(catalog.by_area("policy-sync")) >= 7
    assert dangling_links(catalog) == []


def test_uncovered_requirements_say_why():
    for req in load().requirements:
        assert req.covered or req.uncovered, req.id


def test_a_link_to_a_missing_invariant_is_caught(tmp_path):
    (tmp_path / "x.yaml").write_text(
        "area: client-failover\nrequirements:\n"
        "  - {id: PIP121-R99, strength: MUST, text: t, quote: q,"
        " spec: {name: client-failover, variants: [cpp], invariants: [no_such_invariant]}}\n")
    problems = dangling_links(load(tmp_path))
    assert problems and "no_such_invariant" in problems[0]


@pytest.mark.parametrize("body,word", [
    ("  - {id: PIP121-R01, strength: MUSTN'T, text: t, quote: q, spec: null}\n", "strength"),
    ("  - {id: bad-id, strength: MUST, text: t, quote: q, spec: null}\n", "id"),
    ("  - {id: PIP121-R01, strength: MUST, quote: q, spec: null}\n", "text"),
])
def test_malformed_requirements_are_refused(tmp_path, body, word):
    (tmp_path / "x.yaml").write_text("area: a\nrequirements:\n" + body)
    with pytest.raises(CatalogError, match=word):
        load(tmp_path)
