"""``plan``: what a certification of an external deployment can judge, before it runs (issue 32).

``pulsar-conformance plan --deployment FILE --profile P [--json] [--allow-irreversible] [--offline]``
lists, per requirement the profile certifies, whether it can be judged on this deployment and, if
not, what is missing with the fix: a role the file does not map, a fault without a command, a
broker setting read from the clusters' runtime configuration, a requirement the protocol's scenarios cannot
judge on an external deployment at all (its ``external_gaps``), scenarios deselected as irreversible. It also
lists every fault command the file names (the program resolved on PATH) and what the run creates and changes on
the clusters.

The judgement is per protocol (descriptors' ``roles``, ``faults``, ``broker_settings``,
``irreversible``, ``external_gaps``): a requirement is "judged" when everything its protocol's
scenarios need is there, "partly" when some scenarios will be unknown for want of a fault
command or a setting, "not judged" when none can run.

Runtime configuration (``GET /admin/v2/brokers/configuration/runtime``, super-user only) holds
secrets (``brokerClientAuthenticationParameters``, key paths): only the keys the descriptors name
(``ALLOWED``) are kept, and nothing else of the answer is stored or printed.
"""
from __future__ import annotations

from itertools import permutations
from pathlib import Path

from pulsar_conformance import protocols  # protocols.PROTOCOLS read at call time (tests add one)
from pulsar_conformance.conformance.profiles import PROFILES, get_profile
from pulsar_conformance.errors import EXIT_PASS, EXIT_UNKNOWN, UsageError
from pulsar_conformance.output import emit

LINK_ACTIONS = ("cut", "heal", "cut_one_way", "heal_one_way")


def register(commands) -> None:
    p = commands.add("plan", _plan,
                     "what a certification of an external deployment can judge, per requirement, and what it "
                     "will create and change, before anything runs (exit 0 every requirement can be judged, 2 some "
                     "cannot: partly or not judged, as a certification would leave them unknown; 64 bad input)")
    p.add_argument("--deployment", required=True, metavar="FILE", help="the external deployment's YAML file")
    p.add_argument("--profile", required=True, metavar="P", help=f"one of: {', '.join(PROFILES)}")
    p.add_argument("--allow-irreversible", action="store_true",
                   help="plan as certify --allow-irreversible would run (irreversible scenarios included)")
    p.add_argument("--offline", action="store_true",
                   help="do not reach the clusters (broker settings then stay unknown)")


def allowed_settings() -> set[str]:
    return {_condition(s)[0] for p in protocols.PROTOCOLS for s in p.broker_settings}


def _scope(text: str) -> tuple[str | None, str]:
    """``role:condition`` -> (role, condition): the setting is wanted on that role's cluster alone (PIP-188's
    migration task runs on blue; green keeps its default); a bare condition is wanted on every role's cluster."""
    role, sep, rest = text.partition(":")
    if sep and role and not any(c in role for c in "=!/"):
        return role, rest
    return None, text


def _condition(text: str) -> tuple[str, str, str | None]:
    """``[role:]key``, ``key=value`` or ``key!=value`` -> (key, operator, value)."""
    text = _scope(text)[1]
    for op in ("!=", "="):
        if op in text:
            key, _, value = text.partition(op)
            return key, op, value
    return text, "set", None


def _plan(args) -> int:
    from pulsar_conformance.fixtures.deploy.external import load_external

    profile = get_profile(args.profile).on("external")
    path = Path(args.deployment)
    if not path.is_file():
        raise UsageError(f"deployment file {args.deployment} does not exist",
                         "pass the path of an external deployment YAML (docs/deployments.md)")
    deployment = load_external(path, check=False)
    deployment.check_files()  # a certificate or key that cannot be used is refused before anything connects
    document = masked(make_plan(deployment, profile, allow_irreversible=args.allow_irreversible,
                                read_settings=not args.offline), deployment.runner.hide)
    emit(args, document, lambda: text(document))
    return exit_code(document)


def exit_code(plan: dict) -> int:
    """0 when a certification can judge every requirement of the profile, 2 (unknown, as docs/certify.md's
    table has it) when some requirement would be left unknown: partly or not judged, e.g. for a fault whose
    command is missing or whose program cannot run here. The plan is printed either way."""
    return EXIT_PASS if all(r["status"] == "judged" for r in plan["requirements"]) else EXIT_UNKNOWN


def masked(node, hide):
    """``node`` with every string passed through ``hide`` (the deployment's known secrets and every credential
    shaped like one): a fault command's argv may carry an ``Authorization: Bearer ...`` header."""
    if isinstance(node, dict):
        return {k: masked(v, hide) for k, v in node.items()}
    if isinstance(node, list):
        return [masked(v, hide) for v in node]
    return hide(node) if isinstance(node, str) else node


def make_plan(deployment, profile, *, allow_irreversible: bool = False, read_settings: bool = True) -> dict:
    from ..bundle.verdicts import (
        load_requirements,  # lazy: start-up, the catalog and the findings (about 5 ms)
    )

    requirements = {r.id: r for r in load_requirements()}
    declared = profile.declared(requirements.values())
    settings = _settings(deployment, profile, read_settings)
    protocols = {p.area: p for p in profile.protocols()}
    per_protocol = {area: _protocol(deployment, p, settings, allow_irreversible) for area, p in protocols.items()}
    rows = []
    for rid in declared:
        area = requirements[rid].area
        judged = per_protocol.get(area) or {"status": "not judged", "missing": [{
            "what": f"no live scenario of this profile covers {area}", "fix": "certify its own profile"}]}
        judged = _gaps(judged, rid, protocols.get(area))
        rows.append({"requirement": rid, "area": area, "status": judged["status"], "missing": judged["missing"]})
    return {"deployment": deployment.source, "profile": profile.name,
            "roles": {r: deployment.cluster_of(r) for r in profile.roles()},
            "requirements": rows,
            "counts": {s: sum(1 for r in rows if r["status"] == s) for s in ("judged", "partly", "not judged")},
            "faults": deployment.fault_book.describe(),
            "settings": settings,
            "irreversible": _irreversible(profile, allow_irreversible),
            "creates": _creates(deployment, profile, allow_irreversible)}


def _protocol(deployment, protocol, settings: dict, allow_irreversible: bool) -> dict:
    missing_roles = deployment.missing_roles(protocol.roles)
    if missing_roles:
        from pulsar_conformance.fixtures.deploy.external import role_fix

        return {"status": "not judged", "missing": [{"what": f"role {r} maps to no cluster of the file",
                                                     "fix": role_fix([r])} for r in missing_roles]}
    missing = []
    for action in protocol.faults:
        lacking = lacking_fault(deployment, protocol.roles, action)
        cannot = unrunnable_fault(deployment, protocol.roles, action)
        absent = [x for x in lacking if x not in cannot]
        component, _, name = action.rpartition(".")
        where = "link: <peer>: " if action in LINK_ACTIONS else f"{component or 'cluster'}: "
        if absent:
            missing.append({"what": f"fault '{action}' has no command for {', '.join(absent)}: the scenarios "
                                    "that need it will be unknown",
                            "fix": f"add faults: <cluster>: {where}{name}: {{argv: [...]}} (docs/deployments.md)"})
        for at, why in cannot.items():
            missing.append({"what": f"fault '{action}' for {at} names a program that cannot run here ({why}): the "
                                    "scenarios that need it will be unknown",
                            "fix": "install the program, or give argv[0] as the absolute path of an executable file "
                                   "(a script starting with #!), on the machine certify runs on"})
    for scoped in protocol.broker_settings:
        only, wanted = _scope(scoped)
        key, op, value = _condition(wanted)
        for role in (protocol.roles if only is None else (only,)):
            cluster = deployment.cluster_of(role)
            seen = settings.get(cluster, {})
            if "error" in seen:
                missing.append({"what": f"broker setting {key} on {cluster} unknown ({seen['error']})",
                                "fix": "give the plan a super-user role's credentials, or check the setting by hand"})
                break
            actual = seen.get(key)
            ok = (actual not in (None, "") if op == "set" else
                  (actual == value) if op == "=" else (actual is not None and actual != value))
            if not ok:
                missing.append({"what": f"broker setting {key} on {cluster} is {actual!r}, the verdicts need "
                                        f"{wanted}", "fix": f"set {key} on {cluster}'s brokers (its default leaves "
                                                            "the requirement's state unreached)"})
    if protocol.irreversible and not allow_irreversible:
        missing.append({"what": f"{len(protocol.irreversible)} irreversible scenario(s) deselected: "
                                + ", ".join(protocol.irreversible),
                        "fix": "pass --allow-irreversible to certify ("
                               + (protocol.irreversible_change.format(**{r: deployment.cluster_of(r) for r in protocol.roles})
                                  or "what they change") + " cannot be undone)"})
    return {"status": "partly" if missing else "judged", "missing": missing}


def _gaps(judged: dict, rid: str, protocol) -> dict:
    """A protocol's ``external_gaps``: a requirement its scenarios cannot judge on an external deployment is not
    judged; a limit on every requirement ("*") makes each at most partly judged."""
    gaps = protocol.external_gaps if protocol is not None else {}
    if judged["status"] == "not judged" or not (rid in gaps or "*" in gaps):
        return judged
    if rid in gaps:
        return {"status": "not judged", "missing": [*judged["missing"], {
            "what": gaps[rid], "fix": "certify it on the suite's own clusters (--deployment local)"}]}
    return {"status": "partly", "missing": [*judged["missing"], {
        "what": gaps["*"], "fix": "certify once per scenario, each on a fresh cluster"}]}


def lacking_fault(deployment, roles, action: str) -> list[str]:
    """The clusters (or ``a -> b`` links) among ``roles`` whose file gives no command for ``action`` (a link action,
    a cluster action, or ``component.action``) that can run here; a restart is given by stop (or kill) and start.
    A command whose program does not exist, or cannot be executed, gives nothing: its fault cannot be injected
    (``unrunnable_fault`` says why)."""
    book = deployment.fault_book

    def runs(template) -> bool:
        return template is not None and template.runnable()[0] is not None

    if action in LINK_ACTIONS:
        pairs = permutations([deployment.cluster_of(r) for r in roles], 2)
        return [f"{a} -> {b}" for a, b in pairs if not runs(book.template(a, action, peer=b))]
    lacking = []
    component, _, action = action.rpartition(".")  # "oxia.kill": the oxia component's kill
    for role in roles:
        cluster = deployment.cluster_of(role)
        has = runs(book.template(cluster, action, component=component or "cluster"))
        if action == "restart" and not has:  # stop (or kill) then start does it
            has = runs(book.template(cluster, "start")) and (
                runs(book.template(cluster, "stop")) or runs(book.template(cluster, "kill")))
        if not has:
            lacking.append(cluster)
    return lacking


def unrunnable_fault(deployment, roles, action: str) -> dict[str, str]:
    """The clusters (or links) among ``roles`` whose file gives a command for ``action`` whose program cannot run
    here, each with why (fault_commands.Template.runnable)."""
    book = deployment.fault_book
    found: dict[str, str] = {}

    def check(at: str, template) -> None:
        if template is not None:
            program, why = template.runnable()
            if program is None:
                found[at] = f"{template.argv[0]}: {why}"

    if action in LINK_ACTIONS:
        for a, b in permutations([deployment.cluster_of(r) for r in roles], 2):
            check(f"{a} -> {b}", book.template(a, action, peer=b))
        return found
    component, _, name = action.rpartition(".")
    for role in roles:
        cluster = deployment.cluster_of(role)
        check(cluster, book.template(cluster, name, component=component or "cluster"))
    return found


def _settings(deployment, profile, read: bool) -> dict:
    """The allow-listed broker settings of each cluster the profile uses (or why they are unknown)."""
    wanted = {_condition(s)[0] for p in profile.protocols() for s in p.broker_settings}
    if not wanted:
        return {}
    allowed = allowed_settings()
    found: dict = {}
    for role in profile.roles():
        cluster = deployment.cluster_of(role)
        if cluster is None or cluster in found:
            continue
        if not read:
            found[cluster] = {"error": "not read (--offline)"}
            continue
        try:
            answer = deployment[cluster].admin().runtime_config(timeout=10)
        except Exception as error:  # noqa: BLE001 - AdminError, or a cluster that cannot be reached
            status = getattr(error, "status", None)
            why = ("the runtime configuration needs a super-user role" if status in (401, 403)
                   else f"HTTP {status}" if status else
                   # an OAuth2 issuer that gave no token says what it answered (masked, oauth2.TokenRefused)
                   error.problem if isinstance(error, UsageError) else f"no answer ({type(error).__name__})")
            found[cluster] = {"error": why}
            continue
        # only the allow-list survives: the answer holds every setting, secrets included
        found[cluster] = {k: str(v) for k, v in (answer or {}).items() if k in allowed and k in wanted} \
            if isinstance(answer, dict) else {"error": "the answer is not a JSON object"}
    return found


def _irreversible(profile, allowed: bool) -> dict:
    scenarios = [s for p in profile.protocols() for s in p.irreversible]
    return {"scenarios": scenarios, "allowed": allowed,
            "run": "yes (--allow-irreversible)" if allowed else "no: deselected; certify --allow-irreversible runs them"}


def _creates(deployment, profile, allowed: bool) -> list[str]:
    out = []
    for p in profile.protocols():
        names = ", ".join(f"{r} = {deployment.cluster_of(r)}" for r in p.roles)
        out.append(f"{p.area}: tenants, namespaces (replicated across {names}), topics and subscriptions of its "
                   "scenarios; deleted at the end of the run, also after Ctrl-C, unless certify --keep (the bundle's "
                   "cleanup.json says what stays; docs/deployments.md, 'What a run leaves on your clusters')")
        if p.faults:
            out.append(f"{p.area}: runs the file's fault commands {', '.join(p.faults)} (with evidence in the bundle)")
        if p.irreversible and allowed:
            change = p.irreversible_change.format(**{r: deployment.cluster_of(r) for r in p.roles})
            out.append(f"{p.area}: {change}: irreversible")
    return out


def text(plan: dict) -> str:
    lines = [f"plan: profile {plan['profile']} on {plan['deployment']}",
             "roles: " + ", ".join(f"{r} -> {c or 'MISSING'}" for r, c in plan["roles"].items()),
             "requirements: " + ", ".join(f"{n} {s}" for s, n in plan["counts"].items()), ""]
    for row in plan["requirements"]:
        lines.append(f"  {row['requirement']:<14} {row['status']}")
        for m in row["missing"]:
            lines.append(f"      missing: {m['what']}\n      fix: {m['fix']}")
    lines.append("")
    lines.append("fault commands:" if plan["faults"] else "fault commands: none (faults: absent)")
    for f in plan["faults"]:
        where = f"{f['cluster']} {f['component']}" + (f" -> {f['peer']}" if f["peer"] else "")
        command = "none" if f["command"] == "none" else " ".join(f["command"])
        resolved = "" if f["command"] == "none" else (
            f"  [{f['program']}]" if f.get("runnable", bool(f["program"])) else
            f"  [CANNOT RUN: {f.get('why') or 'program not found'}]")
        lines.append(f"  {where} {f['action']}: {command}{resolved}")
    if plan["settings"]:
        lines.append("broker settings read (allow-listed keys only):")
        for cluster, seen in plan["settings"].items():
            lines.append(f"  {cluster}: " + ", ".join(f"{k}={v}" for k, v in seen.items()))
    irreversible = plan["irreversible"]
    if irreversible["scenarios"]:
        lines.append(f"irreversible scenarios: {', '.join(irreversible['scenarios'])}: run {irreversible['run']}")
    lines.append("the run creates and changes:")
    lines += [f"  {c}" for c in plan["creates"]]
    return "\n".join(lines)
