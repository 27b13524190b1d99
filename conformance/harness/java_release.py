"""Which Java client release a scenario runs, and its jars: ``pulsar-client-original`` of that
release and a log backend, resolved from Maven Central with the package's pom (cached per release).

The release is certify's ``--java-client-version`` (fixtures/request_file.option; ``$PULSAR_CONFORMANCE_JAVA_CLIENT_VERSION`` without certify) or
the deployment's Pulsar version."""
from __future__ import annotations

import os
import re
import subprocess
import time
from pathlib import Path

from pulsar_conformance.errors import UsageError
from pulsar_conformance.fixtures import request_file
from pulsar_conformance.fixtures.deploy import maven
from pulsar_conformance.fixtures.deploy.versions import DEFAULT_PULSAR_VERSION, parse_version

POM = Path(__file__).resolve().parent / "java-client-pom.xml"
VERSION_ENV = "PULSAR_CONFORMANCE_JAVA_CLIENT_VERSION"
# the release's root pom (imported for its dependencyManagement) is the first thing Maven misses
_MISSING = re.compile(r"pulsar-client-original:jar:\S+ (was not found|.*Could not find)|Could not find artifact "
                      r"org\.apache\.pulsar:pulsar(-client-original|:pom)|org\.apache\.pulsar:pulsar:pom:\S+ was not found")

def wanted_version(deployment=None) -> str:
    """The Java client release to run: the option, else the deployment's own Pulsar release."""
    explicit = (request_file.option("java_client_version", VERSION_ENV) or "").strip()
    if explicit:
        return explicit
    return (deployment.release() if deployment is not None else None) or DEFAULT_PULSAR_VERSION


def resolve(text: str) -> maven.Classpath:
    """pulsar-client-original ``text`` and a log backend from Maven Central (cached per release);
    a release Maven cannot resolve is a ``UsageError`` with the fix."""
    try:
        version = parse_version(text)
    except UsageError as error:
        raise UsageError(f"Java client version: {error.problem}",
                         f"pass --java-client-version like {DEFAULT_PULSAR_VERSION} (3.0 or later), or drop it to run "
                         "the deployment's Pulsar release") from None
    properties = maven.release_properties(version, "pulsar.client.version")
    cached = maven.cache_file("java-client", version, POM, properties)
    found = maven.cached_classpath(cached, version)
    if found is not None:
        return found
    cached.parent.mkdir(parents=True, exist_ok=True)
    partial = cached.with_suffix(".partial")
    command = ["mvn", "-B", "-q", "-f", str(POM), "--global-settings", str(maven.POM.parent / "settings.xml"),
               *properties, "-Dmdep.includeScope=runtime", f"-Dmdep.outputFile={partial}", "dependency:build-classpath"]
    started = time.monotonic()
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=900, stdin=subprocess.DEVNULL)
    except FileNotFoundError:
        raise UsageError("Maven (mvn) is not on PATH; the Java client's jars are resolved with it",
                         "install Maven (pulsar-conformance setup --yes local)") from None
    except subprocess.TimeoutExpired:  # run() has killed Maven's JVM
        raise UsageError(f"Maven did not resolve pulsar-client-original {version} in 15 minutes",
                         "check that Maven Central is reachable (MAVEN_OPTS for a proxy)") from None
    if done.returncode != 0:
        output = done.stdout + done.stderr
        if _MISSING.search(output):
            raise UsageError(f"Java client {version} (org.apache.pulsar:pulsar-client-original) is not on Maven Central",
                             "pass a released version to --java-client-version (list: https://repo.maven.apache.org/"
                             "maven2/org/apache/pulsar/pulsar-client-original/), or drop it to run the deployment's "
                             "Pulsar release")
        first = next((line for line in output.splitlines() if "[ERROR]" in line), "(no error line)")
        raise UsageError(f"Maven could not resolve Java client {version} (exit {done.returncode}): {first[:300]}",
                         "check that Maven Central is reachable (MAVEN_OPTS for a proxy), or pick another "
                         "--java-client-version")
    entries = [e for e in partial.read_text().strip().split(os.pathsep) if e]
    maven.check_jackson(entries, f"Java client {version}")
    partial.replace(cached)
    return maven.Classpath(str(version), entries, download_seconds=time.monotonic() - started)
