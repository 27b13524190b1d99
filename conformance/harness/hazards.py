"""Configuration hazards: a run set up the way an operator could set it up, in which the product
cannot do what a requirement asks for reasons of the configuration, not of the product.

Example (docs/findings.md F-188-12): blue migrated to a green advertised without a TLS broker URL,
with clients on TLS. A TLS client that refuses to follow the plain URL it is given is right; the
operator stranded it. The producers never reach green, so PIP188-R03, R05 and R16 cannot be
observed: a failure there is no product failure. The recorder (``Recorder``) turns such a row's
``fail`` into ``unknown`` and keeps the hazard, with its fix, in the row (``details.hazard``); the
report lists every hazard of the run beside the requirements it touched, and the run verdict's
reasons name it.

A hazard can also be one a scenario is configured with on purpose, to measure what it costs
(tenant-migration's message TTL shorter than an outage, docs/tenant-migration.md): its judge puts
``hazard.observed(what it cost)`` in the rows of that scenario (``details.hazard``), and no row judges a
requirement on what the hazard explains: the cost is evidence, never a verdict.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass


@dataclass(frozen=True)
class Hazard:
    name: str  # the configuration, as the command line names it
    requirements: tuple[str, ...]  # what it makes unobservable
    says: str  # what goes wrong, and whose choice it was
    fix: str  # what the operator does instead
    # checks (their name's last segment) whose failure the hazard does not explain: they stay judged
    keeps: tuple[str, ...] = ()

    def touches(self, check: str, requirements) -> bool:
        return bool(set(requirements) & set(self.requirements)) and check.rsplit("/", 1)[-1] not in self.keeps

    def to_json(self) -> dict:
        return asdict(self) | {"requirements": list(self.requirements), "keeps": list(self.keeps)}

    def observed(self, what: str) -> dict:
        """The hazard as a row of the scenario configured with it carries it, with what it was seen to
        cost in that run (``observed``, the evidence)."""
        return self.to_json() | {"observed": what}

    def text(self) -> str:
        return f"configuration hazard ({self.name}): {self.says}; fix: {self.fix}"


def apply(hazards, check: str, requirements, verdict: str, evidence: str) -> tuple[str, str, list[dict]]:
    """A row's verdict and evidence under the run's hazards, and the hazards that touch it: a
    failure of a requirement a hazard makes unobservable is unknown, with the hazard first."""
    touching = [h for h in hazards if h.touches(check, requirements)]
    if not touching:
        return verdict, evidence, []
    if verdict == "fail":
        verdict = "unknown"
        evidence = "; ".join(h.text() for h in touching) + f". Observed (not a product failure): {evidence}"
    return verdict, evidence, [h.to_json() for h in touching]
