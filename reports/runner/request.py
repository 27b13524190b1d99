"""What one ``certify`` invocation asks for, every value checked before anything starts.

reports/runner/cli.py turns argparse's options into a ``CertifyRequest`` here and nothing below it reads
argparse: certify.py, series.py, build.py and identity.py get typed, validated values. A value the
run cannot use is a ``UsageError`` (exit 64) raised here, before a folder, a cluster or a test
process exists: a typo in the last value of a matrix used to cost a whole run and leave a
half-written series.

Cheap checks come first (profile, requirement ids, ``--select``, numbers, release numbers, the
protocols' own options, paths), then the ones that look outside (the deployment file's clusters,
Docker, the JDK, Maven, pip), so a typo is reported in milliseconds.

The options only one protocol's scenarios read (a TLS mode, a Java client release) are known here
through the descriptors only (pulsar_conformance/protocols ``ProtocolOption``): which
profiles accept each, its checks, its environment variable and its matrix axis.
"""
from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from packaging.version import Version

from pulsar_conformance import protocols  # protocols.PROTOCOLS read at call time (tests add one)
from pulsar_conformance.conformance.profiles import Profile, get_profile
from pulsar_conformance.errors import UsageError
from pulsar_conformance.files import check_cache_dir, check_output_path
from pulsar_conformance.fixtures import client_versions
from pulsar_conformance.fixtures.deploy import maven
from pulsar_conformance.fixtures.deploy.java import JAVA_ENV, choose_java, probe
from pulsar_conformance.fixtures.deploy.versions import parse_version
from pulsar_conformance.output import progress
from pulsar_conformance.protocols import ProtocolOption, declaring, protocol_options
from pulsar_conformance.redact import redact_url
from pulsar_conformance.spark_checks.options import check_driver_host, check_master

from ..bundle.verdicts import load_requirements
from .releases import check_release

# Left inside functions: the deployments (fixtures.deploy.state, .containers, .external import psutil
# and requests) and pytest's expression parser, which the checks that need them load.

# matrix axis -> the request field each cell overrides: every run's releases, then the protocols' axes
AXES = {"pulsar": "pulsar_version", "client": "client_version",
        **{o.axis: o.field for o in protocol_options() if o.axis}}
MAX_REPEAT = 20
_EXAMPLES = ["pulsar=4.0.1,4.2.4", "client=3.4.0,3.13.0",
             *(f"{o.axis}={o.example}" for o in protocol_options() if o.axis)]
MATRIX_FIX = f"e.g. --matrix {', '.join(_EXAMPLES[:-1])} or {_EXAMPLES[-1]} (baseline first)"


@dataclass(frozen=True)
class Deployment:
    """Where the run's clusters come from: ``local`` and ``containers`` are started by the run,
    ``external`` ones are described by ``file`` (resolved path)."""

    backend: str = "local"
    file: str | None = None
    # what runs per cluster on a backend the run starts (fixtures/deploy/topology.py): "standalone" or "cluster"
    topology: str = "standalone"
    proxy: bool = False  # the cluster topology with a Pulsar proxy per cluster (--proxy; topology.Topology.proxy)

    def to_json(self) -> dict:
        return {"backend": self.backend, "file": self.file, "topology": self.topology, "proxy": self.proxy}

    @property
    def topology_text(self) -> str:
        """What the tests' process is asked to start per cluster, as fixtures/deploy/topology.from_environment
        reads it."""
        return f"{self.topology}:proxy" if self.proxy else self.topology


@dataclass(frozen=True)
class Matrix:
    axis: str  # a key of AXES
    values: tuple[str, ...]

    @property
    def field(self) -> str:
        return AXES[self.axis]


@dataclass(frozen=True)
class CertifyRequest:
    profile: Profile
    deployment: Deployment = field(default_factory=Deployment)
    out: Path = Path("reports")  # the bundle (or series) folder, resolved and checked
    run_id: str = "certify"
    seed: int = 1
    repeat: int = 1
    matrix: Matrix | None = None
    pulsar_version: str | None = None
    client_version: str | None = None
    # the protocols' own options given (ProtocolOption.field, value), in the descriptors' order
    options: tuple[tuple[str, str], ...] = ()
    exclude: tuple[str, ...] = ()
    select: str | None = None
    vendor: str | None = None
    product: str | None = None
    json: bool = False
    # as the user wrote them, for the bundle's reproduce command
    deployment_option: str | None = None
    out_option: str | None = None
    # pulsar-client environments prepared up front, one per client release the run or series uses
    clients: tuple[tuple[str | None, Any], ...] = ()
    # an external deployment's irreversible scenarios (a cluster-level migration) run only when asked
    allow_irreversible: bool = False
    # an external deployment: leave what the run created on the clusters (deleted at the end otherwise)
    keep: bool = False
    # where the capture checks run (certify --spark-master, else $MASTER): None is local[*]; and the address a
    # standalone master's executors call the driver back at (--spark-driver-host, else $SPARK_LOCAL_IP)
    spark_master: str | None = None
    spark_driver_host: str | None = None

    @property
    def is_series(self) -> bool:
        return self.repeat > 1 or self.matrix is not None

    @property
    def client(self):
        """The prepared pulsar-client (fixtures/client_versions.ClientEnv) of ``client_version``."""
        for version, env in self.clients:
            if version == self.client_version:
                return env
        return client_versions.prepare(self.client_version, log=progress)  # a request built by hand (tests)

    def option(self, name: str) -> str | None:
        """The value of the protocol option ``name`` (a ProtocolOption.field), None when not given."""
        return dict(self.options).get(name)

    def __getattr__(self, name: str):
        # request.<field> of a declared option reads like the request's own fields (series.py's axes)
        if name != "options" and name in {o.field for o in protocol_options()}:
            return self.option(name)
        raise AttributeError(f"{type(self).__name__} has no attribute {name!r}")

    def replace(self, **changes) -> CertifyRequest:
        """A copy with ``changes``, which may name the protocols' options as fields (a matrix cell)."""
        fields = {o.field for o in protocol_options()}
        given = {k: changes.pop(k) for k in list(changes) if k in fields}
        if given:
            changes["options"] = option_values({**dict(self.options), **given})
        return dataclasses.replace(self, **changes)


def option_values(values: dict) -> tuple[tuple[str, str], ...]:
    """``CertifyRequest.options`` of ``values`` (field -> value or None): the given ones, in the descriptors' order."""
    order = [o.field for o in protocol_options()]
    unknown = sorted(set(values) - set(order))
    if unknown:
        raise TypeError(f"{', '.join(unknown)}: no protocol descriptor declares such a certify option")
    return tuple((f, values[f]) for f in order if values.get(f))


def certify_request(args) -> CertifyRequest:
    """The request of argparse's ``args`` for ``certify``, or the UsageError of its first bad value."""
    profile = get_profile(args.profile)
    exclude = _exclusions(profile, args.exclude or ())
    select = check_select(args.select)
    repeat = check_repeat(args.repeat)
    matrix = parse_matrix(args.matrix)
    _check_not_both(args, matrix)
    given = {o.field: getattr(args, o.field, None) for o in protocol_options()}
    for o in protocol_options():
        if given[o.field]:
            o.run_check(given[o.field])
    _check_profile_options(profile, given, matrix)
    from_env = environment_options(args, matrix, profile)
    pulsar_version = args.pulsar_version or from_env.get("pulsar_version")
    options = {o.field: given[o.field] or from_env.get(o.field) for o in protocol_options()}
    pulsar = check_release(pulsar_version) if pulsar_version else None  # an environment value: checked already
    if args.client_version:
        check_client_release(args.client_version, "--client-version")
    from pulsar_conformance.fixtures.deploy.state import STATE_ENV, state_dir

    check_output_path(state_dir(), kind="dir", option=f"${STATE_ENV}" if os.environ.get(STATE_ENV) else "state dir")
    check_cache_dir()  # Maven's classpaths, pulsar-client installs and Oxia builds go there, minutes in
    run_id = f"certify-{datetime.now(UTC):%Y%m%d-%H%M%S}-{profile.name}"
    if args.out is not None and not str(args.out).strip():
        # '' used to fall back to the default folder and start: an unset variable ($OUT) is a mistake, not a choice
        raise UsageError(f"--out {args.out!r} names no folder",
                         "pass --out DIR (new or empty), or leave --out out for reports/certify-<time>-<profile>/")
    out = check_output_path(args.out or Path("reports") / run_id, kind="dir", option="--out", empty=True)
    _check_matrix_deployment(matrix, args.deployment)
    _check_version_deployment(args.pulsar_version, args.deployment)
    keep = check_keep(bool(getattr(args, "keep", False)), args.deployment)
    _check_java_env()
    spark_master, spark_driver_host = check_spark(getattr(args, "spark_master", None),
                                                  getattr(args, "spark_driver_host", None))
    deployment = deployment_option(args.deployment, profile, getattr(args, "topology", None),
                                   bool(getattr(args, "proxy", False)))
    if deployment.backend == "external":
        pulsar = None  # the brokers say which release they run (an environment value is not theirs)
    request = CertifyRequest(
        profile=profile, deployment=deployment, out=out, run_id=run_id, seed=args.seed, repeat=repeat, matrix=matrix,
        pulsar_version=str(pulsar) if pulsar else None, client_version=args.client_version,
        options=option_values(options), exclude=exclude,
        select=select, vendor=args.vendor, product=args.product, json=bool(getattr(args, "json", False)),
        deployment_option=args.deployment, out_option=args.out,
        allow_irreversible=bool(getattr(args, "allow_irreversible", False)), keep=keep,
        spark_master=spark_master, spark_driver_host=spark_driver_host)
    _check_releases(request)
    _prepare_options(request, given)
    return request.replace(clients=_prepare_clients(request))


def values_of(request: CertifyRequest, axis_field: str) -> list:
    """Every value ``axis_field`` takes over the run or series (the matrix's, else the option's)."""
    if request.matrix and request.matrix.field == axis_field:
        return list(request.matrix.values)
    return [getattr(request, axis_field)]


# --- the protocols' own options, known through their descriptors -----------------------------------------

def option_of(field_name: str) -> ProtocolOption:
    for o in protocol_options():
        if o.field == field_name:
            return o
    raise KeyError(field_name)


def runs_option(profile: Profile, o: ProtocolOption) -> bool:
    """The profile runs a protocol that declares ``o`` (its areas include one)."""
    return any(p.area in profile.areas for p in declaring(o))


def accepts(profile: Profile, o: ProtocolOption) -> bool:
    return runs_option(profile, o) or not o.only_its_profiles


def configuration(request: CertifyRequest) -> dict:
    """The bundle's ``configuration``: each configuration option of the profile's protocols, its value
    or its default (a run given no TLS mode ran the default one, and says so)."""
    return {o.field: request.option(o.field) or o.configuration_default for o in protocol_options()
            if o.configuration_default is not None and runs_option(request.profile, o)}


def _profiles_text(o: ProtocolOption) -> tuple[str, str]:
    """("the a profile" or "the a or b profiles", "a" or "a or b") of the protocols that declare ``o``."""
    areas = [p.area for p in declaring(o)]
    names = " or ".join(areas)
    return f"the {names} profile{'s' if len(areas) > 1 else ''}", names


def _check_profile_options(profile: Profile, given: dict, matrix: Matrix | None) -> None:
    """An option only some protocols' scenarios read is refused by a profile that runs none of them."""
    for o in protocol_options():
        if accepts(profile, o) or not (given.get(o.field) or (matrix and matrix.field == o.field)):
            continue
        which, names = _profiles_text(o)
        raise UsageError(f"{o.flag} applies to {which}, not {profile.name}",
                         f"leave {o.flag} out, or pass --profile {names}")


def _prepare_options(request: CertifyRequest, given: dict) -> None:
    """Each value of an option the profile's protocols read, prepared once the deployment is known (a
    Java client release resolved from Maven, a TLS mode the deployment can run): refused before any
    broker or JVM starts, a value from the environment named as such."""
    for o in protocol_options():
        if not o.prepare or not runs_option(request.profile, o):
            continue
        from_env = not given.get(o.field) and not (request.matrix and request.matrix.field == o.field)
        for value in values_of(request, o.field):
            if not value:
                continue
            if from_env:
                _as_environment(o.field, value, lambda v, o=o: o.run_prepare(v, request.deployment))
            else:
                o.run_prepare(value, request.deployment)


# --- cheap checks: the text of the options alone ----------------------------------------------------------

def _exclusions(profile: Profile, items) -> tuple[str, ...]:
    """``--exclude`` may only narrow what the profile certifies: anything else is a typo."""
    excluded = sorted({rid.strip() for item in items for rid in item.split(",") if rid.strip()})
    declared = profile.declared(load_requirements())
    unknown = [rid for rid in excluded if rid not in declared]
    if unknown:
        raise UsageError(f"--exclude {', '.join(unknown)}: not a requirement the {profile.name} profile certifies",
                         f"choose among: {', '.join(declared) or '(none: this profile certifies nothing on a deployment)'}")
    return tuple(excluded)


def check_select(text: str | None) -> str | None:
    """``--select`` is a pytest ``-k`` expression: compiled here, or pytest would refuse it in the child
    after the deployment started, and the run would end "unknown" minutes later."""
    if text is None or not text.strip():
        return None
    try:
        from _pytest.mark.expression import Expression
    except ImportError:  # pytest moved its parser: the child still refuses a bad one, later
        return text
    try:
        Expression.compile(text)
    except Exception as error:  # noqa: BLE001 - SyntaxError (pytest 9) or ParseError (older)
        raise UsageError(f"--select {text!r} is not a pytest -k expression: {getattr(error, 'msg', error)}",
                         "write test-name substrings joined by and/or/not with parentheses, e.g. "
                         "--select 'migration and not tls'") from None
    return text


def check_repeat(value: int) -> int:
    if not 1 <= value <= MAX_REPEAT:
        raise UsageError(f"--repeat {value}: must be 1..{MAX_REPEAT}", "pass e.g. --repeat 3")
    return value


def check_client_release(text: str, option: str) -> str:
    return client_versions.check_release(text, option)


def parse_matrix(text: str | list[str] | None) -> Matrix | None:
    """``pulsar=4.0.1,4.2.4`` -> Matrix("pulsar", (...)); every value checked before anything starts.

    A list is what ``--matrix`` gives when it may be repeated (``action="append"``): more than one is refused,
    where argparse's default kept the last and dropped the first without a word (issue 48)."""
    if isinstance(text, (list, tuple)):
        if len(text) > 1:
            raise UsageError(f"--matrix given {len(text)} times ({', '.join(repr(t) for t in text)}): a series varies "
                             "one axis", "keep one --matrix AXIS=V1,V2; for another axis run certify again (one "
                             "series folder each), or fix the other axis with its own option (e.g. --pulsar-version)")
        text = text[0] if text else None
    if not text:
        return None
    axis, _, values = text.partition("=")
    axis = axis.strip()
    versions = tuple(v.strip() for v in values.split(",") if v.strip())
    if axis not in AXES or len(versions) < 2:
        raise UsageError(f"--matrix {text!r}: expected AXIS=V1,V2[,...] with AXIS one of {', '.join(AXES)}",
                         MATRIX_FIX)
    duplicated = sorted({v for v in versions if versions.count(v) > 1})
    if duplicated:
        raise UsageError(f"--matrix {text!r}: {', '.join(duplicated)} given twice (two cells would share a folder)",
                         "name each value once; for repeated runs of one value use --repeat N")
    for value in versions:
        if axis == "pulsar":
            check_release(value, "--matrix pulsar")
        elif axis == "client":
            check_client_release(value, "--matrix client")
        else:  # a protocol's axis: its descriptor's check
            option_of(AXES[axis]).run_check(value, f"--matrix {axis}")
    return Matrix(axis, versions)


# Environment values the tests' process reads, each the value of a certify option. certify hands
# its environment to that process, so an unchecked one ran minutes later with whatever it said
# (a made-up release, a TLS mode that does not exist) and ended the run "unknown".
def _env_options() -> dict[str, tuple[str, str]]:
    """request field -> (variable, option): the Pulsar release's, then each protocol option's."""
    return {"pulsar_version": ("PULSAR_CONFORMANCE_PULSAR_VERSION", "--pulsar-version"),
            **{o.field: (o.env, o.flag) for o in protocol_options()}}


ENV_OPTIONS = _env_options()


def environment_options(args, matrix: Matrix | None, profile: Profile) -> dict[str, str]:
    """The environment values that stand for options the command line leaves out, each checked as
    its option is (a refusal names the variable).

    A value stands for its option so the request, and with it the bundle's configuration and
    reproduce command, says what the tests ran with. The option, or a matrix over its axis, wins:
    the value is then ignored (certify gives the tests' process the option's value) and said so.
    A protocol's option refused by profiles that run none of its declaring protocols (a TLS mode of
    the PIP-188 scenarios) is, for any other profile, checked, not taken (the other tests never read it).
    """
    taken = {}
    for field_name, (variable, flag) in _env_options().items():
        value = os.environ.get(variable, "")
        if not value:  # unset or empty: the tests read both as "the default"
            continue
        if getattr(args, field_name, None) or (matrix and matrix.field == field_name):
            given = flag if getattr(args, field_name, None) else f"--matrix {matrix.axis}=..."
            progress(f"certify: ${variable}={value!r} ignored: {given} decides")
            continue
        if field_name == "pulsar_version":
            _as_environment(field_name, value, lambda v: check_release(v, "--pulsar-version"))
        else:
            _as_environment(field_name, value, option_of(field_name).run_check)
            if not accepts(profile, option_of(field_name)):
                continue
        taken[field_name] = value.strip()  # a value with spaces passed its check only where they do not matter
    return taken


def _as_environment(field_name: str, value: str, check) -> None:
    """``check(value)``, its refusal restated as the environment variable's (the user gave no option)."""
    variable, flag = _env_options()[field_name]
    try:
        check(value)
    except UsageError as error:
        raise UsageError(f"${variable}={value!r} (read as {flag}): {error.problem}",
                         f"unset {variable}, or set it to a value {flag} accepts: {error.fix}") from None


def _check_not_both(args, matrix: Matrix | None) -> None:
    """An option and a matrix over the same axis: which one the runs use would be a guess."""
    if matrix and getattr(args, matrix.field, None):
        flag = "--" + matrix.field.replace("_", "-")
        raise UsageError(f"{flag} and --matrix {matrix.axis}=... both choose the {matrix.axis} release",
                         f"drop {flag}: the matrix runs every value it names")


TOPOLOGIES = ("standalone", "cluster")


def check_topology(topology: str | None, deployment: str | None) -> str:
    """The cluster topology is started by the run on the local backend: refused with an external file
    (it runs what it runs) or containers (not built there yet), before anything starts."""
    if topology in (None, "standalone"):
        return "standalone"
    if topology not in TOPOLOGIES:
        raise UsageError(f"--topology {topology}: not a topology", f"use {' or '.join(TOPOLOGIES)}")
    if deployment not in (None, "local"):
        raise UsageError(f"--topology {topology} starts clusters of the local backend; --deployment is {deployment}",
                         "drop --deployment (the local backend), or drop --topology: an external deployment "
                         "runs the topology it has, and containers run standalones only")
    return topology


# --- checks that look outside: files, clusters, Docker, the JDK, Maven, pip ----------------------------

def deployment_option(value: str | None, profile: Profile | None = None, topology: str | None = None,
                      proxy: bool = False) -> Deployment:
    """``local`` (default), ``containers``, or an external YAML FILE, checked before anything starts
    (reachable, and describing what the profile's protocols need of it); ``topology``: what the run
    starts per cluster, ``standalone`` (default) or ``cluster`` (local backend only), with a Pulsar proxy
    per cluster where ``proxy``."""
    topology = check_topology(topology, value)
    if proxy and topology != "cluster":
        raise UsageError("--proxy puts a Pulsar proxy in front of the cluster topology's brokers, and --topology is "
                         f"{topology}", "add --topology cluster, or leave --proxy out")
    if value in (None, "local"):
        return Deployment("local", topology=topology, proxy=proxy)
    if value == "containers":
        from pulsar_conformance.fixtures.deploy.containers import docker_available

        ok, why = docker_available()
        if not ok:
            raise UsageError(f"--deployment containers needs a Docker engine: {why}",
                             "start Docker, or use --deployment local (the default) or an external FILE")
        return Deployment("containers")
    path = Path(value)
    if not path.is_file():
        raise UsageError(f"deployment file {value} does not exist" if not path.exists()
                         else f"deployment file {value} is not a file",
                         "pass local, containers, or the path of an external deployment YAML (docs/deployments.md)")
    from pulsar_conformance.fixtures.deploy.external import load_external

    external = load_external(path, check=False)
    if profile is not None:
        check_roles(external, profile, value)
    external = load_external(path, check=True)  # malformed or unreachable: refused now, not mid-run
    if profile is not None:
        for protocol in protocols.PROTOCOLS:
            if protocol.area in profile.areas:
                protocol.check_external(external)
    return Deployment("external", str(path.resolve()))


def check_roles(external, profile: Profile, option: str) -> None:
    """Every role the profile's scenarios use (on an external deployment) is a cluster of the file:
    refused before any cluster is reached, naming the role, the profile and the fix."""
    from pulsar_conformance.fixtures.deploy.external import role_fix

    wanted = profile.on("external").roles()
    missing = external.missing_roles(wanted)
    if missing:
        raise UsageError(f"deployment file {option} gives no cluster for role(s) {', '.join(missing)}, which the "
                         f"{profile.name} profile's scenarios use ({', '.join(wanted)})", role_fix(missing))


def _check_version_deployment(version: str | None, option: str | None) -> None:
    """The option alone says the deployment is external: its release is the brokers' to say."""
    if version and option not in (None, "local", "containers"):
        raise UsageError("--pulsar-version chooses the release of the clusters the suite starts; an external "
                         "deployment runs whatever its brokers run, and the bundle reads it from them "
                         "(GET /admin/v2/brokers/version)",
                         "drop --pulsar-version (give the product's own version in the deployment file's "
                         "product: or --product FILE if it differs)")


KEEP_ENV = "PULSAR_CONFORMANCE_KEEP"  # fixtures/deploy/cleanup.KEEP_ENV, which the tests' process reads


def check_keep(given: bool, option: str | None) -> bool:
    """``--keep`` (or ``$PULSAR_CONFORMANCE_KEEP=1``, which stands for it): an external deployment
    leaves what the run created on its clusters. The option alone says the deployment is not external
    (local and container clusters are thrown away whole: there is nothing to keep); the variable is
    then ignored, and said so."""
    local = option in (None, "local", "containers")
    if given and local:
        raise UsageError(f"--keep leaves what the run created on an external deployment's clusters; the "
                         f"{option or 'local'} deployment is stopped and its data removed at the end of the run",
                         "drop --keep, or pass --deployment FILE (docs/deployments.md, 'What a run leaves on your "
                         "clusters')")
    value = os.environ.get(KEEP_ENV, "").strip()
    if value not in ("", "0", "1"):
        raise UsageError(f"${KEEP_ENV}={value[:40]!r} (read as --keep): neither 1 nor 0",
                         f"unset {KEEP_ENV}, or set it to 1 (keep what the run creates) or 0")
    if given or value != "1":
        return given
    if local:
        progress(f"certify: ${KEEP_ENV}=1 ignored: the {option or 'local'} deployment is thrown away whole")
        return False
    progress(f"certify: ${KEEP_ENV}=1 read as --keep: what the run creates stays on the clusters")
    return True


# Spark's own variables (spark_checks/session.py MASTER_ENV, DRIVER_HOST_ENV): spark-submit reads the master
# from $MASTER when no --master is given, and a Spark process its address from $SPARK_LOCAL_IP
SPARK_MASTER_ENV = "MASTER"
SPARK_DRIVER_HOST_ENV = "SPARK_LOCAL_IP"


def check_spark(master: str | None, driver_host: str | None) -> tuple[str | None, str | None]:
    """``--spark-master`` (else ``$MASTER``) and ``--spark-driver-host`` (else ``$SPARK_LOCAL_IP``), checked
    before anything starts: a master Spark would refuse, or a standalone master that does not answer (Spark
    retries one for about a minute, once the tests are minutes in), is exit 64 naming the option or the
    variable it came from. (None, None): the checks run on local[*], as before."""
    named = "--spark-master"
    if master is None and os.environ.get(SPARK_MASTER_ENV, "").strip():
        master, named = os.environ[SPARK_MASTER_ENV].strip(), f"${SPARK_MASTER_ENV}"
    if master is not None:
        try:
            check_master(master, option=named)
        except UsageError as error:
            # the shared fix names check-capture's --master; certify's option is --spark-master
            fix = (error.fix or "").replace("--master ", "--spark-master ")
            if named != "--spark-master":
                fix = f"unset {SPARK_MASTER_ENV}, or set it to a value --spark-master accepts: {fix}"
            raise UsageError(error.problem, fix) from None
    standalone = bool(master) and master.startswith("spark://")
    if driver_host is not None:
        if not standalone:
            raise UsageError(f"--spark-driver-host {driver_host} is the address a spark:// master's executors call "
                             f"the driver back at; the checks run on {master or 'local[*]'}, in this process",
                             "drop --spark-driver-host, or pass --spark-master spark://HOST:PORT too")
        return master, check_driver_host(driver_host, option="--spark-driver-host")
    local_ip = os.environ.get(SPARK_DRIVER_HOST_ENV, "").strip()
    if standalone and local_ip:
        return master, check_driver_host(local_ip, option=f"${SPARK_DRIVER_HOST_ENV}")
    if standalone:
        progress(f"certify: the Spark driver is reached at 127.0.0.1 by the executors of {redact_url(master)}: "
                 "workers on another machine cannot call it back (pass --spark-driver-host ADDRESS)")
    return master, None  # local mode binds loopback (spark_checks/session.py): a driver address is not used


def spark_context(request: CertifyRequest) -> dict | None:
    """The bundle's record of where the capture checks ran (summary.json ``spark``): the master with any
    userinfo masked, and the driver's address; None: local[*], the default."""
    if not request.spark_master:
        return None
    return {"master": redact_url(request.spark_master), "driver_host": request.spark_driver_host}


def spark_flags(request: CertifyRequest) -> list[str]:
    """The reproduce command's Spark options (a master from $MASTER is repeated as the option)."""
    flags = []
    if request.spark_master:
        flags += ["--spark-master", redact_url(request.spark_master)]
    if request.spark_driver_host:
        flags += ["--spark-driver-host", request.spark_driver_host]
    return flags


def _check_matrix_deployment(matrix: Matrix | None, option: str | None) -> None:
    """Before the deployment file is read and its clusters reached: the option alone says it is external."""
    if matrix and matrix.axis == "pulsar" and option not in (None, "local", "containers"):
        raise UsageError("--matrix pulsar=... starts each release on the suite's own clusters; an external "
                         "deployment runs whatever release it runs",
                         "certify each external deployment with a run of its own and compare the bundles "
                         "(docs/ci-gating.md), or drop --deployment to run the matrix on local clusters")


def _check_java_env() -> None:
    """``$PULSAR_CONFORMANCE_JAVA`` pointing at nothing fails every JVM the run starts: say so now."""
    chosen = os.environ.get(JAVA_ENV)
    if chosen is not None and probe(chosen) is None:
        raise UsageError(f"${JAVA_ENV}={chosen!r} is not a working java executable",
                         f"point ${JAVA_ENV} at a JDK's bin/java (Java 17+, 21+ for Pulsar 5), or unset it to let "
                         "the suite pick one")


def _check_releases(request: CertifyRequest) -> None:
    """Each Pulsar release the suite's own clusters will run: a JDK for it, and its jars resolved
    (downloaded once into ~/.m2, which the run needs anyway; a release Maven Central does not serve
    is refused here). The default release is not resolved here: some profiles never start it."""
    if request.deployment.backend not in ("local", "containers"):
        return

    for text in values_of(request, "pulsar_version"):
        version = parse_version(text)
        if request.deployment.backend == "local":  # a container runs its image's own Java
            choose_java(version)
        if request.deployment.proxy:  # the release's own pulsar-proxy too, or the refusal with the fix
            maven.resolve_proxy(maven.resolve(version), version)
        elif text:
            maven.resolve(version)


def _prepare_clients(request: CertifyRequest) -> tuple[tuple[str | None, Any], ...]:
    """Every pulsar-client the runs import, installed (and cached) now and checked against the profile."""
    prepared = []
    for wanted in values_of(request, "client_version"):
        client = _prepare_client(wanted)
        check_client(request.profile, client)
        prepared.append((wanted, client))
    return tuple(prepared)


def _prepare_client(wanted: str | None):
    client = client_versions.prepare(wanted, log=progress)
    if client.version:
        where = (f"{'installed' if client.pip_ran else 'cached'} in {client.path} ({client.seconds:.1f} s)"
                 if client.path else "of this environment")
        progress(f"certify: the tests import pulsar-client {client.version} "
                 f"(C++ {client.cpp_version or 'version not found'}) {where}")
    else:
        progress(f"certify: no pulsar-client importable here ({client.error}); tests that need one will break")
    return client


def check_client(profile: Profile, client) -> None:
    """A profile whose scenarios need a client feature refuses an older client before anything starts."""
    needed = profile.min_client
    if not needed or not client.version:
        return
    if Version(client.version) < Version(needed):
        raise UsageError(f"pulsar-client {client.version} cannot run the {profile.name} profile: it needs {needed} or "
                         f"later ({profile.min_client_why})",
                         f"pass --client-version {needed} or later, or certify another profile with {client.version}")
