"""One CLI invocation on bad input, run the way a user would and judged on everything it leaves.

Each case runs ``pulsar_conformance.cli.main(argv)`` in a forked child of the test process: the
imports are already paid for (a case costs milliseconds, a fresh interpreter about a second), and
the child is disposable, so it can be watched and killed. In the child:

- the working directory, the state dir, the cache dir and the temp dir are the case's own folder,
  whose listing is compared before and after (nothing may be created, changed or left as ``*.tmp``);
- every descendant carries a marker in its environment, so a process left behind is found in
  /proc whatever it did to its process group, and killed (by pid) after being reported;
- starting a process other than a version probe (``java -version``), or connecting anywhere but
  loopback, raises :class:`WorkStarted` at once: on bad input nothing may start real work
  (a broker, a pytest run, Spark, Maven, pip), so the attempt is the failure, and stopping it
  there keeps a broken refusal from costing minutes or starting JVMs;
- a watchdog kills the child's process group after ``timeout`` seconds: a hang (``9**9**9``
  evaluated, an alias bomb expanded) is reported as work started on bad input, and so is a child
  growing 1.5 GiB past the test process (``'a' * 10**10``): it is killed before it hurts the machine.

:func:`judge` then lists every way the outcome falls short of a refusal: a traceback, an exit code
other than the bad-input one, an error without a fix, a leftover file or process, a canary secret
in the output.
"""
from __future__ import annotations

import json
import os
import signal
import stat
import sys
import time
import traceback
import uuid
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from pulsar_conformance import errors

# the bad-input exit code, read from the module (64, sysexits' EX_USAGE)
EXIT_BAD_INPUT = getattr(errors, "EXIT_BAD_INPUT", 2)
MARKER_ENV = "PULSAR_CONFORMANCE_FUZZ_CASE"
DEFAULT_TIMEOUT = 20.0
# cases run per surface this session (tests/fuzz/conftest.py prints them)
COUNTS: Counter[str] = Counter()
SECONDS: Counter[str] = Counter()


class WorkStarted(BaseException):  # noqa: N818 - not an Exception: the CLI's `except Exception` must not eat it
    """The command tried to start a process or reach the network while its input was bad."""


@dataclass
class Outcome:
    argv: list[str]
    code: int | None
    stdout: str
    stderr: str
    seconds: float
    timed_out: bool = False
    memory_bomb: bool = False
    work: list[str] = field(default_factory=list)
    leftovers: list[str] = field(default_factory=list)
    processes: list[str] = field(default_factory=list)

    def show(self) -> str:
        return (f"argv={self.argv!r}\nexit={self.code} after {self.seconds:.2f} s"
                f"{' (TIMED OUT: killed)' if self.timed_out else ''}{' (MEMORY: killed)' if self.memory_bomb else ''}\n"
                f"work attempted={self.work}\nleftovers={self.leftovers}\nprocesses={self.processes}\n"
                f"--- stdout ---\n{self.stdout[:3000]}\n--- stderr ---\n{self.stderr[:3000]}")


# ----------------------------------------------------------------------------------------- the child


def _is_probe(args) -> bool:
    """A version probe (the JDK check runs ``java -XshowSettings:properties -version``): allowed."""
    if isinstance(args, (str, bytes)):
        args = str(args).split()
    words = [str(a) for a in args]
    return any(w in ("-version", "--version", "-XshowSettings:properties") for w in words[1:])


def _loopback(address) -> bool:
    if not isinstance(address, tuple):  # AF_UNIX: a local socket, never "the network"
        return True
    host = str(address[0])
    return host in ("localhost", "::1", "0.0.0.0", "::") or host.startswith("127.") or host.startswith("::ffff:127.")


def _install_guards(work_log: Path) -> None:
    import socket
    import subprocess
    import threading

    def record(what: str) -> None:
        with open(work_log, "a") as handle:
            handle.write(what.replace("\n", " ") + "\n")

    original_execute = subprocess.Popen._execute_child
    probing = threading.local()  # inside subprocess's start of an allowed probe

    def execute_child(self, args, *rest, **kwargs):
        if not _is_probe(args):
            record(f"process: {args!r}"[:400])
            raise WorkStarted(f"started a process: {args!r}"[:400])
        probing.on = True
        try:
            return original_execute(self, args, *rest, **kwargs)
        finally:
            probing.on = False

    subprocess.Popen._execute_child = execute_child

    def refuse(name, original):
        def refused(*args, **kwargs):
            if getattr(probing, "on", False):
                # subprocess starting an allowed probe: from Python 3.13 it does so with os.posix_spawn
                return original(*args, **kwargs)
            record(f"{name}: {args!r}"[:400])
            raise WorkStarted(f"{name}{args!r}"[:400])
        return refused

    for name in ("system", "posix_spawn", "posix_spawnp", "fork", "forkpty", "execv", "execve", "execvp", "execvpe"):
        if hasattr(os, name):
            setattr(os, name, refuse(f"os.{name}", getattr(os, name)))

    original_connect, original_connect_ex = socket.socket.connect, socket.socket.connect_ex

    def connect(self, address):
        if not _loopback(address):
            record(f"network: {address!r}")
            raise WorkStarted(f"connected to {address!r}")
        return original_connect(self, address)

    def connect_ex(self, address):
        if not _loopback(address):
            record(f"network: {address!r}")
            raise WorkStarted(f"connected to {address!r}")
        return original_connect_ex(self, address)

    socket.socket.connect, socket.socket.connect_ex = connect, connect_ex


MEMORY_HEADROOM = 1536 << 20  # what a case may grow above the test process: a bomb fails the case, not the machine
MAX_FILE_BYTES = 256 << 20  # nothing a refusal writes comes near this; a runaway writer stops here


def _limit_resources() -> None:
    """File size and core dumps only: an address-space limit would be inherited by the JDK probe
    (``java -version`` reserves gigabytes) and turn every "find the JDK" into a refusal; memory
    is watched from the parent instead (:func:`_rss`)."""
    import resource

    resource.setrlimit(resource.RLIMIT_FSIZE, (MAX_FILE_BYTES,) * 2)
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def _rss(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/statm") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


def _child(argv: list[str], workdir: Path, env: dict[str, str | None], results: Path, marker: str) -> None:
    import logging
    import tempfile

    os.setpgid(0, 0)
    _limit_resources()
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGALRM, signal.SIGCHLD):
        signal.signal(sig, signal.SIG_DFL)
    os.chdir(workdir)
    for name, value in env.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value
    os.environ[MARKER_ENV] = marker
    tempfile.tempdir = os.environ["TMPDIR"]
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    for fd, name in ((1, "stdout"), (2, "stderr")):
        target = os.open(results / name, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.dup2(target, fd)
        os.close(target)
    sys.stdin = open(0, closefd=False)  # noqa: SIM115
    sys.stdout = open(1, "w", closefd=False, encoding="utf-8", errors="backslashreplace")  # noqa: SIM115
    sys.stderr = open(2, "w", closefd=False, encoding="utf-8", errors="backslashreplace")  # noqa: SIM115
    sys.__stdout__, sys.__stderr__ = sys.stdout, sys.stderr
    root = logging.getLogger()
    root.handlers[:] = [logging.StreamHandler(sys.stderr)]
    _install_guards(results / "work.log")
    code: int | None = None
    try:
        from pulsar_conformance import cli

        code = cli.main(list(argv))
    except SystemExit as exit_:
        code = exit_.code if isinstance(exit_.code, int) else (0 if exit_.code is None else 1)
    except WorkStarted as work:
        sys.stderr.write(f"\n[fuzz sandbox] work started: {work}\n")
    except BaseException:  # noqa: BLE001 - anything escaping main() is what the user would see
        traceback.print_exc()
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except Exception:  # noqa: BLE001
                pass
    (results / "result.json").write_text(json.dumps({"code": code}))


# ------------------------------------------------------------------------------------------- the parent


def _listing(root: Path) -> dict[str, tuple]:
    """Every path under ``root``: its kind, and a file's size and modification time (a folder's
    mtime moves when a probe file comes and goes, which leaves nothing behind)."""
    seen = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            path = Path(dirpath) / name
            try:
                info = path.lstat()
            except OSError:
                continue
            rel = str(path.relative_to(root))
            if stat.S_ISDIR(info.st_mode):
                seen[rel] = ("dir",)
            else:
                seen[rel] = (stat.S_IFMT(info.st_mode), info.st_size, info.st_mtime_ns)
    return seen


def _marked_processes(marker: str, in_command: tuple[str, ...] = ()) -> list[tuple[int, str]]:
    """Live processes whose environment carries the case's marker, or whose command line holds one of
    ``in_command`` (unique words a case put there, for a process that cleared its environment)."""
    found = []
    needle = f"{MARKER_ENV}={marker}".encode()
    words = [w.encode() for w in in_command]
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            raw = None
            if words:  # a case that names words: its command line first (a process may have cleared its environment)
                with open(f"/proc/{entry}/cmdline", "rb") as handle:
                    raw = handle.read()
            if raw is None or not any(w in raw for w in words):
                with open(f"/proc/{entry}/environ", "rb") as handle:
                    if needle not in handle.read():
                        continue
            if raw is None:
                with open(f"/proc/{entry}/cmdline", "rb") as handle:
                    raw = handle.read()
            with open(f"/proc/{entry}/stat") as handle:
                if handle.read().rpartition(")")[2].split()[0] == "Z":
                    continue  # a zombie runs nothing: it waits for its parent to read its status
        except (OSError, IndexError):
            continue
        found.append((int(entry), raw.replace(b"\0", b" ").decode(errors="replace").strip()))
    return found


def _kill_marked(marker: str, in_command: tuple[str, ...] = ()) -> list[str]:
    """What the case left running: reported, then killed one by one by pid (all started by the case)."""
    left = []
    for pid, command in _marked_processes(marker, in_command):
        if pid == os.getpid():
            continue
        left.append(f"{pid}: {command[:200]}")
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    return left


def make_env(workdir: Path, extra: dict[str, str | None] | None = None) -> dict[str, str | None]:
    """The case's own state, cache and temp dirs (inside ``workdir``, so what they gain is seen)."""
    (workdir / "tmp").mkdir(exist_ok=True)
    base: dict[str, str | None] = {
        "PULSAR_CONFORMANCE_STATE_DIR": str(workdir / "state"),
        "PULSAR_CONFORMANCE_CACHE": str(workdir / "cache"),
        "TMPDIR": str(workdir / "tmp"),
        "PULSAR_CONFORMANCE_JAVA": None,
        "PULSAR_CONFORMANCE_EXTERNAL": None,
        "PULSAR_CONFORMANCE_PULSAR_VERSION": None,
        "PULSAR_CONFORMANCE_CLIENT_VERSION": None,
        "PULSAR_CONFORMANCE_JAVA_CLIENT_VERSION": None,
        "PULSAR_CONFORMANCE_IMAGE": None,
    }
    return {**base, **(extra or {})}


def run_cli(argv: list[str], workdir: Path, *, surface: str, env: dict[str, str | None] | None = None,
            timeout: float = DEFAULT_TIMEOUT) -> Outcome:
    """``pulsar-conformance ARGV`` in a forked, guarded child with ``workdir`` as its cwd."""
    workdir = Path(workdir)
    results = workdir.parent / f".{workdir.name}.results"
    results.mkdir()
    full_env = make_env(workdir, env)
    before = _listing(workdir)
    marker = uuid.uuid4().hex
    sys.stdout.flush()
    sys.stderr.flush()
    started = time.monotonic()
    pid = os.fork()
    if pid == 0:  # the child: never returns into pytest
        status = 0
        try:
            _child(argv, workdir, full_env, results, marker)
        except BaseException:  # noqa: BLE001
            status = 3
        finally:
            os._exit(status)
    timed_out, memory_bomb = _reap(pid, started, timeout, _rss(os.getpid()) + MEMORY_HEADROOM, 0.002)
    seconds = time.monotonic() - started
    left = _kill_marked(marker)
    after = _listing(workdir)
    leftovers = sorted(f"{path} ({'new' if path not in before else 'changed'})"
                       for path in after if before.get(path) != after[path])
    leftovers += sorted(f"{path} (removed)" for path in before if path not in after)
    try:
        code = json.loads((results / "result.json").read_text())["code"]
    except (OSError, ValueError):
        code = None
    read = lambda name: (results / name).read_text(errors="backslashreplace") if (results / name).exists() else ""  # noqa: E731
    outcome = Outcome(argv=list(argv), code=code, stdout=read("stdout"), stderr=read("stderr"), seconds=seconds,
                      timed_out=timed_out, memory_bomb=memory_bomb, work=[w for w in read("work.log").splitlines() if w],
                      leftovers=leftovers, processes=left)
    COUNTS[surface] += 1
    SECONDS[surface] += seconds
    return outcome


def judge(outcome: Outcome, canaries: tuple[str, ...] = (), said: tuple[str, ...] = (),
          expect: tuple[int, ...] = (EXIT_BAD_INPUT,)) -> list[str]:
    """Every way ``outcome`` falls short of a clean refusal of bad input (empty: it is one).

    ``said``: what the message must name (the file, the issuer, what is wrong), each case-insensitively;
    ``expect``: the exit codes that are right for it (bad input's alone, unless the surface's outcome is a
    verdict: ``verify`` finding a difference exits 1, ``plan`` with a requirement it cannot judge 2)."""
    problems = []
    text = outcome.stdout + outcome.stderr
    if outcome.timed_out:
        problems.append("work started on bad input: still running at the time limit (killed)")
    if outcome.memory_bomb:
        problems.append(f"work started on bad input: grew past {MEMORY_HEADROOM >> 20} MiB more than the test (killed)")
    if outcome.work:
        problems.append(f"work started on bad input: {outcome.work[0]}")
    if "Traceback (most recent call last)" in text:
        problems.append("a Python traceback in the output")
    if outcome.code not in expect and not (outcome.timed_out or outcome.memory_bomb):
        wanted = " or ".join(map(str, expect))
        problems.append(f"exit code {outcome.code}, not {wanted}{' (bad input)' if expect == (EXIT_BAD_INPUT,) else ''}")
    if outcome.code == EXIT_BAD_INPUT:
        problems += _fix_problems(outcome)
    missing = [s for s in said if s.lower() not in text.lower()]
    if missing and not problems:
        problems.append(f"the message does not name {missing[0]!r}")
    if outcome.leftovers:
        problems.append(f"left files behind or changed them: {outcome.leftovers[:5]}")
    if outcome.processes:
        problems.append(f"left processes running: {outcome.processes[:3]}")
    leaked = [c for c in canaries if c and c in text]
    if leaked:
        problems.append(f"a secret in the output: {leaked[0][:12]}...")
    return problems


def _fix_problems(outcome: Outcome) -> list[str]:
    if "--json" in outcome.argv:
        lines = [line for line in outcome.stdout.splitlines() if line.strip()]
        if len(lines) != 1:
            return [f"--json: stdout holds {len(lines)} lines, not one JSON document"]
        try:
            doc = json.loads(lines[0])
        except ValueError:
            return ["--json: stdout is not JSON"]
        if not isinstance(doc, dict) or not str(doc.get("error") or "").strip():
            return ["--json: no 'error' in the document"]
        if not str(doc.get("fix") or "").strip():
            return [f"an error without a fix: {doc.get('error')!r:.200}"]
        return []
    if "error:" not in outcome.stderr:
        return ["text mode: no 'error:' line on stderr"]
    if "fix:" not in outcome.stderr:
        return [f"an error without a fix: {outcome.stderr.strip()[:200]!r}"]
    return []


def assert_refused(outcome: Outcome, canaries: tuple[str, ...] = (), said: tuple[str, ...] = (),
                   expect: tuple[int, ...] = (EXIT_BAD_INPUT,)) -> None:
    problems = judge(outcome, canaries, said, expect)
    assert not problems, "; ".join(problems) + "\n" + outcome.show()


def run_process(argv: list[bytes | str], workdir: Path, *, surface: str, env: dict[str, str | None] | None = None,
                timeout: float = 60.0) -> Outcome:
    """The installed entry point in a real process (``python -m pulsar_conformance``): for what only a
    process shows (argv bytes that are not UTF-8, the locale, the interpreter's own stream setup).
    No guards inside; the time limit, the leftovers and the marked processes are judged the same way."""
    import subprocess

    workdir = Path(workdir)
    full = dict(os.environ)
    for name, value in make_env(workdir, env).items():
        if value is None:
            full.pop(name, None)
        else:
            full[name] = value
    marker = uuid.uuid4().hex
    full[MARKER_ENV] = marker
    before = _listing(workdir)
    started = time.monotonic()
    child = subprocess.Popen([sys.executable, "-m", "pulsar_conformance", *argv], cwd=workdir, env=full,
                             stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             start_new_session=True)
    timed_out = False
    try:
        out, err = child.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        timed_out = True
        os.killpg(child.pid, signal.SIGKILL)
        out, err = child.communicate()
    seconds = time.monotonic() - started
    left = _kill_marked(marker)
    after = _listing(workdir)
    leftovers = sorted(f"{path} ({'new' if path not in before else 'changed'})"
                       for path in after if before.get(path) != after[path])
    COUNTS[surface] += 1
    SECONDS[surface] += seconds
    shown = [a.decode(errors="backslashreplace") if isinstance(a, bytes) else a for a in argv]
    return Outcome(argv=shown, code=None if timed_out else child.returncode,
                   stdout=out.decode(errors="backslashreplace"), stderr=err.decode(errors="backslashreplace"),
                   seconds=seconds, timed_out=timed_out, leftovers=leftovers, processes=left)


# ------------------------------------------------------------------------- a call, not a command line


@dataclass
class CallOutcome:
    """What ``run_call`` saw: the exception the call raised (its class and bases, by name, and its text) or
    its result, the child's own output, and what it left running."""
    raised: list[str]  # the class names of the exception's MRO ([] when the call returned)
    message: str
    result: object
    stdout: str
    stderr: str
    seconds: float
    timed_out: bool = False
    processes: list[str] = field(default_factory=list)

    def show(self) -> str:
        return (f"raised={self.raised[:1]} after {self.seconds:.2f} s{' (TIMED OUT: killed)' if self.timed_out else ''}\n"
                f"message={self.message[:2000]!r}\nresult={self.result!r:.500}\nprocesses={self.processes}\n"
                f"--- stdout ---\n{self.stdout[:2000]}\n--- stderr ---\n{self.stderr[:2000]}")


def run_call(call, workdir: Path, *, surface: str, timeout: float, extra_markers: tuple[str, ...] = ()) -> CallOutcome:
    """``call()`` in a forked child with ``workdir`` as its cwd (no guards: the call is meant to start the
    processes it starts, e.g. an external deployment's fault commands). The child's marker is in its
    environment as ``MARKER_ENV`` for the call to hand on (a fault command's minimal environment does not
    inherit it); a process left behind is one carrying it, or one whose command line holds one of
    ``extra_markers`` (for a process that cleared its environment). The watchdog kills the child's group after
    ``timeout`` seconds."""
    workdir = Path(workdir)
    results = workdir.parent / f".{workdir.name}.results"
    results.mkdir()
    marker = uuid.uuid4().hex
    sys.stdout.flush()
    sys.stderr.flush()
    started = time.monotonic()
    pid = os.fork()
    if pid == 0:
        status = 0
        try:
            os.setpgid(0, 0)
            for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGALRM, signal.SIGCHLD):
                signal.signal(sig, signal.SIG_DFL)
            os.chdir(workdir)
            os.environ[MARKER_ENV] = marker
            for fd, name in ((1, "stdout"), (2, "stderr")):
                target = os.open(results / name, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
                os.dup2(target, fd)
                os.close(target)
            doc: dict = {"raised": [], "message": "", "result": None}
            try:
                doc["result"] = call()
            except BaseException as error:  # noqa: BLE001 - what the call raised is the outcome
                doc = {"raised": [c.__name__ for c in type(error).__mro__], "message": str(error), "result": None}
                if not isinstance(error, Exception):
                    traceback.print_exc()
            (results / "result.json").write_text(json.dumps(doc, default=str))
        except BaseException:  # noqa: BLE001
            status = 3
        finally:
            os._exit(status)
    timed_out, _ = _reap(pid, started, timeout, None, 0.005)
    seconds = time.monotonic() - started
    left = _kill_marked(marker, extra_markers)
    try:
        doc = json.loads((results / "result.json").read_text())
    except (OSError, ValueError):
        doc = {"raised": ["(no result: the child died or was killed)"], "message": "", "result": None}
    read = lambda name: (results / name).read_text(errors="backslashreplace") if (results / name).exists() else ""  # noqa: E731
    COUNTS[surface] += 1
    SECONDS[surface] += seconds
    return CallOutcome(doc["raised"], doc["message"], doc["result"], read("stdout"), read("stderr"), seconds,
                       timed_out, left)


def _reap(pid: int, started: float, timeout: float, memory_limit: int | None, poll: float) -> tuple[bool, bool]:
    """Wait for the forked case ``pid``; kill its group at ``timeout`` or past ``memory_limit`` bytes of RSS
    (None: no limit). (timed out, memory bomb)."""
    while True:
        done, _ = os.waitpid(pid, os.WNOHANG)
        if done:
            return False, False
        memory_bomb = memory_limit is not None and _rss(pid) > memory_limit
        if memory_bomb or time.monotonic() - started > timeout:
            try:
                os.killpg(pid, signal.SIGKILL)
            except OSError:
                pass
            os.waitpid(pid, 0)
            return not memory_bomb, memory_bomb
        time.sleep(poll)
