"""``spec list | check | mutants | explore`` and ``bench spec``."""
from __future__ import annotations

import os
import platform
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

from pulsar_conformance import protocols  # protocols.PROTOCOLS read at call time (tests add one)
from pulsar_conformance.errors import EXIT_FAIL, EXIT_PASS, EXIT_UNKNOWN, UsageError
from pulsar_conformance.output import emit, progress

from .core.expression import ExpressionError
from .core.render import violation_json, violation_table
from .core.view import predicate
from .inputs import check_bounds, constants, out_path, read_itf

# Imports left inside the commands: z3 and Hypothesis (.core.check, .bmc, .explorer, .itf... import them),
# and what only one command needs and every other start-up would pay for (marked lazy:).


def register(commands) -> None:
    sub = commands.group("spec", "executable specs: list, check with z3/Hypothesis/explorer, mutants")
    common = commands.common

    p = sub.add_parser("list", help="the specs, their variants, invariants and mutants", parents=[common])
    p.set_defaults(handler=cmd_list)

    p = sub.add_parser("check", help="check a spec's invariants with the chosen engines", parents=[common])
    _spec_args(p)
    p.add_argument("--engine", choices=("z3", "hypothesis", "explore", "all"), default="all")
    p.add_argument("--no-shrink", action="store_true",
                   help="report Hypothesis' first failing run as found, unshrunk (much faster; z3's trace is shortest)")
    p.set_defaults(handler=cmd_check)

    p = sub.add_parser("mutants", help="run every mutant; each must be killed by z3 and by Hypothesis", parents=[common])
    _spec_args(p, variant=False)  # each mutant names its variant
    p.add_argument("--only", help="run just this mutant")
    p.set_defaults(handler=cmd_mutants)

    p = sub.add_parser("explore", help="breadth-first exploration: distinct states, depth, states/s; "
                       "--reach EXPR: the shortest trace to a state where EXPR holds", parents=[common])
    _spec_args(p)
    p.add_argument("--reach", metavar="EXPR",
                   help="an expression over the state's variables and constants (enum values by name, arrays by key; "
                        "the language and what it refuses: docs/exploring.md), "
                        "e.g. \"current != 'primary' and not up[current]\"; the explorer, then z3 BMC to --depth when the "
                        "explorer stops short; exit 1 when unreachable (within the bounds it says)")
    p.add_argument("--itf", metavar="FILE", help="write the trace(s) found as ITF JSON (Apalache/Quint)")
    p.set_defaults(handler=cmd_explore)

    p = sub.add_parser("simulate", help="random runs: each step one of the enabled actions, all equally likely",
                       parents=[common])
    _instance_args(p)
    p.add_argument("--steps", type=int, default=20, help="steps per run (default 20)")
    p.add_argument("--runs", type=int, default=1, help="runs, with seeds SEED, SEED+1, ... (default 1)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--until", metavar="EXPR", help="stop a run where EXPR holds (the language of --reach, "
                   "docs/exploring.md); exit 1 when no run got there")
    p.add_argument("--itf", metavar="FILE", help="write the (last) run as ITF JSON")
    p.set_defaults(handler=cmd_simulate)

    p = sub.add_parser("replay", help="check an ITF trace against a spec: every step an action it allows",
                       parents=[common])
    _instance_args(p, variant_help="default: the variant the trace's #meta names, else the spec's default")
    p.add_argument("file", help="ITF JSON (written by this suite, Apalache or Quint)")
    p.set_defaults(handler=cmd_replay)

    p = sub.add_parser("graph", help="the reachable state graph of a small instance (DOT, SVG, PNG) and action coverage",
                       parents=[common])
    _instance_args(p)
    p.add_argument("--out", required=True, metavar="FILE", help="FILE.dot, FILE.svg or FILE.png")
    p.add_argument("--max-states", type=int, default=400, help="refuse above this many nodes (default 400)")
    p.add_argument("--vars", help="comma-separated variables to draw: states that agree on them are one node "
                                  "(default: all; ghost counters multiply the states)")
    p.set_defaults(handler=cmd_graph)

    p = sub.add_parser("step", help="walk a spec by hand: enabled actions, pick one, undo", parents=[common])
    _instance_args(p)
    p.set_defaults(handler=cmd_step)

    p = sub.add_parser("ci", help="every protocol's spec runs at the budgets its descriptor gives CI "
                       "(each variant checked, every mutant), --jobs at a time, with a summary", parents=[common])
    p.add_argument("--only", metavar="AREA", help="just this protocol's runs")
    p.add_argument("--dry-run", action="store_true", help="list the commands without running them")
    p.add_argument("--jobs", type=int, default=None, metavar="N",
                   help="runs at once, each its own process (default: the machine's cores, at most 4)")
    p.set_defaults(handler=cmd_ci)

    p = sub.add_parser("catalog", help="the requirements catalog: ids, strengths, what models and checks each",
                       parents=[common])
    p.add_argument("--area", help="only this area (e.g. client-failover)")
    p.set_defaults(handler=cmd_catalog)

    p = commands.add("spec", cmd_bench, "explorer states/s, z3 BMC depth within a time budget, Hypothesis examples/s",
                     bench=True)
    p.add_argument("--seconds", type=float, default=60.0, help="z3 BMC time budget per spec (default 60)")
    p.add_argument("--specs", help="comma-separated spec names (default: all)")
    p.set_defaults(handler=_hypothesis_home(cmd_bench, runs_hypothesis=True))
    for name, parser in sub.choices.items():
        parser.set_defaults(handler=_hypothesis_home(parser.get_default("handler"),
                                                     runs_hypothesis=name in HYPOTHESIS_COMMANDS))


HYPOTHESIS_COMMANDS = ("check", "mutants")  # and bench spec: the commands that run Hypothesis
STORAGE_ENV = "HYPOTHESIS_STORAGE_DIRECTORY"


def _hypothesis_home(handler, *, runs_hypothesis: bool):
    """``handler`` with Hypothesis' files kept in the suite's cache (``<cache>/hypothesis``), not in
    ``.hypothesis/`` of the working directory, which every spec command that ran Hypothesis left behind (its
    constants cache; the example database is off in the engines already). A command that runs Hypothesis
    first checks the cache can be written (a file there is exit 64 with the fix, not a crash minutes in).
    A user's own HYPOTHESIS_STORAGE_DIRECTORY is kept; what was set is restored afterwards (the command may
    run inside another process, a test's)."""
    def run(args) -> int:
        # lazy: start-up: spec's commands register at every CLI start; only the Hypothesis runs need the cache
        from pulsar_conformance.files import cache_dir, check_cache_dir

        before = os.environ.get(STORAGE_ENV)
        configuration = sys.modules.get("hypothesis.configuration")
        home_before = getattr(configuration, "__hypothesis_home_directory", None) if configuration else None
        if before is None:
            os.environ[STORAGE_ENV] = str((check_cache_dir() if runs_hypothesis else cache_dir()) / "hypothesis")
        if configuration is not None:  # imported already (a test process): its home was fixed at first use
            configuration.set_hypothesis_home_dir(os.environ[STORAGE_ENV])
        try:
            return handler(args)
        finally:
            if before is None:
                os.environ.pop(STORAGE_ENV, None)
            configuration = sys.modules.get("hypothesis.configuration")
            if configuration is not None:
                configuration.set_hypothesis_home_dir(home_before)

    run.__wrapped__ = handler
    return run


def _spec_args(p, variant: bool = True):
    """The instance and the search budgets of the commands that search (check, mutants, explore)."""
    _instance_args(p, variant=variant)
    p.add_argument("--depth", type=int, default=12, help="z3 BMC depth (default 12)")
    p.add_argument("--examples", type=int, default=300, help="Hypothesis examples (default 300)")
    p.add_argument("--steps", type=int, default=40, help="Hypothesis steps per example (default 40)")
    p.add_argument("--seed", type=int, default=0, help="Hypothesis seed, for replay (default 0)")
    p.add_argument("--max-states", type=int, default=1_000_000, help="explorer bound (default 1,000,000)")
    p.add_argument("--max-seconds", type=float, default=600.0,
                   help="time budget of each engine (default 600); a search it cuts short makes the check unknown (exit 2)")


def _instance_args(p, variant_help: str = "which variant (default: the spec's default)", variant: bool = True):
    """Which spec instance: its name, variant and constants."""
    p.add_argument("spec", help="spec name (see 'spec list')")
    if variant:
        p.add_argument("--variant", help=variant_help)
    p.add_argument("--const", action="append", default=[], metavar="NAME=N",
                   help="override a constant, e.g. --const CLUSTERS=2 (repeatable), within the limits 'spec list' "
                        "shows")


def _budget(args):
    from .core.check import Budget

    check_bounds(args)
    return Budget(depth=args.depth, examples=args.examples, steps=args.steps, seed=args.seed,
                  max_states=args.max_states, max_seconds=args.max_seconds,
                  shrink=not getattr(args, "no_shrink", False))


def _constants(args, spec_cls) -> dict:
    return constants(args.const, spec_cls)


def _make(args, variant=None):
    from .registry import spec_class  # lazy: start-up, it imports every spec module (3 ms)

    check_bounds(args)
    cls = spec_class(args.spec)
    if variant is not None and variant not in cls.VARIANTS:
        raise UsageError(f"unknown variant {variant!r} of {cls.name}", f"choose one of: {', '.join(cls.VARIANTS)}")
    try:
        return cls(variant=variant, **_constants(args, cls))
    except ValueError as error:
        raise UsageError(str(error), "check the --const values") from error


def cmd_list(args) -> int:
    from .registry import SPECS  # lazy: start-up, it imports every spec module (3 ms)

    specs = []
    for cls in SPECS.values():
        spec = cls()
        specs.append({
            "name": cls.name, "title": cls.title, "source": cls.source,
            "variants": cls.VARIANTS, "default_variant": cls.DEFAULT_VARIANT, "constants": cls.CONSTANTS,
            "constant_limits": {name: list(limits) for name, limits in cls.CONSTANT_LIMITS.items()},
            "actions": [a.name for a in spec.actions],
            "invariants": [{"name": i.name, "doc": i.doc,
                            "holds_in": sorted(i.holds_in) if i.holds_in is not None else sorted(cls.VARIANTS),
                            "violated_in": sorted(i.violated_in), "inductive": i.inductive} for i in spec.invariants],
            "facts": [{"name": f.name, "doc": f.doc} for f in spec.facts],
            "mutants": [{"name": m.name, "variant": m.variant or cls.DEFAULT_VARIANT, "breaks": list(m.breaks)}
                        for m in cls.MUTANTS],
        })

    def text():
        lines = []
        for s in specs:
            lines.append(f"{s['name']}: {s['title']}")
            lines.append(f"  variants: {', '.join(s['variants'])} (default {s['default_variant']})")
            lines.append("  constants: " + ", ".join(f"{name}={value} ({s['constant_limits'][name][0]}.."
                                                     f"{s['constant_limits'][name][1]})"
                                                     for name, value in s["constants"].items()))
            lines.append(f"  invariants: {', '.join(i['name'] for i in s['invariants'])}")
            if s["facts"]:
                lines.append(f"  facts: {', '.join(f['name'] for f in s['facts'])}")
            lines.append(f"  mutants: {', '.join(m['name'] for m in s['mutants'])}")
        return "\n".join(lines)

    emit(args, {"specs": specs}, text)
    return EXIT_PASS


def cmd_catalog(args) -> int:
    from .catalog import CatalogError, dangling_links, load  # lazy: start-up (3 ms); spec catalog only

    try:
        catalog = load()
    except CatalogError as error:
        raise UsageError(f"the requirements catalog is malformed: {error}", "fix the YAML under spec/catalog/") from error
    areas = sorted({r.area for r in catalog.requirements})
    if args.area is not None and args.area not in areas:  # an empty answer would read as "nothing to cover"
        raise UsageError(f"--area {args.area!r}: the catalog has no such area", f"choose one of: {', '.join(areas)}")
    reqs = catalog.by_area(args.area) if args.area else catalog.requirements
    problems = dangling_links(catalog)
    doc = {"requirements": [r.to_json() for r in reqs], "problems": problems,
           "covered": sum(r.covered for r in reqs), "total": len(reqs)}

    def text():
        lines = [f"{r.id} {r.strength:6} {'covered  ' if r.covered else 'UNCOVERED'} {r.text}" for r in reqs]
        lines.append(f"{doc['covered']} of {doc['total']} covered")
        lines += [f"PROBLEM: {p}" for p in problems]
        return "\n".join(lines)

    emit(args, doc, text)
    return EXIT_FAIL if problems else EXIT_PASS


def cmd_check(args) -> int:
    from .core.check import ENGINES, check

    spec = _make(args, args.variant)
    engines = ENGINES if args.engine == "all" else (args.engine,)
    progress(f"checking {spec.name} variant={spec.variant} with {', '.join(engines)}...")
    report = check(spec, engines, _budget(args))
    emit(args, report.to_json(), report.to_text)
    return {"pass": EXIT_PASS, "fail": EXIT_FAIL}.get(report.status, EXIT_UNKNOWN)


def cmd_mutants(args) -> int:
    from .core.mutants import mutants_text, run_mutants
    from .registry import spec_class  # lazy: start-up, it imports every spec module (3 ms)

    check_bounds(args)
    cls = spec_class(args.spec)
    if args.only and args.only not in {m.name for m in cls.MUTANTS}:
        raise UsageError(f"unknown mutant {args.only!r}", f"choose one of: {', '.join(m.name for m in cls.MUTANTS)}")
    progress(f"running {len(cls.MUTANTS)} mutants of {cls.name} under z3 and Hypothesis...")
    report = run_mutants(cls, _budget(args), _constants(args, cls), args.only)
    emit(args, report, lambda: mutants_text(report))
    return EXIT_PASS if report["ok"] else EXIT_FAIL


BOOLEAN_FIX = ("write a condition, true or false in every state: a comparison (==, !=, <, in), not, and/or of "
               "conditions, any()/all(), e.g. \"current != 'primary'\" (docs/exploring.md)")


def _predicate(spec, expression: str, option: str):
    """The expression checked against the language (never evaluated as Python) and tried on the
    initial state, before any search starts (docs/exploring.md). Its value must be a boolean: ``1``,
    ``'s1'`` or ``up`` (a map) used to be taken for true and ``0`` for false (exit 0 or 1, a verdict on
    no condition); a value that is not True or False is bad input, on the initial state at once, on a
    later state when the search gets there."""
    # lazy: start-up: only --reach/--until compile an expression
    from .core.expression import compile_expression, shown
    from .core.interpreter import initial_state
    from .core.view import readable  # lazy: start-up, as above

    try:
        predicate(spec, expression)  # the language, and a failure on the initial state, say it first
        evaluate = compile_expression(spec, expression)
    except ExpressionError as error:
        raise UsageError(f"{option}: {error.problem}", error.fix) from error

    def holds(state, where: str | None = None) -> bool:
        try:
            value = evaluate(readable(spec, state))
        except ExpressionError as error:
            raise ExpressionError(f"{shown(expression)} fails on {where or 'the state ' + _state_text(spec, state)}: "
                                  f"{error.problem}", error.fix) from error
        if type(value) is not bool:
            raise ExpressionError(f"{shown(expression)} is a {type(value).__name__} ({str(value)[:60]}) on "
                                  f"{where or 'the state ' + _state_text(spec, state)}, not true or false", BOOLEAN_FIX)
        return value

    try:
        holds(initial_state(spec), "the initial state")
    except ExpressionError as error:
        raise UsageError(f"{option}: {error.problem}", error.fix) from error
    return holds


def _state_text(spec, state) -> str:
    text = ", ".join(f"{k}={v}" for k, v in spec.show_state(state).items())
    return text if len(text) <= 300 else text[:300] + "..."


def _searching(option: str):
    """A search whose expression fails on a state past the initial one (a key absent there, a
    division by zero): bad input, reported as such, not a traceback."""
    @contextmanager
    def guard():
        try:
            yield
        except ExpressionError as error:
            raise UsageError(f"{option}: {error.problem}", error.fix) from error

    return guard()


def _out_path(value: str | None, option: str = "--itf", suffixes: tuple[str, ...] = ()):
    return out_path(value, option, suffixes)


def cmd_explore(args) -> int:
    if args.reach:
        return _reach(args)
    from .core import itf
    from .core.explorer import explore

    spec = _make(args, args.variant)
    out = _out_path(args.itf)
    result = explore(spec, max_states=args.max_states, max_seconds=args.max_seconds)
    if out is not None:
        for name, violation in result.violations.items():
            path = out if len(result.violations) == 1 else out.with_name(f"{out.stem}.{name}{out.suffix}")
            itf.write(path, itf.to_itf(spec, violation, kind="counterexample", description=f"breaks {name}"))
            progress(f"wrote {path}")
    doc = {**spec.identity(), **result.to_json(),
           "counterexamples": [violation_json(spec, v) for v in result.violations.values()]}

    def text():
        lines = [f"{spec.name} variant={spec.variant}: {result.distinct_states} distinct states, depth {result.depth}, "
                 f"{result.states_per_second:.0f} states/s, {result.transitions} transitions, "
                 f"{'complete' if result.complete else 'stopped by ' + result.stopped_by}"]
        lines += [violation_table(spec, v) for v in result.violations.values()]
        return "\n".join(lines)

    emit(args, doc, text)
    return EXIT_PASS


def _reach(args) -> int:
    """The explorer first (breadth first: the shortest trace, or 'unreachable' over the whole
    graph); when it stops short, z3 BMC to --depth, which can reach deeper than the explorer can
    enumerate and rules out every trace up to its depth."""
    from .core import itf
    from .core.bmc import reach as bmc_reach
    from .core.explorer import reach
    from .core.formula import NotSymbolic

    spec = _make(args, args.variant)
    holds = _predicate(spec, args.reach, "--reach")
    out = _out_path(args.itf)
    with _searching("--reach"):
        trace, result = reach(spec, holds, max_states=args.max_states, max_seconds=args.max_seconds)
    explored = (f"the explorer: {result.distinct_states} states to depth {result.depth}"
                + ("" if result.complete else f", stopped by {result.stopped_by}"))
    status = "reached" if trace else ("unreachable" if result.complete else "unknown")
    z3_doc, z3_said = None, ""
    if status == "unknown":
        try:
            progress(f"the explorer stopped by {result.stopped_by}; z3 BMC to depth {args.depth}")
            trace, b = bmc_reach(spec, args.reach, depth=args.depth, max_seconds=args.max_seconds)
        except NotSymbolic as why:
            z3_doc = {"skipped": f"z3 BMC cannot take this expression: {why}"}
            z3_said = f"; {z3_doc['skipped']}"
        else:
            z3_doc = b.to_json()
            if trace is not None:
                status = "reached"
            elif b.depth_reached >= args.depth:
                status = "unreachable"
                z3_said = f"; z3 BMC: no trace of at most {args.depth} steps reaches it"
            else:
                z3_said = f"; z3 BMC ruled out traces up to {b.depth_reached} steps of {args.depth}, stopped by {b.stopped_by}"
    bounded = status == "unreachable" and not result.complete
    doc = {**spec.identity(), "reach": args.reach, "status": status, "explored": result.to_json(), "z3_bmc": z3_doc,
           "bounded": bounded, "trace": violation_json(spec, trace) if trace else None}
    if trace and out is not None:
        itf.write(out, itf.to_itf(spec, trace, kind="reach", description=f"reaches {args.reach}"))
        progress(f"wrote {out}")

    def text():
        if trace:
            how = (f"breadth first over {result.distinct_states} states" if trace.engine == "explore"
                   else f"z3 BMC, depth by depth, after {explored}")
            return violation_table(spec, trace, title=f"reached {args.reach!r} after {trace.length} step(s) (shortest: {how})")
        if status == "unreachable" and not bounded:
            return f"unreachable: no state of {spec.name} ({spec.variant}) satisfies {args.reach!r}; " \
                   f"the whole graph was explored ({explored}) with {spec.constants}"
        if bounded:
            return f"unreachable within {args.depth} steps: {explored}{z3_said}; a longer trace may exist " \
                   f"(raise --depth, or --max-states/--max-seconds for the explorer)"
        return f"UNKNOWN: not reached within the bounds ({explored}{z3_said}): raise --max-states/--max-seconds or --depth"

    emit(args, doc, text)
    return {"reached": EXIT_PASS, "unreachable": EXIT_FAIL}.get(status, EXIT_UNKNOWN)


def ci_commands(only: str | None = None) -> list[list[str]]:
    """The spec runs of CI, from the protocol descriptors (pulsar_conformance/protocols/)."""
    commands = []
    for p in protocols.PROTOCOLS:
        if not p.spec or (only and p.area != only):
            continue
        for b in p.ci:
            commands.append(["check", p.area, "--variant", b.variant, "--depth", str(b.depth), "--examples",
                             str(b.examples), "--max-states", str(b.max_states), *(["--steps", str(b.steps)] if b.steps else []),
                             "--no-shrink"])
        if p.mutants:
            m = p.mutants
            commands.append(["mutants", p.area, "--depth", str(m.depth), "--examples", str(m.examples),
                             *(["--steps", str(m.steps)] if m.steps else [])])
    return commands


def cmd_ci(args) -> int:
    if args.only and args.only not in {p.area for p in protocols.PROTOCOLS if p.spec}:
        raise UsageError(f"no protocol with a spec is called {args.only!r}",
                         f"choose one of: {', '.join(p.area for p in protocols.PROTOCOLS if p.spec)}")
    check_bounds(args)
    jobs = getattr(args, "jobs", None)
    jobs = jobs if jobs is not None else min(4, os.cpu_count() or 1)
    commands = ci_commands(args.only)
    if args.dry_run:
        results = [("pulsar-conformance spec " + " ".join(c), None, 0.0) for c in commands]
    else:
        results = _run_ci(commands, jobs)
    codes = [c for _, c, _ in results if c is not None]
    # a run that fails is a failure; one that could not give a verdict (unknown, bad input, a crash:
    # exit 2, 64, 70) leaves the whole unknown, never a pass and never a failure of the spec
    status = EXIT_FAIL if EXIT_FAIL in codes else (EXIT_UNKNOWN if any(c != EXIT_PASS for c in codes) else EXIT_PASS)
    doc = {"runs": [{"command": c, "exit": code, "seconds": round(t, 1)} for c, code, t in results],
           "status": "planned" if args.dry_run else {EXIT_PASS: "pass", EXIT_FAIL: "fail", EXIT_UNKNOWN: "unknown"}[status]}
    emit(args, doc, lambda: "\n".join(
        [f"{'planned' if code is None else {0: 'pass', 1: 'FAIL', 2: 'UNKNOWN'}.get(code, f'exit {code}'):>8}  {t:7.1f} s  {c}"
         for c, code, t in results] + [f"spec ci: {doc['status']}"]))
    return status


def _run_ci(commands: list[list[str]], jobs: int) -> list[tuple[str, int, float]]:
    """Each run in a process of its own (a run's memory and z3 state end with it), ``jobs`` at once:
    they are single-threaded, so on 2 cores two at a time take about half the time. Mutant runs,
    the longest, start first; each run's output is printed whole when it ends, not interleaved."""
    # lazy: start-up, concurrent.futures imports logging (4 ms), and only spec ci runs processes in parallel
    from concurrent.futures import ThreadPoolExecutor

    order = sorted(range(len(commands)), key=lambda i: commands[i][0] != "mutants")
    shown = ["pulsar-conformance spec " + " ".join(c) for c in commands]

    def one(i: int) -> tuple[int, float]:
        progress(f"[{i + 1}/{len(commands)}] started: {shown[i]}")
        started = time.perf_counter()
        done = subprocess.run([sys.executable, "-m", "pulsar_conformance", "spec", *commands[i]],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        took = time.perf_counter() - started
        progress(f"[{i + 1}/{len(commands)}] {shown[i]}: exit {done.returncode} after {took:.1f} s\n"
                 + done.stdout.rstrip())
        return done.returncode, took

    with ThreadPoolExecutor(max_workers=jobs) as pool:
        finished = dict(zip(order, pool.map(one, order), strict=True))
    return [(shown[i], *finished[i]) for i in range(len(commands))]


SIMULATED_STEPS = 1_000_000  # about a minute of random steps on one core


def cmd_simulate(args) -> int:
    from .core import itf
    from .core.simulate import simulate

    check_bounds(args)
    if args.steps * args.runs > SIMULATED_STEPS:
        raise UsageError(f"--runs {args.runs} of --steps {args.steps} are {args.steps * args.runs:,} steps; "
                         f"a simulation takes at most {SIMULATED_STEPS:,}", "lower --runs or --steps")
    spec = _make(args, args.variant)
    until = _predicate(spec, args.until, "--until") if args.until else None
    out = _out_path(args.itf)
    with _searching("--until"):
        runs = [simulate(spec, steps=args.steps, seed=args.seed + i, until=until) for i in range(args.runs)]
    if out is not None:
        chosen = next((r for r in runs if r.stopped_by == "until"), runs[-1]) if until else runs[-1]
        itf.write(out, itf.to_itf(spec, chosen.trace, kind="simulation",
                                  description=f"random run, seed {args.seed + runs.index(chosen)}"))
        progress(f"wrote {out}")
    doc = {**spec.identity(), "runs": [{"seed": args.seed + i, "stopped_by": r.stopped_by, "steps": r.trace.length,
                                        "broken": r.broken, "trace": violation_json(spec, r.trace)}
                                       for i, r in enumerate(runs)]}

    def text():
        lines = []
        for i, r in enumerate(runs):
            why = {"until": f"{args.until!r} holds", "deadlock": "nothing enabled", "steps": f"{args.steps} steps"}
            title = f"run seed={args.seed + i}: {r.trace.length} step(s), stopped: {why[r.stopped_by]}"
            if r.broken:
                title += f"; broke {', '.join(sorted({name for _, name in r.broken}))}"
            lines.append(violation_table(spec, r.trace, title=title))
        return "\n\n".join(lines)

    emit(args, doc, text)
    return EXIT_FAIL if until and not any(r.stopped_by == "until" for r in runs) else EXIT_PASS


def cmd_replay(args) -> int:
    from .core import itf
    from .registry import spec_class  # lazy: start-up, it imports every spec module (3 ms)

    cls = spec_class(args.spec)
    given = _constants(args, cls)
    if args.variant is not None and args.variant not in cls.VARIANTS:
        raise UsageError(f"unknown variant {args.variant!r} of {cls.name}", f"choose one of: {', '.join(cls.VARIANTS)}")
    path = Path(args.file)
    doc = read_itf(args.file)
    problems = itf.schema_problems(doc)
    if problems:
        raise UsageError(f"{args.file}: not an ITF trace: {'; '.join(problems[:3])}",
                         "pass a trace in the Informal Trace Format (Apalache ADR-015)")
    meta = doc.get("#meta", {}) if isinstance(doc.get("#meta"), dict) else {}
    ours = meta.get("spec") == cls.name  # the instance a trace of this suite names is taken from it
    variant = args.variant or (meta.get("variant") if ours and isinstance(meta.get("variant"), str)
                               and meta["variant"] in cls.VARIANTS else None)
    from_meta = meta.get("constants") if ours and meta.get("constants") is not None else {}
    if not isinstance(from_meta, dict):
        raise UsageError(f"{args.file}: #meta.constants is a {type(from_meta).__name__}, not a map of NAME to integer",
                         "fix the trace's #meta, or pass --const for each constant")
    instance = {**constants(from_meta, cls, option=f"{args.file}: #meta.constants", replay=True), **given}
    mutant = meta.get("mutant") if ours else None
    if mutant is not None and (not isinstance(mutant, str) or mutant not in {m.name for m in cls.MUTANTS}):
        raise UsageError(f"{args.file}: #meta.mutant {mutant!r} is not a mutant of {cls.name}",
                         f"fix the trace's #meta: one of {', '.join(m.name for m in cls.MUTANTS)}, or none")
    try:
        spec = cls(variant=variant, mutant=mutant, **instance)
    except ValueError as error:
        raise UsageError(str(error), "pass --variant/--const matching the trace") from error
    _check_trace_of(spec, doc, meta, args.file)
    report = itf.replay(spec, doc)
    # a live trace the spec refused is saved as its accepted prefix and the refused step (#meta.rejected,
    # conformance/harness/itf_traces.py): the prefix replays, and the answer is still the spec's REJECTED
    rejected = meta.get("rejected") if ours and isinstance(meta.get("rejected"), dict) else None
    ok = report.ok and rejected is None
    problem = report.problem or (_left_the_spec(rejected, report.steps) if rejected is not None else "")
    out = {**spec.identity(), "file": str(path), "ok": ok, "steps": report.steps, "problem": problem,
           "actions": report.labels, **({"rejected": rejected} if rejected is not None else {})}

    def text():
        if ok:
            return f"OK: all {report.steps} step(s) of {path.name} are actions of {spec.name} ({spec.variant}): " \
                   + ", ".join(report.labels)
        return f"REJECTED after {report.steps} accepted step(s): {problem}"

    emit(args, out, text)
    return EXIT_PASS if ok else EXIT_FAIL


def _left_the_spec(rejected: dict, steps: int) -> str:
    """Where a live trace left the spec, as its #meta.rejected says: the step after the accepted prefix."""
    label, note = rejected.get("label") or "?", rejected.get("note") or ""
    return (f"the live trace left the spec after these {steps} step(s): its next step, {label}"
            + (f" [{note}]" if note else "") + ", is not one the spec allows (#meta.rejected): "
            + str(rejected.get("problem") or "no reason recorded"))


def _check_trace_of(spec, doc: dict, meta: dict, file: str) -> None:
    """A trace that cannot be one of ``spec``'s behaviours whatever its steps: another spec's (its #meta says
    so, or its variables differ), a state without a variable or with one the trace does not declare, a value
    outside the variable's type, no state. Bad input (exit 64, naming the state and the fix), where replay
    used to answer REJECTED (exit 1), a verdict on a trace it never could have accepted. What is left to
    replay judges: the first state and each step (REJECTED is then the spec's answer, exit 1)."""
    from .core.itf import decode_value

    # lazy: a cycle: the registry imports the protocols' descriptors, which import this module's helpers
    from .registry import SPECS

    named = meta.get("spec")
    if isinstance(named, str) and named != spec.name and named in SPECS:
        raise UsageError(f"{file} is a trace of {named}, not of {spec.name} (its #meta.spec)",
                         f"replay it against its own spec: pulsar-conformance spec replay {named} {file}")
    fix = (f"pass a trace of {spec.name}: its states hold exactly the variables {', '.join(spec.var_types)} "
           f"(pulsar-conformance spec simulate {spec.name} --itf FILE writes one)")
    declared = [v for v in doc["vars"] if isinstance(v, str)]
    missing, unknown = sorted(set(spec.var_types) - set(declared)), sorted(set(declared) - set(spec.var_types))
    if missing or unknown:
        said = "; ".join(x for x in (f"missing {', '.join(missing)}" if missing else "",
                                      f"not {spec.name}'s: {', '.join(map(str, unknown))[:200]}" if unknown else "") if x)
        raise UsageError(f"{file}: the trace's vars are not {spec.name}'s ({said})", fix)
    if not doc["states"]:
        raise UsageError(f"{file}: the trace has no state", fix)
    for i, state in enumerate(doc["states"]):
        keys = {k for k in state if not str(k).startswith("#")}
        if keys != set(spec.var_types):
            lacking, extra = sorted(set(spec.var_types) - keys), sorted(keys - set(spec.var_types))
            said = f"has no value for {', '.join(lacking)}" if lacking else \
                f"holds {', '.join(map(str, extra))[:200]}, not a variable of the trace"
            raise UsageError(f"{file}: state {i} {said}", fix)
        for var, typ in spec.var_types.items():
            try:
                decode_value(typ, state[var])
            except (ValueError, TypeError, KeyError, AttributeError, IndexError) as error:
                raise UsageError(f"{file}: state {i}, variable {var}: {str(error)[:200]}",
                                 f"{fix}; integers are written {{\"#bigint\": \"N\"}}, enum values by name") from None


def cmd_graph(args) -> int:
    from .core import graph

    spec = _make(args, args.variant)
    out = _out_path(args.out, "--out", (".svg", ".dot", ".png"))
    try:
        g = graph.build(spec, max_states=args.max_states,
                        variables=tuple(v.strip() for v in args.vars.split(",") if v.strip()) if args.vars else ())
    except graph.TooLarge as error:
        raise UsageError(str(error), "a picture needs a small instance: lower the constants or pass --vars") from error
    except ValueError as error:
        raise UsageError(str(error), "choose --vars among the variables 'spec list' shows") from error
    graph.render(graph.to_dot(spec, g), out)
    never = [a for a, n in g.coverage.items() if not n]
    doc = {**spec.identity(), "out": str(out), "nodes": len(g.states), "edges": len(g.edges), "states": g.full_states,
           "variables": list(g.shown),
           "broken_states": {str(k): v for k, v in g.broken.items()}, "coverage": g.coverage, "never_enabled": never}
    emit(args, doc, lambda: f"{out}: {len(g.states)} nodes, {len(g.edges)} edges (of {g.full_states} states), "
                            f"{len(g.broken)} state(s) breaking an invariant\n" + graph.coverage_table(spec, g))
    return EXIT_PASS


def cmd_step(args) -> int:
    from .core.stepper import run

    return run(_make(args, args.variant))


def cmd_bench(args) -> int:
    from .core.bmc import bmc
    from .core.explorer import explore
    from .core.machine import run_machine
    from .registry import SPECS  # lazy: start-up, it imports every spec module (3 ms)

    check_bounds(args)
    names = args.specs.split(",") if args.specs else list(SPECS)
    unknown = [n for n in names if n not in SPECS]
    if unknown:
        raise UsageError(f"unknown spec(s) {unknown}", f"choose from {', '.join(SPECS)}")
    rows = []
    for name in names:
        spec = SPECS[name]()
        progress(f"bench {name}: explorer...")
        ex = explore(spec, max_states=500_000, max_seconds=60)
        progress(f"bench {name}: z3 BMC for {args.seconds:.0f}s...")
        depth_budget = 64
        started = time.perf_counter()
        b = bmc(spec, depth=depth_budget, max_seconds=args.seconds)
        bmc_seconds = time.perf_counter() - started
        progress(f"bench {name}: Hypothesis...")
        hyp = run_machine(spec, examples=200, steps=40, seed=0)
        rows.append({
            "spec": name, "variant": spec.variant, "constants": spec.constants,
            "explorer": {"distinct_states": ex.distinct_states, "seconds": round(ex.seconds, 3),
                         "states_per_second": round(ex.states_per_second), "complete": ex.complete},
            "z3_bmc": {"depth_reached": b.depth_reached, "budget_seconds": args.seconds,
                       "seconds": round(bmc_seconds, 2), "stopped_by": b.stopped_by},
            "hypothesis": {"examples": hyp.examples, "steps": hyp.steps,
                           "examples_per_second": round(hyp.examples_per_second, 1),
                           "steps_per_second": round(hyp.steps / hyp.seconds) if hyp.seconds else None},
            "targets": {"explorer_states_per_second>=20000": ex.states_per_second >= 20_000,
                        "bmc_depth>=12_in_60s": b.depth_reached >= 12},
        })
    doc = {"machine": {"python": platform.python_version(), "cpu_count_used": 1, "platform": platform.platform()},
           "specs": rows}

    def text():
        lines = []
        for r in rows:
            lines.append(f"{r['spec']} ({r['variant']}): explorer {r['explorer']['states_per_second']} states/s "
                         f"({r['explorer']['distinct_states']} states); z3 BMC depth {r['z3_bmc']['depth_reached']} "
                         f"in {r['z3_bmc']['seconds']}s; Hypothesis {r['hypothesis']['examples_per_second']} examples/s")
        return "\n".join(lines)

    emit(args, doc, text)
    return EXIT_PASS
