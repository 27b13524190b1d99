"""The suite's Java client program (Harness.java, beside this module) and how every mode of it starts: on
``pulsar-client-original`` of a chosen release (java_release.py resolves it from Maven Central), with the
JDK's single-file source launcher. Shared machinery: PIP-121's failover client, the migrated consumer
(java_consumer.py) and PIP-188's Java traffic (java_traffic.py) all run it."""
from __future__ import annotations

from pathlib import Path

from pulsar_conformance.fixtures.deploy import jvm
from pulsar_conformance.fixtures.deploy.java import choose_java
from pulsar_conformance.fixtures.deploy.versions import parse_version

from .java_release import resolve

HARNESS = Path(__file__).resolve().parent / "Harness.java"


def harness_command(version: str, run_dir: Path, args: dict, jvm_options: tuple[str, ...] = ()) -> list[str]:
    """The command that runs Harness.java with pulsar-client-original ``version`` (resolved from Maven,
    cached) on a Java that release runs on, its classpath in an argfile in ``run_dir`` (which exists),
    and ``args`` as key=value arguments: every mode of the harness starts this way."""
    classpath = resolve(version)
    java = choose_java(parse_version(version))
    argfile = jvm.classpath_argfile(run_dir, classpath.text)
    return [java.path, "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", *jvm_options, f"@{argfile}",
            str(HARNESS), *(f"{k}={v}" for k, v in args.items())]
