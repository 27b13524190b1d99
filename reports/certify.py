"""``certify``: run a profile's conformance suites against a deployment and leave a bundle.

The suites run in a pytest child process (junit.xml and allure-results come from pytest
itself). With no deployment given, that process provisions the embedded local deployment
through fixtures/pytest_plugin.py and owns it: it is stopped at session end, on a failing
test, on Ctrl-C and on SIGTERM, which this process forwards; a child killed outright is
swept by the next start. The bundle is then built from what the tests recorded.

``--client-version`` gives the child another pulsar-client than this environment's: a
directory of its own, cached under the state dir (fixtures/client_versions.py), first on the
child's PYTHONPATH.
"""
from __future__ import annotations

import os
import shlex
import signal
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

from packaging.version import Version

from pulsar_conformance.errors import EXIT_FAIL, EXIT_PASS, EXIT_UNKNOWN, UsageError
from pulsar_conformance.output import emit, progress

from .profiles import get_profile

# An interrupted run owes the user a quick exit, not an orderly broker shutdown: after this the
# tests' process group is killed and their deployments swept (JVMs killed, data discarded).
INTERRUPT_GRACE_SECONDS = 15


def run_certify(args) -> int:
    profile = get_profile(args.profile)
    _check_exclusions(profile, getattr(args, "exclude", None) or ())
    deployment = _deployment_option(args.deployment, profile)
    for mode in _migration_tls_modes(args):
        _check_migration_tls(profile, mode, deployment)
    run_id = f"certify-{datetime.now(UTC):%Y%m%d-%H%M%S}-{profile.name}"
    out = Path(args.out or Path("reports") / run_id).resolve()
    if out.exists() and any(out.iterdir()):
        raise UsageError(f"output directory {out} is not empty", "pass --out with a new or empty directory")
    if getattr(args, "repeat", 1) > 1 or getattr(args, "matrix", None):
        from .series import run_series

        return run_series(args, profile, deployment, out, run_id)
    summary = certify_once(args, profile, deployment, out, run_id)
    verdict = summary["verdict"]
    emit(args, {"verdict": verdict, "out": str(out), "summary": summary["counts"], "seconds": summary["seconds"]},
         lambda: _text(summary, out))
    return exit_code(verdict)


def exit_code(verdict: str) -> int:
    return {"pass": EXIT_PASS, "fail": EXIT_FAIL}.get(verdict, EXIT_UNKNOWN)


def certify_once(args, profile, deployment: dict, out: Path, run_id: str) -> dict:
    """One certification run into ``out``: the tests in a child process, then the bundle."""
    started = time.time()
    client = _client_option(args.client_version)
    _check_client(profile, client)
    _check_java_client(profile, getattr(args, "java_client_version", None))
    out.mkdir(parents=True, exist_ok=True)
    progress(f"certify: profile {profile.name} ({profile.description}); bundle in {out}")
    from . import identity

    identity.write_client_info(out, {**client.record(), "requested": args.client_version,
                                     "observed": "probe of the tests' environment before the run"})
    env = client.child_env(_child_env(args, profile, deployment, out))
    command = _pytest_command(profile, out, getattr(args, "select", None))
    outcome = _run_child(command, env)
    progress("certify: building the bundle...")
    from .bundle import build_bundle

    return build_bundle(out, run_id=run_id, profile=profile, args=args, deployment=deployment,
                        pytest_exit=outcome, seconds=time.time() - started)


def _text(summary: dict, out: Path) -> str:
    counts = ", ".join(f"{n} {k}" for k, n in summary["counts"]["requirements"].items())
    return (f"{summary['verdict'].upper()}: {'; '.join(summary['reasons'])}\n"
            f"requirements: {counts}\n"
            f"report: {out / 'report.html'} ({summary['seconds']:.0f} s)")


def _check_exclusions(profile, excluded) -> None:
    """``--exclude`` may only narrow what the profile certifies: anything else is a typo."""
    from .verdicts import load_requirements

    declared = profile.declared(load_requirements())
    unknown = [rid for rid in excluded if rid not in declared]
    if unknown:
        raise UsageError(f"--exclude {', '.join(unknown)}: not a requirement the {profile.name} profile certifies",
                         f"choose among: {', '.join(declared) or '(none: this profile certifies nothing on a deployment)'}")


def _deployment_option(value: str | None, profile=None) -> dict:
    """``local`` (default), ``containers``, or an external YAML FILE, checked before anything starts
    (reachable, and describing what the profile's protocols need of it)."""
    if value in (None, "local"):
        return {"backend": "local", "file": None}
    if value == "containers":
        from pulsar_conformance.fixtures.deploy.containers import docker_available

        ok, why = docker_available(install=True)
        if not ok:
            raise UsageError(f"--deployment containers needs a Docker engine: {why}",
                             "start Docker, or use --deployment local (the default) or an external FILE")
        return {"backend": "containers", "file": None}
    path = Path(value)
    if not path.is_file():
        raise UsageError(f"deployment file {value} does not exist",
                         "pass local, containers, or the path of an external deployment YAML (docs/deployments.md)")
    from pulsar_conformance.fixtures.deploy.external import load_external

    external = load_external(path, check=True)  # malformed or unreachable: exit 2 now, not mid-run
    if profile is not None:
        from pulsar_conformance.protocols import PROTOCOLS

        for protocol in PROTOCOLS:
            if protocol.area in profile.areas:
                protocol.check_external(external)
    return {"backend": "external", "file": str(path.resolve())}


def _client_option(wanted: str | None):
    """The pulsar-client the tests will import: installed (and cached) first if it is another release."""
    from pulsar_conformance.fixtures.client_versions import prepare

    client = prepare(wanted, log=progress)
    if client.version:
        where = (f"{'installed' if client.pip_ran else 'cached'} in {client.path} ({client.seconds:.1f} s)"
                 if client.path else "of this environment")
        progress(f"certify: the tests import pulsar-client {client.version} "
                 f"(C++ {client.cpp_version or 'version not found'}) {where}")
    else:
        progress(f"certify: no pulsar-client importable here ({client.error}); tests that need one will break")
    return client


def _check_client(profile, client) -> None:
    """A profile whose scenarios need a client feature refuses an older client before anything starts."""
    needed = profile.min_client
    if not needed or not client.version:
        return
    if Version(client.version) < Version(needed):
        raise UsageError(f"pulsar-client {client.version} cannot run the {profile.name} profile: it needs {needed} or "
                         f"later ({profile.min_client_why})",
                         f"pass --client-version {needed} or later, or certify another profile with {client.version}")


def _check_java_client(profile, wanted: str | None) -> None:
    """A Java client release Maven cannot resolve is refused before any broker or JVM starts (exit 2)."""
    if wanted and "client-failover" in profile.areas:
        from pulsar_conformance.conformance.protocols.client_failover.java_client import resolve

        resolve(wanted)


def _migration_tls_modes(args) -> list[str]:
    """The TLS modes a run or matrix will use (checked once, before any folder or cluster exists)."""
    modes = [args.migration_tls] if getattr(args, "migration_tls", None) else []
    from .series import parse_matrix

    matrix = parse_matrix(getattr(args, "matrix", None))
    return modes + (matrix[1] if matrix and matrix[0] == "migration-tls" else [])


def _check_migration_tls(profile, wanted: str | None, deployment: dict) -> None:
    """A TLS mode is a configuration of the local clusters the PIP-188 scenarios start (exit 2 otherwise)."""
    if not wanted:
        return
    from pulsar_conformance.conformance.protocols.cluster_migration import tls_modes

    mode = tls_modes.check(wanted)
    if "cluster-migration" not in profile.areas:
        raise UsageError(f"--migration-tls applies to the cluster-migration profile, not {profile.name}",
                         "leave --migration-tls out, or pass --profile cluster-migration")
    if mode.brokers_tls and deployment["backend"] != "local":
        raise UsageError(f"--migration-tls {mode.name} starts TLS brokers of the local backend; "
                         f"this run's deployment is {deployment['backend']}",
                         "for an external deployment, describe its TLS URLs and CA in the deployment file "
                         "(docs/deployments.md) and leave --migration-tls out")


def _child_env(args, profile, deployment: dict, out: Path) -> dict:
    env = dict(os.environ)
    env["PULSAR_CONFORMANCE_CERTIFY_OUT"] = str(out)
    env["PULSAR_CONFORMANCE_CERTIFY_PROFILE"] = profile.name
    env["PULSAR_CONFORMANCE_SEED"] = str(args.seed)
    env.pop("PULSAR_CONFORMANCE_EXTERNAL", None)
    env["PULSAR_CONFORMANCE_BACKEND"] = "containers" if deployment["backend"] == "containers" else "local"
    if deployment["file"]:
        env["PULSAR_CONFORMANCE_EXTERNAL"] = deployment["file"]
    if args.pulsar_version:
        env["PULSAR_CONFORMANCE_PULSAR_VERSION"] = args.pulsar_version
    if getattr(args, "java_client_version", None):
        env["PULSAR_CONFORMANCE_JAVA_CLIENT_VERSION"] = args.java_client_version
    if getattr(args, "migration_tls", None):
        env["PULSAR_CONFORMANCE_MIGRATION_TLS"] = args.migration_tls
    return env


def _pytest_command(profile, out: Path, select: str | None = None) -> list[str]:
    import pulsar_conformance.conformance as suites

    suite_dir = Path(suites.__file__).parent
    command = [sys.executable, "-m", "pytest", str(suite_dir), "-p", "allure_pytest", "-v", "--color=no",
               f"--rootdir={suite_dir.parent}", f"--junitxml={out / 'junit.xml'}",
               f"--alluredir={out / 'allure-results'}", "-o", "junit_family=xunit2",
               "-p", "no:cacheprovider", "-p", "pulsar_conformance.reports.identity",
               "-p", "pulsar_conformance.reports.phases",
               # SIGALRM reaches the main thread: client calls run under deadlines in threads
               # (conformance/harness/deadline.py), so the main thread is always in Python
               f"--timeout={profile.scenario_timeout_s}", "--timeout-method=signal"]
    if profile.markers:
        command += ["-m", profile.markers]
    if select:
        command += ["-k", select]
    return command


def _run_child(command: list[str], env: dict) -> int:
    """Run pytest with its report on our stderr (stdout stays for --json) and wait for its teardown.

    The child runs in a process group of its own, so Ctrl-C and SIGTERM reach only this process,
    which passes it on as SIGINT (pytest's own interrupt path) and waits ``INTERRUPT_GRACE_SECONDS``. A child whose
    main thread is stuck in a native client call never sees that signal (seen: Client.close()
    blocking for 12 minutes), so its whole group (pytest, the Spark JVM it started) is then
    killed, and the deployments it owned are swept like those of any dead owner.
    """
    progress(f"certify: {shlex.join(command)}")
    child = subprocess.Popen(command, env=env, stdout=sys.stderr, stderr=sys.stderr, start_new_session=True)
    interrupted = []

    def interrupt(signum, _frame):
        interrupted.append(signum)
        raise KeyboardInterrupt

    previous = {sig: signal.signal(sig, interrupt) for sig in (signal.SIGTERM, signal.SIGINT)}
    try:
        try:
            return child.wait()
        except KeyboardInterrupt:
            progress(f"certify: interrupted; giving the tests {INTERRUPT_GRACE_SECONDS} s to stop the deployment...")
            for sig in previous:  # a second Ctrl-C must not cut the cleanup short
                signal.signal(sig, signal.SIG_IGN)
            _stop_child(child)
            return 130
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def _stop_child(child: subprocess.Popen) -> None:
    from pulsar_conformance.fixtures.deploy import processes, state

    child.send_signal(signal.SIGINT)  # pytest's own KeyboardInterrupt path tears the clusters down
    try:
        child.wait(timeout=INTERRUPT_GRACE_SECONDS)
    except subprocess.TimeoutExpired:
        progress(f"certify: the tests did not stop within {INTERRUPT_GRACE_SECONDS} s (a blocked native call?); "
                 "killing them")
    processes.kill_group(child.pid)
    child.wait()
    swept = state.sweep_stale(state.state_dir())
    from pulsar_conformance.fixtures.deploy.containers import sweep_orphans

    sweep_orphans(state.state_dir())  # the containers and the engine of a containers run
    if swept:
        progress(f"certify: stopped what the tests left running: {', '.join(swept)}")
