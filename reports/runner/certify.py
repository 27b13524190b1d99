"""``certify``: run a profile's conformance suites against a deployment and leave a bundle.

The suites run in a pytest child process (junit.xml and allure-results come from pytest
itself). With no deployment given, that process provisions the embedded local deployment
through fixtures/pytest_plugin.py and owns it: it is stopped at session end, on a failing
test, on Ctrl-C and on SIGTERM, which this process forwards; a child killed outright is
swept by the next start. The bundle is then built from what the tests recorded.

``--client-version`` gives the child another pulsar-client than this environment's: a
directory of its own, cached under the state dir (fixtures/client_versions.py), first on the
child's PYTHONPATH.

On an external deployment the child deletes what its tests created on the clusters when its session
ends (fixtures/deploy/cleanup.py); when it was interrupted or died before that clean-up finished,
this process runs the same clean-up from the ``created.jsonl`` the child appended to as it went,
before the bundle is built. ``--keep`` leaves it all.

The child is told what to run by one file, ``certify-request.json`` in the bundle, named by
``$PULSAR_CONFORMANCE_REQUEST`` (fixtures/request_file.py): no other variable carries a request value.
"""
from __future__ import annotations

import dataclasses
import os
import shlex
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pulsar_conformance.conformance as suites
from pulsar_conformance.errors import EXIT_INTERRUPTED
from pulsar_conformance.fixtures import request_file
from pulsar_conformance.fixtures.deploy.versions import DEFAULT_PULSAR_VERSION
from pulsar_conformance.invocation import me
from pulsar_conformance.output import emit, progress
from pulsar_conformance.protocols import protocol_options

from ..bundle.verdicts import exit_code
from . import timings
from .request import CertifyRequest, check_client

# identity, the bundle's assembly and the clean-up are imported where a run uses them: they bring the admin
# client (requests, the pulsar extra)

_check_client = check_client  # its old name here: tests/protocols/client_failover import it so

# An interrupted run owes the user a quick exit, not an orderly broker shutdown: after this the
# tests' process group is killed and their deployments swept (JVMs killed, data discarded).
INTERRUPT_GRACE_SECONDS = 15
# pytest's whole output, in the bundle (Sonobuoy's e2e.log): the terminal's copy scrolls away
E2E_LOG = "e2e.log"


def run_certify(request: CertifyRequest) -> int:
    """One run of the request that reports/runner/request.py checked; a series (--repeat, --matrix) is
    reports/runner/series.run_series, which runs certify_once per cell (reports/runner/cli.py chooses)."""
    if request.is_series:
        raise ValueError("a series request (--repeat or --matrix) runs through series.run_series, not run_certify")
    summary = certify_once(request)
    verdict = summary["verdict"]
    emit(request, {"verdict": verdict, "out": str(request.out), "summary": summary["counts"],
                   "seconds": summary["seconds"], "timings": summary.get("timings")},
         lambda: _text(summary, request.out))
    return exit_code(verdict, interrupted=bool(summary.get("interrupted")))


def certify_once(request: CertifyRequest) -> dict:
    """One certification run into ``request.out``: the tests in a child process, then the bundle."""
    from . import identity
    from .build import build_bundle

    started = time.time()
    # a profile may run less elsewhere than on the local backend (the smoke profile: Profile.on)
    request = dataclasses.replace(request, profile=request.profile.on(request.deployment.backend))
    out = request.out
    client = request.client
    out.mkdir(parents=True, exist_ok=True)
    progress(f"certify: profile {request.profile.name} ({request.profile.description}); bundle in {out}")
    identity.write_client_info(out, {**client.record(), "requested": request.client_version,
                                     "observed": "probe of the tests' environment before the run"})
    env = _child_env(request, client)
    command = _pytest_command(request.profile, out, request.select)
    child_started = time.time()
    outcome = _run_child(command, env, log=out / E2E_LOG)
    clean_up_after_tests(request, interrupted=outcome == EXIT_INTERRUPTED)
    timings.record_parent(out, before_tests_s=child_started - started, tests_process_s=time.time() - child_started)
    progress("certify: building the bundle...")
    built = time.time()
    summary = build_bundle(out, request, pytest_exit=outcome, seconds=built - started)
    # where the time went, at the end of the run (the figures are in summary.json's "timings")
    progress(timings.text(summary.get("timings"), total_s=time.time() - started, bundle_s=time.time() - built))
    return summary


def clean_up_after_tests(request: CertifyRequest, *, interrupted: bool) -> dict | None:
    """On an external deployment, the clean-up the tests' process did not finish (interrupted, killed,
    crashed), from the ``created.jsonl`` it left: the same function over the same records. A second
    Ctrl-C here ends the clean-up (what it did is in cleanup.json) but not the bundle."""
    from pulsar_conformance.fixtures.deploy import cleanup

    out = request.out
    if request.deployment.backend != "external" or not request.deployment.file:
        return None  # local and container clusters are thrown away whole
    if cleanup.finished(out) or not (out / cleanup.CREATED).exists():
        return None  # the tests cleaned up (or kept, with --keep), or created nothing
    why = "was interrupted" if interrupted else "ended before its clean-up finished"
    progress(f"certify: the tests' process {why}; deleting what it created on the clusters "
             f"({'kept: --keep' if request.keep else out / cleanup.CREATED})")
    try:
        return cleanup.clean_up_file(out, request.deployment.file, keep=request.keep,
                                     by=f"certify, after the tests' process {why}", say=progress)
    except KeyboardInterrupt:
        progress(f"certify: clean-up interrupted; what stays is in {out / cleanup.REPORT}")
        return None


def _text(summary: dict, out: Path) -> str:
    """The run's last lines: what it certified out of the catalog, why this verdict, where the report is,
    and the commands to read the bundle, spelled as the program that is running (invocation.me: after
    the README's set-up `.venv/bin/pulsar-conformance`, which a bare `pulsar-conformance` was not)."""
    # lazy: start-up: the verdict line's words, read once at the end of a run
    from ..view.report_view import scope, scope_line

    rows = [r for r in summary.get("requirements") or [] if isinstance(r, dict)]
    declared = summary.get("declared")
    chips = scope(rows, declared)["chips"]
    counts = ", ".join(f"{n} {k}" + (" (SHOULD/MAY not met; the run does not fail on them)" if k == "deviation" else "")
                       for k, n in chips.items())
    program = me()
    archive_name = (summary.get("bundle") or {}).get("archive")
    lines = [scope_line(summary["verdict"], rows, declared, summary.get("deployment")),
             *(f"  - {reason}" for reason in summary["reasons"]),
             f"requirements: {counts}",
             f"report: {out / 'report.html'} ({summary['seconds']:.0f} s)",
             f"next: {program} results {out}    (the verdict, what was certified, each failure with its evidence)"]
    if archive_name:
        lines.append(f"      {program} verify {out.parent / archive_name}    (the archive against its SHA-256 manifest)")
    return "\n".join(lines)


def run_request(request: CertifyRequest, client=None) -> request_file.RunRequest:
    """What the tests' process of ``request`` is asked (fixtures/request_file.py): the values it reads,
    each as checked here; ``client``: the prepared pulsar-client (fixtures/client_versions.ClientEnv)."""
    from pulsar_conformance.fixtures.deploy import cleanup

    deployment = request.deployment
    pulsar_version = request.pulsar_version
    if not pulsar_version and request.profile.same_release and deployment.backend == "local":
        # every deployment on the default release, the PIP-454 scenario's too (its own default is
        # 5.0.0-M1: a second release to download and a Java 21 to find, for one short scenario)
        pulsar_version = DEFAULT_PULSAR_VERSION
    return request_file.RunRequest(
        out=str(request.out), profile=request.profile.name, seed=request.seed,
        # the run's id (fault commands' {run_id}, each record of what the run created: fixtures/deploy/cleanup.py)
        run_id=cleanup.run_id_of(request.run_id),
        backend=deployment.backend if deployment.file or deployment.backend != "external" else "local",
        external=deployment.file, topology=deployment.topology_text, pulsar_version=pulsar_version,
        client_version=client.version if client is not None else request.client_version,
        client_dir=client.path if client is not None else None,
        options=dict(request.options), keep=request.keep, allow_irreversible=request.allow_irreversible,
        spark_master=request.spark_master, spark_driver_host=request.spark_driver_host)


def _request_variables() -> set[str]:
    """Every variable that used to carry a request value to the tests' process: none of them is inherited
    from this process's environment (the request decides, not a value left in the shell)."""
    f = request_file
    return {f.ENV, f.OUT_ENV, f.PROFILE_ENV, f.SEED_ENV, f.RUN_ID_ENV, f.KEEP_ENV, f.EXTERNAL_ENV, f.BACKEND_ENV,
            f.TOPOLOGY_ENV, f.PULSAR_VERSION_ENV, f.IRREVERSIBLE_ENV, f.CLIENT_VERSION_ENV, f.CLIENT_DIR_ENV,
            *(o.env for o in protocol_options())}


def _child_env(request: CertifyRequest, client=None) -> dict:
    """The tests' process's environment: this one's, without any variable that carried a request value, and
    ``$PULSAR_CONFORMANCE_REQUEST`` naming the request file written into the bundle (``client``: the
    pulsar-client it imports, first on its PYTHONPATH)."""
    env = {name: value for name, value in os.environ.items() if name not in _request_variables()}
    if client is not None:
        env = {name: value for name, value in client.child_env(env).items() if name not in _request_variables()}
    run = run_request(request, client)
    Path(request.out).mkdir(parents=True, exist_ok=True)
    env[request_file.ENV] = str(request_file.write(request.out, run))
    return env


def _pytest_command(profile, out: Path, select: str | None = None) -> list[str]:
    suite_dir = Path(suites.__file__).parent
    command = [sys.executable, "-m", "pytest", str(suite_dir), "-p", "allure_pytest", "-v", "--color=no",
               f"--rootdir={suite_dir.parent}", f"--junitxml={out / 'junit.xml'}",
               f"--alluredir={out / 'allure-results'}", "-o", "junit_family=xunit2",
               "-p", "no:cacheprovider", "-p", "pulsar_conformance.reports.runner.identity",
               "-p", "pulsar_conformance.reports.runner.phases",
               # SIGALRM reaches the main thread: client calls run under deadlines in threads
               # (conformance/harness/deadline.py), so the main thread is always in Python
               f"--timeout={profile.scenario_timeout_s}", "--timeout-method=signal"]
    if profile.markers:
        command += ["-m", profile.markers]
    if select:
        command += ["-k", select]
    return command


def _run_child(command: list[str], env: dict, log: Path | None = None) -> int:
    """Run pytest with its report on our stderr (stdout stays for --json) and wait for its teardown.

    With ``log``, the child writes into that file and a thread copies what it wrote to our stderr as
    it comes: a file, not a pipe, so a process the tests leave behind holding the output open (a
    JVM) cannot keep this process waiting, and the log holds everything whatever happens to us.

    The child runs in a process group of its own, so Ctrl-C and SIGTERM reach only this process,
    which passes it on as SIGINT (pytest's own interrupt path) and waits ``INTERRUPT_GRACE_SECONDS``. A child whose
    main thread is stuck in a native client call never sees that signal (seen: Client.close()
    blocking for 12 minutes), so its whole group (pytest, the Spark JVM it started) is then
    killed, and the deployments it owned are swept like those of any dead owner.
    """
    progress(f"certify: {shlex.join(command)}")
    if log is None:
        return _wait_child(subprocess.Popen(command, env=env, stdout=sys.stderr, stderr=sys.stderr,
                                            start_new_session=True))
    with open(log, "ab") as sink:
        sink.write(f"certify: {shlex.join(command)}\n".encode())
        sink.flush()
        follower = _Follower(log, sink.tell())
        try:
            child = subprocess.Popen(command, env=env, stdout=sink, stderr=sink, start_new_session=True)
        except BaseException:
            follower.stop()
            raise
    try:
        return _wait_child(child)
    finally:
        follower.stop()


class _Follower:
    """Copies what is appended to ``path`` (from ``offset`` on) to our stderr until ``stop``, then the rest."""

    POLL_SECONDS = 0.1

    def __init__(self, path: Path, offset: int):
        self.path, self.offset = path, offset
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._run, name="e2e-log", daemon=True)
        self.thread.start()

    def _copy(self, stream) -> None:
        stream.seek(self.offset)
        data = stream.read()
        if data:
            self.offset += len(data)
            target = getattr(sys.stderr, "buffer", None)
            if target is not None:
                sys.stderr.flush()
                target.write(data)
                target.flush()
            else:
                sys.stderr.write(data.decode(errors="replace"))
                sys.stderr.flush()

    def _run(self) -> None:
        with open(self.path, "rb") as stream:
            while not self.done.wait(self.POLL_SECONDS):
                self._copy(stream)

    def stop(self) -> None:
        self.done.set()
        self.thread.join(timeout=5)
        if self.thread.is_alive():  # stuck writing to a stderr nobody reads: the log has it all anyway
            return
        with open(self.path, "rb") as stream:  # what came after the thread's last look
            self._copy(stream)


def _wait_child(child: subprocess.Popen) -> int:
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
            return EXIT_INTERRUPTED
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
