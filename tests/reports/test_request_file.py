"""certify hands its tests' process one typed request file (fixtures/request_file.py), named by one
variable: no other ``PULSAR_CONFORMANCE_*`` variable carries a request value (issue 49 point 5). The
child's accessors give back every value of the request, a variable left in the caller's shell changes
nothing, the file holds no secret, and a file that is not what certify wrote stops the child at once."""
from __future__ import annotations

import ast
import importlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from pulsar_conformance.conformance.profiles import PROFILES
from pulsar_conformance.fixtures import request_file
from pulsar_conformance.fixtures.deploy import cleanup, topology
from pulsar_conformance.fixtures.deploy.topology import Topology
from pulsar_conformance.protocols import protocol_options
from pulsar_conformance.reports.runner import certify
from pulsar_conformance.reports.runner.request import CertifyRequest, Deployment, Matrix, option_values

ROOT = Path(__file__).resolve().parents[2]
PREFIX = "PULSAR_CONFORMANCE_"
TOKEN = "canary-token-8f1d6728-do-not-copy"  # the deployment file's secret, named by token_env
# a valid value of each protocol option (each descriptor's own check accepts it)
VALUES = {"java_client_version": "4.0.1", "migration_tls": "advertised", "migration_client": "java"}


def _stale_shell(monkeypatch) -> None:
    """The caller's shell holds a value for every variable that used to carry the request: none may leak."""
    for name in certify._request_variables():
        monkeypatch.setenv(name, "stale-from-the-shell")
    monkeypatch.setenv("BLUE_TOKEN", TOKEN)


def _external(tmp_path: Path) -> Path:
    path = tmp_path / "vendor.yaml"
    path.write_text("clusters:\n  blue:\n    service_url: pulsar://blue:6650\n    admin_url: http://blue:8080\n"
                    "    token_env: BLUE_TOKEN\n")
    return path


def _full(tmp_path: Path) -> CertifyRequest:
    """Every value a request carries to the child: each protocol option, an external deployment, a matrix
    cell (the series' replace), --keep, --allow-irreversible, a client release and a Spark master."""
    assert {o.field for o in protocol_options()} == set(VALUES), "a new protocol option: give it a value here"
    base = CertifyRequest(profile=PROFILES["cluster-migration"], out=tmp_path / "bundle", run_id="certify-x/run 2",
                          seed=7, deployment=Deployment("external", str(_external(tmp_path))),
                          matrix=Matrix("migration-tls", ("off", "advertised")), client_version="3.5.0",
                          options=option_values({k: v for k, v in VALUES.items() if k != "migration_tls"}),
                          keep=True, allow_irreversible=True, spark_master="spark://10.0.0.5:7077",
                          spark_driver_host="10.0.0.9")
    return base.replace(migration_tls="advertised")  # the matrix cell, as reports/runner/series.py makes it


def _in_child(monkeypatch, env: dict) -> None:
    """This process as the child: exactly ``env``'s request variable (the transitional ones removed, so only
    the request file can answer)."""
    for name in list(os.environ):
        if name.startswith(PREFIX):
            monkeypatch.delenv(name)
    monkeypatch.setenv(request_file.ENV, env[request_file.ENV])


def test_the_child_gets_one_variable_and_every_value_back_from_the_file(tmp_path, monkeypatch):
    _stale_shell(monkeypatch)
    request = _full(tmp_path)
    env = certify._child_env(request)
    given = {name for name in env if name.startswith(PREFIX)}
    assert given == {request_file.ENV}, "only the request file's path crosses"
    assert all(env[name] != "stale-from-the-shell" for name in given), "no value of the caller's shell is handed on"
    path = Path(env[request_file.ENV])
    assert path == request.out / request_file.FILE and path.is_file(), "the request is kept in the bundle"
    assert TOKEN not in path.read_text() and "BLUE_TOKEN" not in path.read_text(), "no secret, not even its name"

    _in_child(monkeypatch, env)
    from pulsar_conformance.conformance.run import CertifyRun

    run = CertifyRun.from_env()
    assert (run.out, run.profile, run.seed) == (request.out, "cluster-migration", 7)
    assert request_file.out_dir() == request.out
    assert cleanup.current_run_id() == "certify-x-run-2" == cleanup.run_id_of(request.run_id)
    assert cleanup.keep_requested() is True and request_file.allow_irreversible() is True
    assert cleanup.created_file() == request.out / cleanup.CREATED
    assert request_file.external() == request.deployment.file and request_file.backend() == "local"
    assert request_file.pulsar_version() is None, "an external deployment's release is its brokers'"
    assert request_file.client() == ("3.5.0", None)
    assert request_file.spark() == ("spark://10.0.0.5:7077", "10.0.0.9")
    assert {o.field: request_file.option(o.field) for o in protocol_options()} == VALUES, "the matrix cell's too"
    assert topology.from_environment() is None


def test_a_local_run_gives_its_topology_backend_and_release_and_nothing_else(tmp_path, monkeypatch):
    _stale_shell(monkeypatch)
    for backend, topo in (("local", "cluster"), ("containers", "standalone")):
        request = CertifyRequest(profile=PROFILES["smoke"], out=tmp_path / backend, pulsar_version="4.0.1",
                                 deployment=Deployment(backend, topology=topo))
        env = certify._child_env(request)
        with monkeypatch.context() as child:
            _in_child(child, env)
            assert request_file.backend() == backend and request_file.external() is None
            assert topology.from_environment() == (Topology.cluster() if topo == "cluster" else None)
            assert request_file.pulsar_version() == "4.0.1"
            assert request_file.keep() is False and request_file.allow_irreversible() is False
            assert all(request_file.option(o.field) is None for o in protocol_options())
            assert request_file.spark() == (None, None)


def test_the_smoke_profile_runs_every_deployment_on_the_default_release(tmp_path, monkeypatch):
    from pulsar_conformance.fixtures.deploy.versions import DEFAULT_PULSAR_VERSION

    env = certify._child_env(CertifyRequest(profile=PROFILES["smoke"], out=tmp_path / "a"))
    _in_child(monkeypatch, env)
    assert request_file.pulsar_version() == DEFAULT_PULSAR_VERSION


def test_without_a_request_file_a_direct_run_reads_the_variables_set_by_hand(tmp_path, monkeypatch):
    """``pytest conformance`` with the documented variables (docs/deployments.md) works as before."""
    for name in list(os.environ):
        if name.startswith(PREFIX):
            monkeypatch.delenv(name)
    assert request_file.current() is None and request_file.out_dir() is None
    assert request_file.backend() == "local" and request_file.external() is None and request_file.run_id() == "adhoc"
    monkeypatch.setenv(request_file.EXTERNAL_ENV, "/x.yaml")
    monkeypatch.setenv(request_file.BACKEND_ENV, "containers")
    monkeypatch.setenv(request_file.PULSAR_VERSION_ENV, "4.0.1")
    monkeypatch.setenv(request_file.TOPOLOGY_ENV, "cluster:brokers=3")
    monkeypatch.setenv(request_file.KEEP_ENV, "1")
    monkeypatch.setenv(request_file.OUT_ENV, str(tmp_path))
    for o in protocol_options():
        monkeypatch.setenv(o.env, VALUES[o.field])
    assert (request_file.external(), request_file.backend(), request_file.pulsar_version()) == (
        "/x.yaml", "containers", "4.0.1")
    assert topology.from_environment() == Topology.cluster(brokers=3) and cleanup.keep_requested()
    assert request_file.out_dir() == tmp_path
    assert {o.field: request_file.option(o.field) for o in protocol_options()} == VALUES
    with pytest.raises(KeyError):
        request_file.option("no_such_option")


@pytest.mark.parametrize("change, words", [
    (lambda doc: "{not json", "not JSON"),
    (lambda doc: [doc], "not a JSON object"),
    (lambda doc: {**doc, "format": "pulsar-conformance-request/0"}, "format 'pulsar-conformance-request/0'"),
    (lambda doc: {**doc, "token": "x"}, "unknown field(s) token"),
    (lambda doc: {k: v for k, v in doc.items() if k != "out"}, "field out is missing"),
    (lambda doc: {**doc, "seed": "7"}, 'field seed is "7", not an integer'),
    (lambda doc: {**doc, "keep": 1}, "field keep is 1, not true or false"),
    (lambda doc: {**doc, "options": {"migration_tls": 3}}, "field options is"),
    (lambda doc: {**doc, "backend": "cloud"}, "backend 'cloud' is not one of"),
    (lambda doc: {**doc, "external": None}, "an external backend names its file"),
])
def test_a_tampered_request_file_is_a_clear_error(tmp_path, monkeypatch, change, words):
    env = certify._child_env(_full(tmp_path))
    path = Path(env[request_file.ENV])
    changed = change(json.loads(path.read_text()))
    path.write_text(changed if isinstance(changed, str) else json.dumps(changed))
    _in_child(monkeypatch, env)
    with pytest.raises(request_file.RequestFileError) as refused:
        request_file.current()
    assert str(path) in refused.value.problem and words in refused.value.problem, refused.value.problem
    assert "run certify again" in refused.value.fix and f"unset {request_file.ENV}" in refused.value.fix


def test_a_missing_or_unreadable_request_file_is_a_clear_error(tmp_path, monkeypatch):
    monkeypatch.setenv(request_file.ENV, str(tmp_path / "gone.json"))
    with pytest.raises(request_file.RequestFileError, match="gone.json, which does not exist"):
        request_file.current()
    monkeypatch.setenv(request_file.ENV, str(tmp_path))  # a folder
    with pytest.raises(request_file.RequestFileError, match="which cannot be read: IsADirectoryError"):
        request_file.current()


def test_the_tests_process_stops_before_collecting_on_a_bad_request_file(tmp_path):
    """The suite's conftest reads the file first: pytest exits 4 (usage) naming it, no scenario starts."""
    bad = tmp_path / request_file.FILE
    bad.write_text('{"format": "pulsar-conformance-request/1", "out": 1, "profile": "smoke"}')
    env = {k: v for k, v in os.environ.items() if not k.startswith(PREFIX)} | {request_file.ENV: str(bad)}
    done = subprocess.run([sys.executable, "-m", "pytest", str(ROOT / "conformance"), "-p", "no:cacheprovider",
                           "--co", "-q", f"--rootdir={ROOT}"], capture_output=True, text=True, env=env,
                          timeout=300, cwd=tmp_path)
    assert done.returncode == 4, done.stdout[-2000:] + done.stderr[-2000:]
    assert f"{bad}: field out is 1, not a string" in done.stderr


def test_the_spark_master_is_configured_in_the_tests_process(tmp_path, monkeypatch):
    from pulsar_conformance.conformance import conftest
    from pulsar_conformance.spark_checks import session

    env = certify._child_env(_full(tmp_path))
    _in_child(monkeypatch, env)
    before = session.configured()
    try:
        conftest._read_request()
        assert session.configured() == session.SparkPlace("spark://10.0.0.5:7077", "10.0.0.9")
    finally:
        session.configure(before.master, before.driver_host)


# --- the transition: variables still set for readers that do not ask request_file yet ---------------------

# parent-side readers of the same names: the user's values that stand for certify's options, checked there
PARENT_SIDE = {"reports/runner/request.py"}


def _env_reads(path: Path) -> set[str]:
    """The variable names ``path`` reads from the environment (os.environ.get / [] / in, os.getenv), each a
    literal, a module constant, or a name imported from another module of the package."""
    tree = ast.parse(path.read_text())
    constants = {t.id: n.value.value for n in tree.body if isinstance(n, ast.Assign)
                 and isinstance(n.value, ast.Constant) and isinstance(n.value.value, str)
                 for t in n.targets if isinstance(t, ast.Name)}
    imported = {}  # local name -> (module, attribute or None)
    package = "pulsar_conformance." + ".".join(path.relative_to(ROOT).parent.parts)
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            base = (importlib.util.resolve_name("." * node.level + (node.module or ""), package)
                    if node.level else node.module)
            for alias in node.names:
                imported[alias.asname or alias.name] = (base, alias.name)

    def value(node) -> str | None:
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return node.value
        if isinstance(node, ast.Name):
            if node.id in constants:
                return constants[node.id]
            if node.id in imported:
                module, name = imported[node.id]
                try:
                    found = getattr(importlib.import_module(module), name, None)
                except ImportError:
                    return None
                return found if isinstance(found, str) else None
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in imported:
            module, name = imported[node.value.id]
            try:
                found = importlib.import_module(f"{module}.{name}")
            except ImportError:
                found = getattr(importlib.import_module(module), name, None)
            attr = getattr(found, node.attr, None)
            return attr if isinstance(attr, str) else None
        return None

    def is_environ(node) -> bool:
        return isinstance(node, ast.Attribute) and node.attr == "environ"

    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.args and (
                (node.func.attr == "get" and is_environ(node.func.value)) or node.func.attr == "getenv"):
            names.add(value(node.args[0]))
        elif isinstance(node, ast.Subscript) and is_environ(node.value) and isinstance(node.ctx, ast.Load):
            names.add(value(node.slice))
        elif isinstance(node, ast.Compare) and any(is_environ(c) for c in node.comparators):
            names.add(value(node.left))
    return names - {None}


def _child_readers() -> dict[str, set[str]]:
    """request variable -> the package's files that read it from the environment, besides request_file.py
    (whose reads are the fallback of a direct run) and the parent side."""
    wanted = certify._request_variables() - {request_file.ENV}
    found: dict[str, set[str]] = {}
    for area in ("conformance", "fixtures", "reports", "spark_checks"):
        for path in sorted((ROOT / area).rglob("*.py")):
            where = str(path.relative_to(ROOT))
            if where in PARENT_SIDE or where == "fixtures/request_file.py":
                continue
            for name in _env_reads(path) & wanted:
                found.setdefault(name, set()).add(where)
    return found


def test_no_module_of_the_tests_process_reads_a_request_value_from_the_environment():
    """Certify sets no variable but the request file's path: a module of the tests' process that read a
    request value from the environment would get nothing under certify. Each asks fixtures/request_file.py
    (current(), option(), out_dir(), ...), whose own reads are the fallback of a direct ``pytest conformance``."""
    assert _child_readers() == {}, ("these modules read a variable certify does not set; ask fixtures/request_file.py "
                                    f"instead: {_child_readers()}")
