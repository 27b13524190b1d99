"""A fuzz case (argv, the files and environment it names) and how one is run and judged.

Every case is bad input by construction: the strategies only produce values that must be refused,
so the one right outcome is exit ``EXIT_BAD_INPUT`` with the problem and the fix, before anything
starts (tests/fuzz/sandbox.py judges the rest). Each surface also has a control case, the same
input made valid, to show the generated defect is what is refused.
"""
from __future__ import annotations

import atexit
import json
import os
import shutil
import stat
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, example, given, settings
from hypothesis import strategies as st

from . import sandbox

# Canaries: credentials planted in deployment documents, URL userinfo, token files and the
# environment of every case. None may reach stdout or stderr.
URL_PASSWORD = "FuzzUrlPassword-5d1e9c"
JWT_SIGNATURE = "FuzzJwtSignature-0b7e44"
JWT = f"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJmdXp6In0.{JWT_SIGNATURE}"
CLIENT_SECRET = "FuzzOAuth2ClientSecret-a3c2f1"
KEY_BODY = "MIIEvQIBADANFuzzPrivateKeyBody9f8e7d"
ENV_TOKEN_SIGNATURE = "FuzzEnvTokenSignature-77aa01"
ENV_TOKEN = f"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJlbnYifQ.{ENV_TOKEN_SIGNATURE}"
HARNESS_TOKEN = "FuzzHarnessToken-c0ffee42"
# A JWT whose signature holds no '-' is also a valid Java class name (issue 48: one pasted into a client.conf's
# authPlugin was echoed whole), and an opaque token is a valid simple class name
NODASH_SIGNATURE = "FuzzJwtNoDashSignature0b7e44"
NODASH_JWT = f"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJmdXp6In0.{NODASH_SIGNATURE}"
OPAQUE_TOKEN = "FuzzOpaqueToken0123456789abcdef"
CANARIES = (URL_PASSWORD, JWT_SIGNATURE, CLIENT_SECRET, KEY_BODY, ENV_TOKEN_SIGNATURE, HARNESS_TOKEN, NODASH_SIGNATURE,
            OPAQUE_TOKEN)
TOKEN_ENV = "FUZZ_BLUE_TOKEN"  # what deployment documents name in token_env
SECRET_ENV = {TOKEN_ENV: ENV_TOKEN, "PULSAR_CONFORMANCE_HARNESS_AUTH_PARAMS": f"token:{HARNESS_TOKEN}"}

# Files every case has in its folder, for documents to point at (token_file, tls_trust_certs).
CREDENTIAL_FILES = {
    "creds/blue.jwt": JWT + "\n",
    "creds/oauth2.json": json.dumps({"type": "client_credentials", "client_id": "fuzz", "client_secret": CLIENT_SECRET,
                                     "issuer_url": "https://issuer.example.com"}) + "\n",
    "creds/client.key": f"-----BEGIN PRIVATE KEY-----\n{KEY_BODY}\n-----END PRIVATE KEY-----\n",
    "creds/binary.der": bytes(range(256)),
}

ROOT_USER = os.geteuid() == 0  # permissions do not stop root: "read-only" folders are writable then


class Special:
    """A path that is not a plain file with content."""

    def __init__(self, kind: str, content: bytes | str = b""):
        self.kind, self.content = kind, content

    def __repr__(self) -> str:
        return f"Special({self.kind!r})"


DIR = Special("dir")
FIFO = Special("fifo")
READ_ONLY_DIR = Special("read-only-dir")


def executable(content: str) -> Special:
    return Special("exec", content)


def symlink(target: str) -> Special:
    """A symbolic link to ``target`` ("{dir}" is the case's folder; a link may point outside it)."""
    return Special("symlink", target)


def unreadable(content: str | bytes = "x") -> Special:
    """A file with mode 000 (root reads it anyway: use only where ``ROOT_USER`` is false)."""
    return Special("unreadable", content)


def big_file(size: int, head: bytes = b"") -> Special:
    return Special("big", head + b" " * max(0, size - len(head)))


@dataclass
class Case:
    argv: list[str]
    files: dict[str, object] = field(default_factory=dict)
    env: dict[str, str | None] = field(default_factory=dict)
    timeout: float = sandbox.DEFAULT_TIMEOUT
    # what the message must name (the file, the issuer, what is wrong with it): a refusal that names the wrong
    # problem is no clean refusal either ("{dir}" is the case's folder)
    said: tuple[str, ...] = ()
    # the exit codes that are right (bad input's, unless the surface answers with a verdict: verify's 1)
    expect: tuple[int, ...] = (sandbox.EXIT_BAD_INPUT,)

    def __repr__(self) -> str:  # what Hypothesis prints for a failing example (file contents cut short)
        shown = {k: (v if isinstance(v, Special) else (v[:120] if isinstance(v, (str, bytes)) else v))
                 for k, v in self.files.items()}
        extra = f", said={self.said!r}" if self.said else ""
        extra += f", expect={self.expect!r}" if self.expect != (sandbox.EXIT_BAD_INPUT,) else ""
        return f"Case(argv={self.argv!r}, files={shown!r}, env={self.env!r}{extra})"

    def _repr_pretty_(self, printer, cycle) -> None:  # Hypothesis' printer, instead of its own dataclass dump
        printer.text(repr(self))


_ROOT: list[Path] = []


def session_root() -> Path:
    if not _ROOT:
        _ROOT.append(Path(tempfile.mkdtemp(prefix="pulsar-conformance-fuzz-")))
        atexit.register(cleanup_root)  # also when the session ends without its fixtures' teardown
    return _ROOT[0]


def cleanup_root() -> None:
    for root in _ROOT:
        _make_writable(root)
        shutil.rmtree(root, ignore_errors=True)
    _ROOT.clear()


def _make_writable(root: Path) -> None:
    for dirpath, dirnames, _ in os.walk(root):
        for name in dirnames:
            path = Path(dirpath) / name
            try:
                path.chmod(path.stat().st_mode | stat.S_IWUSR | stat.S_IXUSR | stat.S_IRUSR)
            except OSError:
                pass


def _fill(value, where: Path):
    text = str(where)
    if isinstance(value, bytes):
        return value.replace(b"{dir}", text.encode())
    if isinstance(value, str):
        return value.replace("{dir}", text)
    return value


def materialize(case: Case, workdir: Path) -> tuple[list[str], dict[str, str | None]]:
    for rel, content in {**CREDENTIAL_FILES, **case.files}.items():
        path = workdir / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, Special):
            if content.kind == "dir":
                path.mkdir(parents=True, exist_ok=True)
            elif content.kind == "fifo":
                os.mkfifo(path)
            elif content.kind == "read-only-dir":
                path.mkdir(parents=True, exist_ok=True)
                path.chmod(0o555)
            elif content.kind == "exec":
                path.write_text(content.content)
                path.chmod(0o755)
            elif content.kind == "symlink":
                os.symlink(_fill(content.content, workdir), path)
            elif content.kind == "unreadable":
                data = content.content
                (path.write_bytes if isinstance(data, bytes) else path.write_text)(data)
                path.chmod(0)
            elif content.kind == "big":
                path.write_bytes(content.content if isinstance(content.content, bytes) else content.content.encode())
            else:
                raise ValueError(content.kind)
        else:
            content = _fill(content, workdir)
            (path.write_bytes if isinstance(content, bytes) else path.write_text)(content)
    argv = [_fill(a, workdir) for a in case.argv]
    env = {**SECRET_ENV, **{k: (_fill(v, workdir) if v is not None else None) for k, v in case.env.items()}}
    return argv, env


def run_case(case: Case, surface: str, canaries: tuple[str, ...] = CANARIES) -> sandbox.Outcome:
    """Run ``case`` in a fresh folder of its own and fail on anything short of a clean refusal."""
    workdir = Path(tempfile.mkdtemp(dir=session_root(), prefix=f"{surface}-"))
    try:
        argv, env = materialize(case, workdir)
        outcome = sandbox.run_cli(argv, workdir, surface=surface, env=env, timeout=case.timeout)
        sandbox.assert_refused(outcome, canaries, tuple(_fill(s, workdir) for s in case.said), case.expect)
        return outcome
    finally:
        _make_writable(workdir)
        shutil.rmtree(workdir, ignore_errors=True)
        shutil.rmtree(workdir.parent / f".{workdir.name}.results", ignore_errors=True)


def run_valid(case: Case, surface: str = "control") -> sandbox.Outcome:
    """A control: ``case`` made valid, run in the sandbox without judging (the test asserts)."""
    workdir = Path(tempfile.mkdtemp(dir=session_root(), prefix=f"{surface}-"))
    try:
        argv, env = materialize(case, workdir)
        return sandbox.run_cli(argv, workdir, surface=surface, env=env, timeout=case.timeout)
    finally:
        _make_writable(workdir)
        shutil.rmtree(workdir, ignore_errors=True)
        shutil.rmtree(workdir.parent / f".{workdir.name}.results", ignore_errors=True)


# ------------------------------------------------------------------------------------ Hypothesis

SCALE = float(os.environ.get("PULSAR_CONFORMANCE_FUZZ_SCALE", "1"))  # e.g. 10 for a deeper local run
RANDOM = os.environ.get("PULSAR_CONFORMANCE_FUZZ_RANDOM") == "1"  # a new sample each run, not CI's fixed one


def fuzz(strategy, surface: str, examples: int, explicit: list | tuple = (),
         canaries: tuple[str, ...] = CANARIES) -> None:
    """Run ``examples`` cases drawn from ``strategy`` (a strategy of Case), after the ``explicit``
    ones (the issue's own examples). Derandomized: CI runs the same cases every time, and a
    failure names its Case. No shrinking: a failing case is reported as found (the Case is small)."""
    @settings(max_examples=max(1, int(examples * SCALE)), derandomize=not RANDOM, deadline=None, database=None,
              phases=(Phase.explicit, Phase.generate), suppress_health_check=list(HealthCheck), print_blob=False)
    @given(strategy)
    def one(case: Case) -> None:
        run_case(case, surface, canaries)

    for case in reversed(explicit):
        one = example(case)(one)
    one()


def params(classes: dict, known: dict[str, str]) -> list:
    """pytest params for each class name; a class listed in ``known`` is a strict xfail naming its owner."""
    out = []
    for name in classes:
        marks = [pytest.mark.xfail(strict=True, reason=f"issue 29: {name} - {known[name]}")] if name in known else []
        out.append(pytest.param(name, id=name, marks=marks))
    return out


def json_flag():
    """Half the cases in --json mode (one document with error and fix), half in text mode."""
    return st.sampled_from([["--json"], []])
