"""Which optional extras a command needs, checked before it starts (issue 51, point 2).

``pip install pulsar-conformance`` installs the core (requirements/core.txt: the specs, the catalog,
reading bundles); live clusters, Spark and the report need the extras ``pulsar``, ``spark`` and
``reports``. A core install once ran ``certify``, ``up`` or ``check-capture`` into ``No module named
'requests'`` and called it a defect of the suite (exit 70). Now a command that needs an extra says
so before anything starts: exit 64 with ``pip install 'pulsar-conformance[EXTRA]'``. What a module
that is still missing at run time belongs to is named the same way (``missing_module``), so an
import the table below does not foresee is bad input with its fix too, never a crash.

The extras' contents are read from the installed distribution's metadata (pyproject.toml reads them
from requirements/*.txt), so this table names extras, never packages.
"""
from __future__ import annotations

import re
import sys
from importlib import metadata

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name

from .errors import UsageError

DISTRIBUTION = "pulsar-conformance"
SHOWN = 6  # missing packages named in the error; the pip command installs them all

# The extras each command runs on; a command not named here runs on the core. Keyed by the command
# as typed ("bench spark"); a group's entry covers its subcommands without one of their own.
NEEDS: dict[str, tuple[str, ...]] = {
    # the tests' process: brokers and clients (pulsar), captures checked by Spark (spark), the report,
    # junit and allure (reports)
    "certify": ("pulsar", "spark", "reports"),
    "judge": ("pulsar", "spark", "reports"),  # judges a saved run again and writes a bundle like certify's
    "explore": ("pulsar", "spark", "reports"),  # a live search: certify's child, its judges, Spark, its bundle
    "plan": ("pulsar",),  # reads the deployment's clusters over their admin API
    "up": ("pulsar",), "status": ("pulsar",), "down": ("pulsar",), "fault": ("pulsar",),
    "check-capture": ("spark",),
    "bench deploy": ("pulsar",), "bench capture": ("pulsar", "spark"), "bench synth": ("spark",),
    "bench spark": ("spark",), "bench metadata-migration": ("pulsar", "spark"),
}

# Import names that are not their distribution's name (a ModuleNotFoundError names the module).
# tests/cli/test_cli_extras.py fails when a requirement of requirements/*.txt is missing here and its
# distribution's name is not its import name.
IMPORT_NAMES: dict[str, str] = {
    "pulsar": "pulsar-client", "_pulsar": "pulsar-client", "z3": "z3-solver", "yaml": "pyyaml",
    "allure": "allure-pytest", "allure_pytest": "allure-pytest", "allure_commons": "allure-pytest",
    "pytest_timeout": "pytest-timeout", "xdist": "pytest-xdist", "_pytest": "pytest",
    "docker": "testcontainers",  # testcontainers brings the docker SDK
    "markupsafe": "jinja2",
}


def needed(command: str) -> tuple[str, ...]:
    """The extras ``command`` (``"certify"``, ``"bench spark"``) needs; () for the core."""
    words = command.split()
    while words:
        if " ".join(words) in NEEDS:
            return NEEDS[" ".join(words)]
        words.pop()
    return ()


def requirements() -> list[tuple[Requirement, tuple[str, ...]]] | None:
    """Each requirement of the installed distribution with the extras that list it (() for the core);
    None when the suite runs uninstalled (PYTHONPATH on a checkout): then nothing can be checked."""
    try:
        lines = metadata.distribution(DISTRIBUTION).requires or []
    except metadata.PackageNotFoundError:
        return None
    found: dict[str, tuple[Requirement, list[str]]] = {}
    for line in lines:
        try:
            req = Requirement(line)
        except InvalidRequirement:
            continue
        extra = _extra_of(line)
        key = f"{canonicalize_name(req.name)} {req.specifier}"
        entry = found.setdefault(key, (req, []))
        if extra and extra not in entry[1]:
            entry[1].append(extra)
    return [(req, tuple(extras)) for req, extras in found.values()]


def _extra_of(line: str) -> str | None:
    match = re.search(r"""extra\s*==\s*['"]([^'"]+)['"]""", line)
    return match.group(1) if match else None


def _installed(req: Requirement) -> str | None:
    """Why ``req`` is not usable here ('not installed', 'X 1.0 installed'), None when it is."""
    try:
        have = metadata.version(req.name)
    except metadata.PackageNotFoundError:
        return "not installed"
    if req.specifier and not req.specifier.contains(have, prereleases=True):
        return f"{have} installed"
    return None


def check(command: str) -> None:
    """Stop with exit 64 and the pip command when an extra ``command`` needs is not installed; nothing
    is checked for the core or when the suite runs uninstalled."""
    wanted = needed(command)
    if not wanted:
        return
    reqs = requirements()
    if reqs is None:
        return
    missing = []
    for req, extras in reqs:
        if not set(extras) & set(wanted) or not _applies(req, extras):
            continue
        why = _installed(req)
        if why:
            missing.append(req.name if why == "not installed" else f"{req.name}{req.specifier} ({why})")
    if missing:
        shown = ", ".join(missing[:SHOWN]) + (f" and {len(missing) - SHOWN} more" if len(missing) > SHOWN else "")
        raise UsageError(f"'{command}' needs the extra{'s' if len(wanted) > 1 else ''} {', '.join(wanted)} of "
                         f"{DISTRIBUTION}, and this environment lacks {shown}", install_fix(wanted))


def _applies(req: Requirement, extras: tuple[str, ...]) -> bool:
    """Whether ``req``'s marker holds on this Python and platform for one of its extras."""
    if req.marker is None:
        return True
    return any(req.marker.evaluate({"extra": e}) for e in extras)


def install_fix(extras) -> str:
    spelled = ",".join(extras)
    return (f"pip install '{DISTRIBUTION}[{spelled}]' into this environment ({sys.executable} -m pip install "
            f"'{DISTRIBUTION}[{spelled}]'; from a checkout: pip install -e '.[{spelled}]')")


def missing_module(error: ModuleNotFoundError, command: str) -> UsageError | None:
    """The bad input a ``ModuleNotFoundError`` is when the module belongs to an extra of the suite:
    the extra and its pip command; None for any other module (a defect of the suite: exit 70)."""
    name = (error.name or "").split(".")[0]
    if not name:
        return None
    distribution = canonicalize_name(IMPORT_NAMES.get(name, name))
    reqs = requirements()
    if reqs is None:
        reqs = [(Requirement(d), e) for d, e in _from_checkout()]
    extras = sorted({e for req, es in reqs if canonicalize_name(req.name) == distribution for e in es})
    if not extras:
        return None
    # the command's own extras first: the one install that makes the whole command work
    mine = needed(command)
    wanted = mine if set(mine) & set(extras) else tuple([e for e in extras if e != "test"][:1] or extras[:1])
    return UsageError(f"'{command}' needs the Python module {name} ({distribution}, in the extra "
                      f"{' or '.join(extras)} of {DISTRIBUTION}), which is not installed", install_fix(wanted))


def _from_checkout() -> list[tuple[str, tuple[str, ...]]]:
    """requirements/<extra>.txt of the checkout this module runs from (uninstalled: no metadata)."""
    # lazy: start-up: the extras check runs before every command; only this branch needs it
    from pathlib import Path

    folder = Path(__file__).resolve().parent.parent / "requirements"
    found = []
    for path in sorted(folder.glob("*.txt")):
        extra = () if path.stem == "core" else (path.stem,)
        for line in path.read_text().splitlines():
            line = line.split("#", 1)[0].strip()
            if line:
                try:
                    found.append((str(Requirement(line).name), extra))
                except InvalidRequirement:
                    continue
    return found
