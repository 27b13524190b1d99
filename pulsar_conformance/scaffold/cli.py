"""``pulsar-conformance new-protocol NAME [--root DIR]`` (docs/adding-a-protocol.md)."""
from __future__ import annotations

from pathlib import Path

from pulsar_conformance.output import emit

from . import names as names_mod
from . import render, tree

NEXT = (
    "spec/catalog/{name}.yaml: the source's requirements in place of {prefix}-R01",
    "spec/protocols/{module}.py: the protocol's variables, actions, invariants, variants and mutants",
    "conformance/protocols/{module}/: scenario.py and observe.py for the protocol (they record, never judge), "
    "judge.py and checks.py for its checks, trace.py for its projection onto the spec, record.py "
    "for what is judged after the run (Spark's verdict of the capture, when a judge needs it)",
    "tests/spec/test_exploring.py: QUESTIONS and FORMULAS for the spec (its test names what is missing)",
    "now and after each change: pytest tests/protocols/{module} tests/spec tests/reports/test_checks.py; "
    "pulsar-conformance spec check {name}; live, as generated: pulsar-conformance certify --profile {name}",
)


def register(commands) -> None:
    p = commands.add("new-protocol", cmd_new_protocol,
                     "write a new protocol's catalog stub, spec skeleton, descriptor, package and offline tests")
    p.add_argument("name", metavar="NAME", help="the protocol's name in lowercase words joined by hyphens "
                                               "(catalog area, profile, spec name), e.g. topic-fencing")
    p.add_argument("--root", type=Path, default=Path("."), help="the checkout to write into (default: the current folder)")
    p.add_argument("--prefix", help="requirement id prefix (default: the name's initials, or PIPNNN for pip-NNN)")
    p.add_argument("--title", help="one-line title (default: the name in words)")
    p.add_argument("--source", help="public URL of the PIP or documentation the protocol is judged against")


def new_protocol(name: str, root: Path, *, prefix: str | None = None, title: str | None = None,
                 source: str | None = None) -> tuple[names_mod.Names, list[str]]:
    """Check everything, render everything, then write everything (or nothing)."""
    n = names_mod.names(name, prefix=prefix, title=title, source=source)
    root = tree.check_root(root)
    tree.check_new(root, n)
    files = render.render(n)
    return n, tree.write_all(root, files, list(tree.targets(n)))


def cmd_new_protocol(args) -> int:
    n, written = new_protocol(args.name, args.root, prefix=args.prefix, title=args.title, source=args.source)
    fill = {"name": n.name, "module": n.module, "prefix": n.prefix}
    steps = [s.format(**fill) for s in NEXT]
    root = tree.check_root(args.root)
    doc = {"protocol": n.name, "root": str(root), "written": written, "next": steps}
    text = "\n".join([f"new protocol {n.name} in {root}:", *(f"  {w}" for w in written), "next:",
                      *(f"  {s}" for s in steps)])
    emit(args, doc, text)
    return 0
