"""Subcommands of this area: ``certify`` (see reports/runner/certify.py and docs/certify.md), ``compare`` and ``releases``.

This is the edge: argparse's options become a checked request here (reports/runner/request.py,
reports/view/compare_page.CompareRequest) and nothing below reads argparse. Exit codes: docs/ci-gating.md.
"""
from __future__ import annotations

from pulsar_conformance.conformance.profiles import PROFILES
from pulsar_conformance.protocols import declaring, protocol_options

from .product import check_deployment_product, check_option

# Each command's module is imported by its handler (marked lazy:): every command of every area is
# registered at each start-up, and results, compare, releases_table, certify and request together
# would add about 25 ms to each (measured with -X importtime), `spec list` and --help included.


def register(commands) -> None:
    p = commands.add("certify", _certify,
                     "run a certification profile against a deployment and write a bundle "
                     "(exit 0 pass, 1 fail, 2 unknown, 64 bad input, 130 interrupted)")
    p.add_argument("--profile", required=True, metavar="P",
                   help=f"one of: {', '.join(PROFILES)}").completions = tuple(PROFILES)  # completion.py
    p.add_argument("--deployment", default=None, metavar="local|containers|FILE",
                   help="local (default: embedded JVM brokers, started and stopped by the run), containers, "
                        "or an external deployment YAML (docs/deployments.md)")
    p.add_argument("--topology", default=None, metavar="standalone|cluster",
                   help="what the local deployment runs per cluster: standalone (default, one JVM) or cluster "
                        "(ZooKeeper, 2 bookies, 2 brokers; docs/deployments.md)")
    p.add_argument("--proxy", action="store_true",
                   help="with --topology cluster: a Pulsar proxy per cluster in front of its brokers (failover "
                        "clients connect through it, and a half-dead cluster is generated: its brokers down, its proxy "
                        "answering); the release's own pulsar-proxy, which Maven Central here serves for 3.0.0 of the "
                        "releases that run here")
    p.add_argument("--pulsar-version", default=None, help="Pulsar release the local deployment runs")
    p.add_argument("--client-version", default=None, metavar="V",
                   help="pulsar-client release the tests import (default: this environment's); another release "
                        "is installed once into <state dir>/clients/ and put first on the tests' PYTHONPATH")
    _protocol_options(p, PROFILES)
    p.add_argument("--out", default=None, help="bundle directory, new or empty (default reports/certify-<time>-<profile>/)")
    p.add_argument("--exclude", action="append", default=[], metavar="REQ[,REQ]",
                   help="narrow the profile: certify without these requirement ids (recorded in the bundle "
                        "and shown on the report's banner); without it every requirement the profile "
                        "certifies must get a verdict or the run is unknown")
    p.add_argument("--select", default=None, metavar="EXPR",
                   help="narrow the profile to the tests matching this pytest -k expression (recorded in the "
                        "bundle and shown on the banner); requirements the profile certifies that the "
                        "selection leaves without a verdict keep the run from passing unless --exclude names them")
    p.add_argument("--allow-irreversible", action="store_true",
                   help="external deployment: also run the scenarios that change a cluster for good (a "
                        "cluster-level migration); without it they are deselected and the report says so")
    p.add_argument("--keep", action="store_true",
                   help="external deployment: leave the tenants, namespaces and topics the run created on the "
                        "clusters (deleted at the end otherwise, also after Ctrl-C; the bundle's cleanup.json "
                        "says what was deleted and what stays)")
    p.add_argument("--spark-master", default=None, metavar="URL",
                   help="where the capture checks run: local[*] (default), local[N] or spark://HOST:PORT of a Spark "
                        "standalone master (default $MASTER, as spark-submit reads it), checked to answer before "
                        "anything starts (docs/spark-checks.md)")
    p.add_argument("--spark-driver-host", default=None, metavar="HOST",
                   help="with a spark:// master: the address of this machine its executors call the driver back at "
                        "(default $SPARK_LOCAL_IP, else 127.0.0.1, which only workers on this machine reach)")
    p.add_argument("--seed", type=int, default=1, help="seed of the scenarios and of Hypothesis (default 1)")
    p.add_argument("--repeat", type=int, default=1, metavar="N",
                   help="N runs, each on a fresh deployment with seeds SEED..SEED+N-1, each a bundle in OUT/run-i; "
                        "OUT/summary.json counts each requirement's verdicts (pass 2/3) and marks the intermittent ones")
    p.add_argument("--matrix", default=None, action="append", metavar="AXIS=V1,V2",
                   help=_matrix_help())
    p.add_argument("--vendor", default=None, help="PRODUCT.yaml vendor (default from the deployment file)")
    p.add_argument("--product", default=None, metavar="NAME|FILE",
                   help="PRODUCT.yaml: the product's name, or a YAML file (ending .yaml/.yml) with vendor, name, "
                        "version, website_url, documentation_url, type (distribution, hosted, installer, managed) "
                        "and contact_email_address, optionally product_logo_url, repo_url, description "
                        "(docs/certify.md; default: the deployment file's product:, else Apache Pulsar as released)")


    p = commands.add("compare", _compare,
                     "certification bundles side by side per requirement; exit 1 when a requirement that "
                     "passed in the first bundle fails in a later one (a regression), 2 when a later bundle is "
                     "unknown or has no verdict for a requirement that passed in the first, 64 on bundles "
                     "that cannot be compared")
    p.add_argument("bundles", nargs="+", metavar="BUNDLE", help="bundle directories (or summary.json), baseline first")
    p.add_argument("--html", default=None, metavar="FILE", help="also write the table as an HTML page")

    p = commands.add("releases", _releases,
                     "the per-release, per-requirement table of certification bundles, --repeat and --matrix "
                     "folders (verdict, k/n runs, findings; release differences told from differences a suite "
                     "commit, options or a single run could explain) as releases.md and releases.html "
                     "(exit 0 written, 64 bad input)")
    p.add_argument("bundles", nargs="+", metavar="BUNDLE_OR_DIR",
                   help="bundle directories (or summary.json), or the folders certify --repeat/--matrix wrote")
    p.add_argument("--out", default=None, metavar="DIR",
                   help="where releases.md and releases.html are written (default reports/releases-<time>/)")


    p = commands.add("results", _results,
                     "what a certification bundle (folder or .tar.gz) says: verdict, certified requirements, "
                     "failures with evidence and findings; checked against its SHA-256 manifest first "
                     "(exit: the run's verdict 0/1/2, 130 interrupted; 64 not a bundle or not matching its manifest)")
    p.add_argument("bundle", metavar="BUNDLE|ARCHIVE", help="the folder certify wrote, its summary.json or its .tar.gz")

    p = commands.add("verify", _verify,
                     "check a certification bundle (folder or .tar.gz) against its SHA-256 manifest "
                     "(exit 0 every file matches, 1 a file changed, is missing or was added, 2 no manifest, "
                     "64 not a bundle)")
    p.add_argument("bundle", metavar="BUNDLE|ARCHIVE", help="the folder certify wrote or its .tar.gz")


def _protocol_options(p, profiles) -> None:
    """The options only some protocols' scenarios read, from their descriptors, each help naming the
    profiles that accept it (pulsar_conformance/protocols ProtocolOption)."""
    for o in protocol_options():
        if o.only_its_profiles:
            own = [d.area for d in declaring(o)]
            names = own + [name for name, profile in profiles.items()
                           if name not in own and any(area in profile.areas for area in own)]
            where = f"profiles: {', '.join(names)}"
        else:
            where = f"read by the {', '.join(d.area for d in declaring(o))} scenarios"
        p.add_argument(o.flag, default=None, metavar=o.metavar, help=f"{o.help} ({where})")


def _matrix_help() -> str:
    axes = [o for o in protocol_options() if o.axis]
    releases = ["pulsar=4.0.1,4.2.4", "client=3.4.0,3.13.0",
                *(f"{o.axis}={o.example}" for o in axes if o.configuration_default is None)]
    configurations = [f"{o.axis}={o.example}" for o in axes if o.configuration_default is not None]
    text = f"run the profile per release: {', '.join(releases[:-1])} or {releases[-1]}"
    if configurations:
        text += f", or per configuration: {' or '.join(configurations)}"
    return (text + " (baseline first); each a bundle in OUT/AXIS-V, and OUT/compare.html side by side "
            "(exit 1 when any run fails)")


def _results(args) -> int:
    from ..bundle.results import run_results  # lazy: start-up (tarfile, the archive)

    return run_results(args.bundle, args)


def _verify(args) -> int:
    from ..bundle.results import run_verify  # lazy: start-up (tarfile, the archive)

    return run_verify(args.bundle, args)


def _compare(args) -> int:
    from ..view.compare_page import compare_request, run_compare  # lazy: start-up, one command's module

    return run_compare(compare_request(args.bundles, args.html, args.json))


def _releases(args) -> int:
    # lazy: start-up, it loads the catalog, the verdicts and the series
    from ..view.releases_table import releases_request, run_releases

    return run_releases(releases_request(args.bundles, args.out, args.json))


def _certify(args) -> int:
    # lazy: start-up, certify and request bring the profile runner, releases and timings (about 10 ms)
    from .certify import run_certify
    from .request import certify_request  # lazy: start-up, as above
    from .series import run_series  # lazy: start-up, as above

    # PRODUCT.yaml's input is checked with the cheap checks, before certify_request looks outside
    args.product = check_option(args.product)
    check_deployment_product(args.deployment)
    require_tools(args)
    # the tests' process gets every value of the request in one file (fixtures/request_file.py), no variable
    request = certify_request(args)
    # a series (--repeat, --matrix) runs certify_once per cell; certify itself knows one run
    return run_series(request) if request.is_series else run_certify(request)


def backend_of(deployment: str | None) -> str:
    """``--deployment`` as a backend: local (none given), containers, or external (a file)."""
    if deployment in (None, "local"):
        return "local"
    return "containers" if deployment == "containers" else "external"


def require_tools(args) -> None:
    """Every system tool the profile runs on its backend present, before anything starts: exit 64 with the
    fix (pulsar-conformance setup --yes FEATURE) otherwise. The smoke run without Go once ran minutes
    and ended UNKNOWN when PIP-454's scenario came to build Oxia."""
    # lazy: start-up: the tool check reads the distribution's packages only for certify
    from pulsar_conformance import debian
    from pulsar_conformance.conformance.profiles import get_profile, tools  # lazy: start-up, as above

    profile = get_profile(args.profile)
    releases = tuple(r for r in [args.pulsar_version] if r)
    # --matrix may be given more than once (action="append"): request.parse_matrix refuses that, after this
    for matrix in args.matrix or ():
        if matrix.startswith("pulsar="):
            releases += tuple(v.strip() for v in matrix.split("=", 1)[1].split(",") if v.strip())
    for name in tools(profile, backend_of(args.deployment), releases, args.select):
        try:
            debian.require(name)
        except debian.MissingPackages as missing:
            raise debian.MissingPackages(missing.feature, missing.missing,
                                         needed_by=f"certify --profile {profile.name}") from None
