"""A certify option only one protocol's scenarios read is declared by its descriptor (ProtocolOption in
pulsar_conformance/protocols/) and reports/ knows it from there only: the command line, the profiles
that accept it, its checks, the environment of the tests' process, the matrix axis, the bundle's
configuration and reproduce command. reports/ named cluster-migration and client-failover by hand
(``"cluster-migration" in profile.areas``), so a new protocol's option meant editing four files."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

from pulsar_conformance import protocols
from pulsar_conformance.cli import build_parser
from pulsar_conformance.conformance import profiles
from pulsar_conformance.conformance.profiles import Profile, get_profile
from pulsar_conformance.errors import UsageError
from pulsar_conformance.protocols import PROTOCOLS, Protocol, ProtocolOption, declaring, protocol_options
from pulsar_conformance.reports.runner import certify
from pulsar_conformance.reports.runner.build import command_line
from pulsar_conformance.reports.runner.request import (
    AXES,
    ENV_OPTIONS,
    MATRIX_FIX,
    CertifyRequest,
    certify_request,
    configuration,
    environment_options,
    parse_matrix,
)

from .handmade import make_bundle

ROOT = Path(__file__).resolve().parents[2]
FENCING = ProtocolOption(
    field="fencing_mode", flag="--fencing-mode", env="PULSAR_CONFORMANCE_FENCING_MODE", metavar="MODE",
    help="how the made-up scenarios fence a topic", axis="fencing", example="off,on",
    check="pulsar_conformance.protocols.cluster_migration:check_tls_mode",  # any check: the TLS modes' names
    configuration_default="off")
OTHER = "geo-replication"  # a profile that runs no protocol declaring FENCING


@pytest.fixture
def fencing(monkeypatch, tmp_path):
    """A descriptor ``topic-fencing`` declaring FENCING beside the real ones, and its profile."""
    made_up = Protocol(area="topic-fencing", title="made up", source="https://example.invalid", marker="topic_fencing",
                       profile="made up", options=(FENCING,))
    monkeypatch.setattr(protocols, "PROTOCOLS", (*PROTOCOLS, made_up))
    profile = Profile("topic-fencing", "made up", markers="topic_fencing", areas=("topic-fencing",))
    monkeypatch.setitem(profiles.PROFILES, "topic-fencing", profile)
    monkeypatch.setenv("PULSAR_CONFORMANCE_STATE_DIR", str(tmp_path / "state"))
    for variable, _ in ENV_OPTIONS.values():
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.delenv(FENCING.env, raising=False)
    return profile


def test_a_declared_option_reaches_the_tests_process_the_bundle_and_the_reproduce_command(fencing, tmp_path):
    request = CertifyRequest(profile=fencing, out=tmp_path).replace(fencing_mode="on")
    assert request.fencing_mode == "on" and request.option("fencing_mode") == "on"
    assert certify.run_request(request).options == {"fencing_mode": "on"}, "the tests' process reads it in its request"
    assert "--fencing-mode on" in command_line(request), "the reproduce command repeats the option"
    assert configuration(request) == {"fencing_mode": "on"}, "the bundle records the run's configuration"
    plain = request.replace(fencing_mode=None)
    assert configuration(plain) == {"fencing_mode": "off"}, "a run without the option ran the declared default"
    assert "fencing_mode" not in certify.run_request(plain).options and "--fencing-mode" not in command_line(plain)
    other = CertifyRequest(profile=get_profile(OTHER), out=tmp_path)
    assert configuration(other) == {}, "a profile that runs no declaring protocol has no such configuration"


def test_a_profile_that_runs_no_declaring_protocol_refuses_the_option(fencing, tmp_path):
    parser = build_parser()
    args = parser.parse_args(["certify", "--profile", OTHER, "--fencing-mode", "on", "--out", str(tmp_path / "b")])
    with pytest.raises(UsageError) as refused:
        certify_request(args)
    assert refused.value.problem == f"--fencing-mode applies to the topic-fencing profile, not {OTHER}"
    assert refused.value.fix == "leave --fencing-mode out, or pass --profile topic-fencing"
    bad = parser.parse_args(["certify", "--profile", "topic-fencing", "--fencing-mode", "maybe",
                             "--out", str(tmp_path / "b")])
    with pytest.raises(UsageError, match="maybe"):  # the descriptor's check
        certify_request(bad)
    assert not (tmp_path / "b").exists()


def test_an_environment_value_of_the_option_is_checked_and_taken_by_its_profiles_only(fencing, monkeypatch):
    monkeypatch.setenv(FENCING.env, "on")
    for profile, taken in (("topic-fencing", {"fencing_mode": "on"}), (OTHER, {})):
        args = build_parser().parse_args(["certify", "--profile", profile])
        assert environment_options(args, None, get_profile(profile)) == taken
    monkeypatch.setenv(FENCING.env, "maybe")
    args = build_parser().parse_args(["certify", "--profile", OTHER])
    with pytest.raises(UsageError) as refused:
        environment_options(args, None, get_profile(OTHER))
    assert f"${FENCING.env}='maybe' (read as --fencing-mode)" in refused.value.problem


def test_the_real_options_come_from_the_descriptors():
    declared = protocol_options()
    assert {o.field for o in declared} == {"migration_tls", "java_client_version", "migration_client"}
    for o in declared:
        assert ENV_OPTIONS[o.field] == (o.env, o.flag)
        assert AXES[o.axis] == o.field and f"{o.axis}={o.example}" in MATRIX_FIX
        assert o.flag in _certify_help()
        assert parse_matrix(f"{o.axis}={o.example}").field == o.field
    tls = next(o for o in declared if o.field == "migration_tls")
    assert [p.area for p in declaring(tls)] == ["cluster-migration"]
    for profile, expected in (("cluster-migration", {"migration_tls": "off"}), ("full", {"migration_tls": "off"}),
                              ("client-failover", {}), (OTHER, {})):
        assert configuration(CertifyRequest(profile=get_profile(profile))) == expected, profile


def test_the_bundle_records_the_configuration_and_the_option(tmp_path):
    summary = make_bundle(tmp_path / "b", options=(("migration_tls", "on"),))
    assert summary["configuration"] == {"migration_tls": "on"} and "--migration-tls on" in summary["command"]
    assert make_bundle(tmp_path / "c")["configuration"] == {"migration_tls": "off"}


def _certify_help() -> str:
    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.suppress(SystemExit):
        build_parser().parse_args(["certify", "--help"])
    return out.getvalue()


SOURCES = ("reports/runner/request.py", "reports/runner/build.py", "reports/runner/certify.py", "reports/runner/cli.py")


def _hand_named(path: Path) -> list[str]:
    """Where ``path`` names a protocol or one of its options by hand: an area, a flag, a variable or an
    axis in a string (docstrings included), or an option's field as an identifier or a keyword."""
    words = {p.area: "a protocol's area" for p in PROTOCOLS}
    for o in protocol_options():
        words.update({o.flag: "an option's flag", o.env: "an option's variable", f'"{o.axis}"': "an option's axis"})
    fields = {o.field for o in protocol_options()}
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            found += [f"{path.relative_to(ROOT)}:{node.lineno} {what} {word.strip(chr(34))!r}"
                      for word, what in words.items()
                      if (word.strip('"') == node.value if word.startswith('"') else word in node.value)]
        name = (node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute)
                else node.arg if isinstance(node, ast.keyword) else None)
        if name in fields:
            found.append(f"{path.relative_to(ROOT)}:{node.lineno} an option's field {name!r}")
    return found


def test_reports_name_no_protocol_by_hand():
    found = sorted({where for source in SOURCES for where in _hand_named(ROOT / source)})
    assert found == [], ("reports/ names protocols or their options by hand; derive them from the descriptors "
                         "(pulsar_conformance/protocols: Protocol.options, ProtocolOption; reports/runner/request.py "
                         "accepts, configuration):\n  " + "\n  ".join(found))


def test_a_tls_mode_with_tls_brokers_is_refused_off_the_local_backend(tmp_path):
    """The descriptor's ``prepare`` runs once the deployment is known, for each value the run uses."""
    from pulsar_conformance.reports.runner.request import Deployment, _prepare_options

    request = CertifyRequest(profile=get_profile("cluster-migration"), deployment=Deployment("containers"),
                             out=tmp_path).replace(migration_tls="advertised")
    with pytest.raises(UsageError, match="starts TLS brokers of the local backend; this run's deployment is containers"):
        _prepare_options(request, {"migration_tls": "advertised"})
    with pytest.raises(UsageError, match=r"^\$PULSAR_CONFORMANCE_MIGRATION_TLS='advertised' \(read as --migration-tls\)"):
        _prepare_options(request, {})  # the value came from the environment: named as such
    _prepare_options(request.replace(migration_tls="off"), {"migration_tls": "off"})  # no TLS brokers to start
