"""Checks declared once: each protocol lists the checks its scenarios record, as name patterns
with the requirements they judge (``conformance/protocols/<protocol>/checks.py``).

A scenario records a check by its name only; the requirements come from here, so a check and
its requirements are written in one place. The catalog's ``conformance:`` links are held to
these declarations by a test (a link that matches no declared check judging its requirement is a
broken link), and a recorded name that matches no declaration is refused before it is written.

Names are ``/``-separated segments; ``<word>`` in a pattern (or a catalog link) stands for any
one segment: ``<scenario>/<topic>/<producer>/redirected`` matches
``geo-migration/m-1/p-blue/redirected``.
"""
from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

_PLACEHOLDER = re.compile(r"^<[a-z_+-]+>$")


def _segments(name: str) -> list[str]:
    return name.split("/")


def _is_placeholder(segment: str) -> bool:
    return bool(_PLACEHOLDER.match(segment))


@dataclass(frozen=True)
class Check:
    pattern: str
    requirements: tuple[str, ...]
    judges: str  # what it judges, in one line
    # the scenario names which of ``requirements`` a recorded instance judges (a trace check
    # judges the requirements of the spec invariants its projection reaches)
    chosen: bool = False
    # an observation: what the check compares the run with, which its requirements' texts do not ask
    # for (e.g. "the blog's improved implementation"). Its row is recorded beside those requirements as
    # evidence; its failure reads ``differs`` for them, never their failure (sources.verdict_for), so a
    # figure a vendor would rightly dispute as the verdict still reaches the report (issue 47)
    observes: str = ""

    def matches(self, name: str) -> bool:
        """A recorded name, or a catalog link (its placeholders match any segment too)."""
        mine, theirs = _segments(self.pattern), _segments(name)
        return len(mine) == len(theirs) and all(
            a == b or _is_placeholder(a) or _is_placeholder(b) for a, b in zip(mine, theirs, strict=True))

    @property
    def literal_segments(self) -> int:
        return sum(not _is_placeholder(s) for s in _segments(self.pattern))


class UndeclaredCheck(ValueError):
    pass


@dataclass(frozen=True)
class Checks:
    """A protocol's declared checks and the scenario names their first segment takes;
    ``where`` names the file that declares them (for the fix)."""

    area: str
    where: str
    scenarios: tuple[str, ...]
    checks: tuple[Check, ...]
    # the configuration hazards of the run in progress (``hazards.Hazard``), read when a recorder
    # starts: a failure they explain is recorded unknown, the hazard with it
    hazards: Callable[[], tuple] | None = None

    def current_hazards(self) -> tuple:
        return tuple(self.hazards()) if self.hazards else ()

    @property
    def judged(self) -> set[str]:
        """Every requirement a check of the protocol judges."""
        return {q for c in self.checks for q in c.requirements}

    def find(self, name: str) -> Check:
        """The declaration a recorded name belongs to: the most specific pattern that matches."""
        scenario = _segments(name)[0]
        if scenario not in self.scenarios:
            raise UndeclaredCheck(f"check {name!r}: scenario {scenario!r} is not one of {self.area}'s "
                                  f"{list(self.scenarios)}; declare it in {self.where}")
        found = sorted((c for c in self.checks if c.matches(name)), key=lambda c: -c.literal_segments)
        if not found:
            raise UndeclaredCheck(f"check {name!r} is not declared for {self.area}: declare it with the "
                                  f"requirements it judges in {self.where}")
        if len(found) > 1 and found[0].literal_segments == found[1].literal_segments:
            raise UndeclaredCheck(f"check {name!r} matches {found[0].pattern!r} and {found[1].pattern!r} in "
                                  f"{self.where}: make one of them more specific")
        return found[0]

    def observes(self, name: str) -> str:
        """What the declaration of a recorded name compares the run with, "" when it judges its
        requirements (``Check.observes``)."""
        return self.find(name).observes

    def requirements(self, name: str, chosen: list[str] | None = None) -> list[str]:
        """What a recorded check judges: its declaration's requirements, or for a declaration
        whose scenario chooses them, the chosen ones (which must be declared)."""
        check = self.find(name)
        if chosen is None:
            if check.chosen:
                raise UndeclaredCheck(f"check {name!r} ({check.pattern}) judges requirements its scenario "
                                      f"chooses from {list(check.requirements)}: pass requirements=")
            return list(check.requirements)
        extra = sorted(set(chosen) - set(check.requirements))
        if extra or not check.chosen:
            raise UndeclaredCheck(f"check {name!r} records {extra or chosen}, which {check.pattern!r} does not "
                                  f"let its scenario choose; declare them in {self.where}")
        return list(chosen)

    def link_problems(self, requirements) -> list[str]:
        """The area's catalog links that no declared check judging that requirement matches (a
        broken link), and declared checks no requirement links (a verdict the report cannot place)."""
        problems, linked = [], set()
        for req in (r for r in requirements if r.area == self.area):
            for link in req.conformance:
                judging = [c for c in self.checks if c.matches(link) and req.id in c.requirements]
                if not judging:
                    problems.append(f"{req.id}: link {link!r} matches no check of {self.where} that judges {req.id}")
                linked.update(c.pattern for c in judging)
        problems += [f"{c.pattern} ({', '.join(c.requirements)}) is declared in {self.where} but no "
                     "requirement links it" for c in self.checks if c.pattern not in linked]
        return problems
