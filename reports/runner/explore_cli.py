"""``explore --live PROFILE``: generated schedules on real clusters (docs/exploring.md).

The request is certify's (profile, deployment, release, clients, the protocols' options), so an explore
run starts, records and bundles as a certification does; what it adds is the search: a budget, a seed,
how long a schedule may be, how many replays a failure gets, or a schedule file to replay. Exit codes
as certify's: 0 nothing failed in any schedule, 1 a requirement failed in some schedule, 2 nothing
could be judged, 64 bad input (nothing started), 130 interrupted.
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import os
import re
from datetime import UTC, datetime
from types import SimpleNamespace

from pulsar_conformance.conformance.profiles import PROFILES
from pulsar_conformance.errors import EXIT_FAIL, EXIT_PASS, EXIT_UNKNOWN, UsageError
from pulsar_conformance.output import emit, progress

from .cli import _protocol_options, require_tools  # the same options and checks certify has

# the profiles with a live adapter, and the explore test of each (conformance/explore/test_explore_live.py)
ADAPTERS = {"geo-replication": "test_explore_geo_replication", "tenant-migration": "test_explore_tenant_migration", "policy-sync": "test_explore_policy_sync",
            "client-failover": "test_explore_client_failover", "cluster-migration": "test_explore_cluster_migration",
            "metadata-migration": "test_explore_metadata_migration"}
# the profiles whose every schedule changes a cluster for good (a fresh one each): never an operator's
ON_OWN_CLUSTERS_ONLY = {"metadata-migration": "an operator's cluster can be migrated once, and every schedule migrates one"}
_DURATION = re.compile(r"^(\d+(?:\.\d+)?)(s|m|h)?$")
MAX_BUDGET_S = 24 * 3600


def register(commands) -> None:
    p = commands.add("explore", _explore,
                     "generated schedules on real clusters: the spec says which tester steps exist and what must "
                     "hold, Hypothesis picks the steps, the deployment performs them, certify's judges check each "
                     "schedule's history; failures shrunk and replayed (exit 0 nothing failed, 1 a requirement "
                     "failed in some schedule, 2 nothing judged, 64 bad input, 130 interrupted)")
    p.add_argument("--live", action="store_true", required=True,
                   help="run on a deployment (the only mode: exploring a spec alone is `spec explore`)")
    p.add_argument("profile", nargs="?", default=None, metavar="PROFILE",
                   help=f"one of: {', '.join(ADAPTERS)} (with --replay: the schedule's own, if not given)")
    p.add_argument("--replay", default=None, metavar="SCHEDULE",
                   help="run this schedule file (failing/<schedule>.json of an explore bundle) instead of generating")
    p.add_argument("--repeat", type=int, default=1, metavar="N", help="with --replay: run it N times (default 1)")
    p.add_argument("--budget", default="5m", metavar="DURATION",
                   help="how long to generate schedules (90s, 20m, 1h; default 5m); shrinking a failure may take "
                        "half as long again")
    p.add_argument("--seed", type=int, default=1, help="Hypothesis' seed (default 1)")
    p.add_argument("--max-steps", type=int, default=12, metavar="N", help="tester steps per schedule at most (default 12)")
    p.add_argument("--max-schedules", type=int, default=None, metavar="N",
                   help="also stop generating after N schedules (a search of a known size whatever the machine's "
                        "load, e.g. a CI gate; shrinking and replays come on top)")
    p.add_argument("--replays", type=int, default=3, metavar="N",
                   help="replays of each failure's smallest schedule (default 3; a finding needs it to fail in 2 of 3)")
    p.add_argument("--deployment", default=None, metavar="local|containers|FILE",
                   help="as certify's: local (default), containers, or an external deployment YAML, on which only "
                        "the faults its file declares are generated")
    p.add_argument("--topology", default=None, metavar="standalone|cluster", help="as certify's")
    p.add_argument("--proxy", action="store_true", help="as certify's: a Pulsar proxy per cluster (--topology cluster)")
    p.add_argument("--pulsar-version", default=None, help="Pulsar release the local deployment runs")
    p.add_argument("--client-version", default=None, metavar="V", help="pulsar-client release the tests import")
    _protocol_options(p, PROFILES)
    p.add_argument("--out", default=None, help="bundle directory, new or empty (default reports/explore-<time>-<profile>/)")


def parse_budget(text: str) -> float:
    found = _DURATION.match(text.strip()) if isinstance(text, str) else None
    if not found:
        raise UsageError(f"--budget {text!r} is not a duration", "write seconds, minutes or hours: 90s, 20m, 1h")
    seconds = float(found.group(1)) * {"s": 1, None: 1, "m": 60, "h": 3600}[found.group(2)]
    if not 10 <= seconds <= MAX_BUDGET_S:
        raise UsageError(f"--budget {text}: {seconds:.0f} s is outside 10 s to 24 h",
                         "give a budget a schedule fits in, e.g. 5m")
    return seconds


def _bounded(value: int, option: str, low: int, high: int) -> int:
    if not low <= value <= high:
        raise UsageError(f"{option} {value} is outside {low}..{high}", f"give {option} a whole number from {low} to {high}")
    return value


def explore_request(args):
    """(certify's request, the explore request) of ``args``, or the UsageError of the first bad value;
    nothing is started and nothing written."""
    # lazy: start-up, as certify's handler (the request brings the profile runner and the releases)
    from pulsar_conformance.conformance.explore import schedule as schedules
    from pulsar_conformance.conformance.explore.machine import Settings
    from pulsar_conformance.conformance.explore.settings import Request

    # lazy: start-up, as certify's handler
    from pulsar_conformance.reports.runner.request import certify_request

    replay = schedules.read(args.replay, args.profile) if args.replay else None
    profile = args.profile or (replay.protocol if replay else None)
    if profile is None:
        raise UsageError("explore --live needs a PROFILE", f"name one of: {', '.join(ADAPTERS)}")
    if profile not in ADAPTERS:
        raise UsageError(f"no live adapter for profile {profile!r} yet",
                         f"explore one of: {', '.join(ADAPTERS)} (docs/exploring.md says which protocols have one)")
    if profile in ON_OWN_CLUSTERS_ONLY and args.deployment not in (None, "local"):
        raise UsageError(f"explore --live {profile} runs on the suite's own clusters only: {ON_OWN_CLUSTERS_ONLY[profile]}",
                         f"leave out --deployment (a fresh local cluster per schedule), or certify yours with "
                         f"certify --profile {profile} --deployment FILE")
    if args.repeat != 1 and not args.replay:
        raise UsageError("--repeat goes with --replay", "replay a schedule file N times: --replay FILE --repeat N")
    settings = Settings(budget_s=parse_budget(args.budget), max_steps=_bounded(args.max_steps, "--max-steps", 1, 100),
                        replays=_bounded(args.replays, "--replays", 0, 20), seed=args.seed,
                        max_schedules=None if args.max_schedules is None else
                        _bounded(args.max_schedules, "--max-schedules", 1, 100_000))
    _bounded(args.repeat, "--repeat", 1, 100)
    certify_args = SimpleNamespace(**{**vars(args), "profile": profile, "exclude": [], "select": ADAPTERS[profile],
                                      "repeat": 1, "matrix": None, "vendor": None, "product": None, "keep": False,
                                      "allow_irreversible": False, "java_client_version": getattr(args, "java_client_version", None)})
    if args.out is None:
        certify_args.out = f"reports/explore-{datetime.now(UTC):%Y%m%d-%H%M%S}-{profile}"
    require_tools(certify_args)  # the system tools the profile's selection needs, before anything starts
    request = certify_request(certify_args)
    # the child's pytest timeout is a certification's per-test bound (20 min for most profiles), which a 20-minute
    # budget with its shrinking, replays and the Spark checks at the end overran (a client-failover run was killed
    # in its Spark checks at 1200 s, its exploration unwritten): an explore test gets room for all of them
    room = dataclasses.replace(request.profile, scenario_timeout_s=explore_timeout_s(
        request.profile.scenario_timeout_s, settings.budget_s, replayed=replay is not None, repeat=args.repeat))
    return (dataclasses.replace(request, profile=room),
            Request(profile, settings, replay.to_json() if replay else None, args.repeat))


# what an explore test may take beyond its budget: shrinking (half the budget for each new failure), the replays of
# each failure's smallest schedule, Spark over every capture; a bound against a hung run, not a target
EXPLORE_MARGIN_S = 1800


def explore_timeout_s(profile_timeout_s: int, budget_s: float, *, replayed: bool, repeat: int) -> int:
    """The child's pytest timeout for an exploration: never less than the profile's; a generating run gets its
    budget three times over (generation, shrinking windows) and the margin; a replay, the profile's bound per
    repeat."""
    if replayed:
        return profile_timeout_s * max(repeat, 1)
    return max(profile_timeout_s, int(3 * budget_s) + EXPLORE_MARGIN_S)


def exit_code(summary: dict, *, finished: bool = True) -> int:
    """0 nothing failed in any schedule, 1 a requirement failed in some schedule, 2 nothing could be judged;
    ``finished``: the exploration wrote its explore.json. One that did not (killed by its timeout while Spark judged
    its schedules) is 2 unless a recorded row failed: the rows it recorded before are a part, never a pass."""
    verdicts = [r.get("verdict") for r in summary.get("requirements") or []]
    if "fail" in verdicts:
        return EXIT_FAIL
    return EXIT_PASS if finished and "pass" in verdicts else EXIT_UNKNOWN


def _explore(args: argparse.Namespace) -> int:
    # lazy: start-up, as certify's handler
    from pulsar_conformance.conformance.explore.settings import ENV, write

    # lazy: start-up, as certify's handler
    from pulsar_conformance.reports.runner.certify import certify_once

    request, asked = explore_request(args)
    request.out.mkdir(parents=True, exist_ok=True)
    os.environ[ENV] = str(write(request.out, asked))  # certify's child reads it (settings.read)
    progress(f"explore: {asked.protocol}, budget {asked.settings.budget_s:.0f} s, seed {asked.settings.seed}"
             + (f", replaying {args.replay} x{asked.repeat}" if asked.replay else ""))
    summary = certify_once(request)
    doc = _read_explore(request.out)
    code = exit_code(summary, finished=bool(doc))
    emit(args, {"verdict": {0: "pass", 1: "fail", 2: "unknown"}[code], "bundle": str(request.out), "explore": doc},
         lambda: text(doc, request.out))
    return code


def _read_explore(out) -> dict:
    path = out / "explore.json"
    return json.loads(path.read_text()) if path.exists() else {}


def text(doc: dict, out) -> str:
    if not doc:
        return f"explore: no schedule ran (see {out / 'report.html'})"
    cov = doc["coverage"]
    lines = [f"explore: {doc['schedules']} schedules, {doc['steps']} steps in {doc['seconds']:.0f} s "
             f"({doc['schedules_per_minute']} schedules/min, {doc['steps_per_minute']} steps/min); "
             f"verdicts {doc['verdicts']}",
             f"coverage: {len(cov['actions']) - len(cov['actions_never_run'])} of {len(cov['actions'])} actions, "
             f"{len(cov['pairs'])} of {cov['pairs_possible']} ordered pairs, {cov['abstract_states_reached']} of "
             f"{cov['abstract_states_of_spec']} abstract spec states"]
    for c in doc.get("candidates") or []:
        lines.append(f"candidate {c['schedule']}: {c['steps']} steps (shrunk from {c['shrunk_from']['steps']}), "
                     f"replayed {c['replayed']} failing: {c['status']}; {out / c['file']}")
    if doc.get("faults_not_generated"):
        lines.append(f"not generated (the deployment cannot): {', '.join(doc['faults_not_generated'])}")
    lines.append(f"report: {out / 'report.html'}")
    return "\n".join(lines)
