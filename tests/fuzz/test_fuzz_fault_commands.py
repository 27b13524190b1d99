"""An external deployment's fault commands that misbehave (issue 48): the deadline holds whatever the command
does, nothing it started outlives it, a program that cannot run is a fault failure saying why, and no secret
the deployment knows reaches the failure's message or its evidence.

No command line runs an external fault command (certify does, inside its tests' process), so each case calls
``ExternalDeployment.faults.kill`` (CommandFaults) in a forked child (sandbox.run_call) on a deployment file whose ``kill`` is the
misbehaving command, and is judged on what a scenario would get: a ``FaultFailed`` (a ``FaultUnsupported``,
which the pytest plugin turns into an unknown verdict) whose message names the reason; within the deadline
and the stop's grace; no process left (each command carries the case's marker through the file's ``env:``,
and a unique ``sleep`` length in its command line for one that clears its environment); no canary in the
message, the child's output or the evidence file.
"""
from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
from dataclasses import dataclass, field
from itertools import count
from pathlib import Path

import pytest
import yaml

from . import sandbox
from .cases import (
    CLIENT_SECRET,
    JWT,
    JWT_SIGNATURE,
    URL_PASSWORD,
    _make_writable,
    session_root,
)
from .material import key_lines, material

SETSID = shutil.which("setsid")
SH = "/bin/sh"
DEADLINE = 0.3  # timeout_s of every command here: short, so the run stays short; the rule is the same at 120 s
GRACE = 0.5  # fault_commands.KILL_GRACE_S in the child (5 s in a run): SIGKILL follows SIGTERM all the same
SLACK = 3.0  # start-up, the /proc scans, a loaded machine
UNKNOWN_BEARER = "FuzzBearerNobodyGave-5c1d2e9"  # a credential the deployment never named: masked by its shape
CANARIES = (JWT_SIGNATURE, CLIENT_SECRET, URL_PASSWORD, UNKNOWN_BEARER, *key_lines())
_SEQ = count(1)


@dataclass
class FaultCase:
    """``kill``'s command (``argv``, "{sleep}" standing for a unique sleep length), the files it needs, and what
    the failure's message must say."""
    name: str
    argv: list[str]
    files: dict[str, tuple[str, int]] = field(default_factory=dict)  # path -> (content, mode); "DIR" for a folder
    said: tuple[str, ...] = ()
    grace: float = 0.0  # added to the deadline: a command that ignores SIGTERM waits for SIGKILL

    def __repr__(self) -> str:
        return f"FaultCase({self.name!r}, argv={self.argv!r})"


def _script(body: str, shebang: str = "#!/bin/sh") -> tuple[str, int]:
    return (f"{shebang}\n{body}\n" if shebang else f"{body}\n"), 0o755


DAEMON = _script(  # a daemonising tool: double fork, a new session, the grandchild keeps stdout and stderr
    "import os, sys, time\n"
    "if os.fork():\n    sys.exit(0)\n"
    "os.setsid()\n"
    "if os.fork():\n    sys.exit(0)\n"
    "os.execvp('sleep', ['sleep', sys.argv[1]])", f"#!{sys.executable}")

DEADLINE_CASES = [
    *([FaultCase("setsid", [SETSID, "sleep", "{sleep}"], said=("timed out", "kept its output open"))] if SETSID else []),
    *([FaultCase("sh-setsid-background", [SH, "-c", "setsid sleep {sleep} &"], said=("timed out",))] if SETSID else []),
    *([FaultCase("setsid-env-cleared", [SH, "-c", "env -i setsid sleep {sleep} &"], said=("timed out",))]
      if SETSID else []),
    FaultCase("daemon-double-fork", ["{dir}/daemon.py", "{sleep}"], {"daemon.py": DAEMON}, said=("timed out",)),
    FaultCase("background-child-same-group", [SH, "-c", "sleep {sleep} &"], said=("timed out",)),
    FaultCase("stuck", [SH, "-c", "sleep {sleep}"], said=("timed out", "still running")),
    FaultCase("stops-itself", [SH, "-c", "kill -STOP $$; sleep {sleep}"], said=("timed out",)),
    FaultCase("ignores-sigterm", [SH, "-c", "trap '' TERM; sleep {sleep}"], said=("timed out",), grace=GRACE),
    FaultCase("token-then-stuck", ["{dir}/leak.sh", "{sleep}"],
              {"leak.sh": _script(f"echo 'auth: Bearer {JWT}' >&2\nsleep \"$1\"")}, said=("timed out",)),
    FaultCase("flood-then-stuck", [SH, "-c", "head -c 3000000 /dev/zero; sleep {sleep}"], said=("timed out",)),
]

PROGRAM_CASES = [
    FaultCase("a-directory", ["{dir}/tools"], {"tools": ("DIR", 0o755)}, said=("directory",)),
    FaultCase("script-without-shebang", ["{dir}/kill-it"], {"kill-it": _script("echo killed", shebang="")},
              said=("#!",)),
    FaultCase("empty-executable", ["{dir}/empty"], {"empty": ("", 0o755)}, said=("#!",)),
    FaultCase("not-executable", ["{dir}/plain.sh"], {"plain.sh": ("#!/bin/sh\necho x\n", 0o644)},
              said=("not an executable",)),
    FaultCase("missing-interpreter", ["{dir}/orphan.sh"], {"orphan.sh": _script("echo x", "#!/nonexistent/sh")},
              said=("does not exist",)),
    FaultCase("foreign-binary", ["{dir}/arm-tool"], {"arm-tool": ("\x7fELF\x02\x01\x01" + "\x00" * 60, 0o755)},
              said=("cannot be run",)),
    FaultCase("missing", ["{dir}/no-such-tool"], said=("not found",)),
]

KEY_LINE = key_lines()[1]  # a line of the mutual-TLS cluster's private key (issue 48: key material)
_LEAKS = [f"token {JWT}", f"secret {CLIENT_SECRET}", f"key {KEY_LINE}", f"http://admin:{URL_PASSWORD}@127.0.0.1:1/x",
          f"Authorization: Bearer {UNKNOWN_BEARER}", f"curl: (22) 401 for --token={UNKNOWN_BEARER}"]
SECRET_CASES = [
    FaultCase(f"prints-{i}", ["{dir}/leak.sh"], {"leak.sh": _script(f"echo '{line}' >&2\necho '{line}'\nexit 3")},
              said=("exited 3",))
    for i, line in enumerate(_LEAKS)
]


def _document(case: FaultCase, workdir: Path, marker_value: str, sleep: str) -> Path:
    """The deployment file: a cluster per kind of credential the runner must mask (a URL password on blue, a
    token on green, an OAuth2 client secret on red, a client key on purple), and blue's kill the case's command."""
    fill = lambda text: text.replace("{dir}", str(workdir)).replace("{sleep}", sleep)  # noqa: E731
    for rel, (content, mode) in case.files.items():
        path = workdir / rel
        if content == "DIR":
            path.mkdir(mode=mode)
        else:
            path.write_text(fill(content))
            path.chmod(mode)
    creds = workdir / "creds"
    creds.mkdir(exist_ok=True)
    (creds / "oauth2.json").write_text(json.dumps({"client_id": "fuzz", "client_secret": CLIENT_SECRET}))
    for name in ("client.pem", "client.key"):
        (creds / name).write_bytes(material()[name])
    doc = {
        "clusters": {
            "blue": {"service_url": "pulsar://127.0.0.1:1", "admin_url": f"http://admin:{URL_PASSWORD}@127.0.0.1:1"},
            "green": {"service_url": "pulsar://127.0.0.1:1", "admin_url": "http://127.0.0.1:1", "token": JWT},
            "red": {"service_url": "pulsar://127.0.0.1:1", "admin_url": "http://127.0.0.1:1",
                    "oauth2": {"issuer_url": "http://127.0.0.1:1", "credentials_file": str(creds / "oauth2.json")}},
            "purple": {"service_url": "pulsar+ssl://127.0.0.1:1", "admin_url": "https://127.0.0.1:1",
                       "tls_cert_file": str(creds / "client.pem"), "tls_key_file": str(creds / "client.key")},
        },
        "faults": {"blue": {"env": {sandbox.MARKER_ENV: marker_value},
                            "cluster": {"kill": {"argv": [fill(a) for a in case.argv], "timeout_s": DEADLINE}}}},
    }
    path = workdir / "vendor.yaml"
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    return path


def _kill_blue(path: str, out: str) -> dict:
    """In the child: what a scenario's kill(blue) does on this deployment."""
    from pulsar_conformance.fixtures.deploy import fault_commands
    from pulsar_conformance.fixtures.deploy.external import load_external

    fault_commands.KILL_GRACE_S = GRACE
    os.environ["PULSAR_CONFORMANCE_CERTIFY_OUT"] = out
    load_external(path, check=False).faults.kill("blue")
    return {"applied": True}


def run_fault_case(case: FaultCase) -> None:
    workdir = Path(tempfile.mkdtemp(dir=session_root(), prefix="fault-commands-"))
    sleep = f"{30 + next(_SEQ)}.{os.getpid() % 100000:05d}7"  # unique: a leftover is found by it
    try:
        def call():
            path = _document(case, workdir, os.environ[sandbox.MARKER_ENV], sleep)
            return _kill_blue(str(path), str(workdir / "bundle"))

        outcome = sandbox.run_call(call, workdir, surface="fault-commands", timeout=DEADLINE + case.grace + 15,
                                   extra_markers=(f"sleep {sleep}",))
        problems = []
        if outcome.timed_out:
            problems.append("still running at the time limit: the deadline did not hold")
        elif "FaultUnsupported" not in outcome.raised:
            problems.append(f"raised {outcome.raised[:1] or 'nothing'}, not a FaultFailed (a scenario's unknown)")
        limit = DEADLINE + case.grace + SLACK + (GRACE if case in DEADLINE_CASES else 0)
        if outcome.seconds > limit:
            problems.append(f"took {outcome.seconds:.1f} s, past the deadline {DEADLINE} s and the stop's grace")
        if "Traceback (most recent call last)" in outcome.stdout + outcome.stderr:
            problems.append("a traceback in the output")
        missing = [s for s in case.said if s.lower() not in outcome.message.lower()]
        if missing and not problems:
            problems.append(f"the failure does not say {missing[0]!r}")
        if outcome.processes:
            problems.append(f"left processes running: {outcome.processes[:3]}")
        evidence = "".join(p.read_text(errors="replace") for p in (workdir / "bundle").rglob("*.json"))
        shown = outcome.message + outcome.stdout + outcome.stderr + evidence
        leaked = [c for c in CANARIES if c in shown]
        if leaked:
            where = "the message" if leaked[0] in outcome.message else "the evidence or output"
            problems.append(f"a secret in {where}: {leaked[0][:12]}...")
        assert not problems, "; ".join(problems) + f"\n{case!r}\n" + outcome.show()
    finally:
        _make_writable(workdir)
        shutil.rmtree(workdir, ignore_errors=True)
        shutil.rmtree(workdir.parent / f".{workdir.name}.results", ignore_errors=True)


CLASSES = {"deadline": DEADLINE_CASES, "program": PROGRAM_CASES, "secrets": SECRET_CASES}
ALL = [pytest.param(case, id=f"{kind}-{case.name}") for kind, cases in CLASSES.items() for case in cases]


@pytest.mark.parametrize("case", ALL)
def test_fault_commands_that_misbehave_end_in_a_fault_failure_within_their_deadline(case):
    """Each case alone (they are few and each deadline case costs its deadline: no sample of them)."""
    run_fault_case(case)


def test_control_a_command_that_works_is_applied():
    """The same deployment with a command that exits 0 at once: applied, nothing raised, so the failures
    above are the commands' doing."""
    case = FaultCase("works", [SH, "-c", "echo killed"])
    workdir = Path(tempfile.mkdtemp(dir=session_root(), prefix="control-"))
    try:
        outcome = sandbox.run_call(lambda: _kill_blue(str(_document(case, workdir, "x", "1")), str(workdir / "b")),
                                   workdir, surface="control", timeout=15)
        assert outcome.result == {"applied": True} and not outcome.raised, outcome.show()
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
        shutil.rmtree(workdir.parent / f".{workdir.name}.results", ignore_errors=True)
