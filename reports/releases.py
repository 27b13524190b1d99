"""Which Pulsar releases ``certify`` accepts, checked before anything starts.

fixtures/deploy/versions.py says what a release number looks like and refuses the lines older
than 3.0; this adds the lines the suite knows to exist, so a made-up release (9.9.9) is refused
at once instead of after a Maven resolution, and names the releases known to run here
(the project's reference notes on Pulsar releases, checked 2026-11-25). A release of a known line that
Maven Central does not serve is refused by the resolution that follows (fixtures/deploy/maven.py).
"""
from __future__ import annotations

from pulsar_conformance.errors import UsageError

# (major, minor) of every Pulsar release line published up to late 2026
KNOWN_LINES = ((3, 0), (3, 1), (3, 2), (3, 3), (4, 0), (4, 1), (4, 2), (5, 0))
# full classpath resolved and a standalone started healthy here (pulsar-facts.md)
RUN_HERE = ("3.0.0", "3.0.2", "3.0.7", "3.1.0", "3.2.0", "3.2.2", "3.2.3", "3.3.2", "4.0.0", "4.0.1", "4.0.7",
            "4.2.4", "5.0.0-M1")


def lines_text() -> str:
    return ", ".join(f"{major}.{minor}" for major, minor in KNOWN_LINES)


def check_release(text: str, option: str = "--pulsar-version"):
    """The parsed release, or a UsageError naming the supported lines and the releases that run here."""
    from pulsar_conformance.fixtures.deploy.versions import DEFAULT_PULSAR_VERSION, parse_version

    fix = f"pass {option} with a release of {lines_text()}; known to run here: {', '.join(RUN_HERE)}"
    try:
        version = parse_version(text)
    except UsageError as error:
        raise UsageError(f"{option} {text}: {error.problem}", fix) from None
    if (version.major, version.minor) not in KNOWN_LINES:
        raise UsageError(f"{option} {text}: no Pulsar {version.major}.{version.minor} line is known to this suite "
                         f"(supported: {lines_text()})", fix + f" (default {DEFAULT_PULSAR_VERSION})")
    return version
