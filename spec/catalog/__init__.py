"""The machine-readable requirements catalog (docs/spec.md).

One YAML file per seed. Each requirement has a stable id, an RFC 2119 strength, the quoted
source, the spec elements that model it and the conformance tests that check it. A
requirement with neither a spec element nor a conformance test must say why
(``uncovered``): reports show it as uncovered, never as passed.
"""
from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from pathlib import Path

import yaml

HERE = Path(__file__).parent
# The conformance suite's own requirements (same schema), conformance/catalog: found by its place beside
# this area, in the checkout and in an installed tree alike, so the spec layer imports nothing above it
SUITE = HERE.parents[1] / "conformance" / "catalog"
ID = re.compile(r"^PIP\d+-R\d{2}$|^[A-Z]+-R\d{2}$")
STRENGTHS = ("MUST", "SHOULD", "MAY")


class CatalogError(ValueError):
    pass


@dataclass(frozen=True)
class Requirement:
    id: str
    strength: str
    text: str
    quote: str
    area: str
    spec: dict | None
    conformance: tuple[str, ...] = ()
    uncovered: str | None = None
    notes: str | None = None
    source_kind: str = "seed"

    @property
    def covered(self) -> bool:
        modelled = bool(self.spec and (self.spec.get("invariants") or self.spec.get("facts")))
        return (modelled or bool(self.conformance)) and not self.uncovered

    def to_json(self) -> dict:
        return {k: v for k, v in self.__dict__.items() if v not in (None, ())} | {"covered": self.covered}


@dataclass
class Catalog:
    requirements: list[Requirement] = field(default_factory=list)

    def by_area(self, area: str) -> list[Requirement]:
        return [r for r in self.requirements if r.area == area]


def load(directory: Path = HERE) -> Catalog:
    catalog = Catalog()
    seen: set[str] = set()
    for path in sorted(directory.glob("*.yaml")):
        try:
            doc = yaml.safe_load(path.read_text())
        except yaml.YAMLError as error:
            raise CatalogError(f"{path.name}: not valid YAML: {error}") from error
        for raw in doc.get("requirements", []):
            req = _requirement(path.name, doc["area"], raw)
            if req.id in seen:
                raise CatalogError(f"{path.name}: duplicate requirement id {req.id}")
            seen.add(req.id)
            catalog.requirements.append(req)
    return catalog


@functools.cache
def requirements() -> tuple[Requirement, ...]:
    """Every requirement a verdict may name: the specs' catalog, then the conformance suite's own.
    Assembled here, once, for the recorder (conformance) and the verdicts (reports) alike."""
    return tuple(load().requirements + load(SUITE).requirements)


def _requirement(file: str, area: str, raw: dict) -> Requirement:
    rid = raw.get("id", "?")
    for key in ("id", "strength", "text", "quote"):
        if not raw.get(key):
            raise CatalogError(f"{file}: requirement {rid} lacks '{key}'")
    if not ID.match(rid):
        raise CatalogError(f"{file}: id {rid!r} is not like PIP121-R01")
    if raw["strength"] not in STRENGTHS:
        raise CatalogError(f"{file}: {rid} strength {raw['strength']!r} is not one of {STRENGTHS}")
    return Requirement(
        id=rid, strength=raw["strength"], text=raw["text"], quote=raw["quote"], area=area, spec=raw.get("spec"),
        conformance=tuple(raw.get("conformance") or ()), uncovered=raw.get("uncovered"), notes=raw.get("notes"),
        source_kind=raw.get("source_kind", "seed"),
    )


def dangling_links(catalog: Catalog) -> list[str]:
    """Spec elements a requirement names that the spec does not have (a broken link is a catalog bug)."""
    # lazy: the registry imports every spec module, which the catalog's readers (reports) need not load
    from ..registry import SPECS

    problems = []
    for req in catalog.requirements:
        if not req.spec:
            if not req.conformance and not req.uncovered:
                problems.append(f"{req.id}: no spec, no conformance test and no 'uncovered' reason")
            continue
        cls = SPECS.get(req.spec.get("name"))
        if cls is None:
            problems.append(f"{req.id}: unknown spec {req.spec.get('name')!r}")
            continue
        for variant in req.spec.get("variants", [cls.DEFAULT_VARIANT]):
            if variant not in cls.VARIANTS:
                problems.append(f"{req.id}: spec {cls.name} has no variant {variant!r}")
                continue
            spec = cls(variant=variant)
            names = {
                "invariants": {i.name for i in spec.invariants},
                "facts": {f.name for f in spec.facts},
                "actions": {a.name for a in spec.actions},
            }
            for kind, known in names.items():
                for name in req.spec.get(kind, []):
                    if name not in known:
                        problems.append(f"{req.id}: spec {cls.name} has no {kind[:-1]} {name!r}")
    return sorted(set(problems))
