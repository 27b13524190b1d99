"""Imports sit at module level, where a reader sees what a module needs and an import cycle shows at once;
an import inside a function is kept only where it defers a heavy or optional dependency (issue 30):

(a) a module of HEAVY itself (an optional extra's package, or a core one that costs tens of ms), or
(b) a module of this project that imports one of HEAVY at module level, directly or through other
    project modules (found here from the source: the chain is in the message), or
(c) any other, with a ``# lazy: <why>`` comment on its line or in the comment right above it (an import
    cycle, a layer below importing one above, or the start-up time of a module only one command needs).

Anything else is an import moved into a function for no reason: move it to the top of the module."""
from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
AREAS = ("spec", "fixtures", "conformance", "spark_checks", "reports")

# The one list of modules that an import inside a function may defer. Optional: the extras' packages
# (requirements/{pulsar,spark,reports,test}.txt, and docker, which testcontainers brings); the CLI runs
# without them. Heavy core ones (requirements/core.txt), measured alone on the 2-core box: z3 30 ms,
# hypothesis 100 ms, jsonschema 70 ms; the CLI's whole start-up is about 200 ms.
HEAVY = (
    "pulsar", "fastavro", "requests", "kazoo", "psutil", "pyarrow", "testcontainers", "docker", "cryptography",
    "pyspark", "duckdb", "numpy", "matplotlib",
    "jinja2",
    "pytest", "_pytest",
    "z3", "hypothesis", "jsonschema",
)
LAZY = re.compile(r"#\s*lazy:\s*\S")


def _files() -> dict[str, Path]:
    """module name -> file, for the project's code that is not a test."""
    found = {}
    for base, prefix in [*((ROOT / area, f"pulsar_conformance.{area}") for area in AREAS),
                         (ROOT / "pulsar_conformance", "pulsar_conformance")]:
        for path in sorted(base.rglob("*.py")):
            if path.name.startswith("test_"):
                continue
            parts = list(path.relative_to(base).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join([prefix, *parts])] = path
    return found


FILES = _files()


def _targets(module: str, path: Path, node: ast.Import | ast.ImportFrom) -> list[str]:
    """The absolute module names an import statement loads (a `from` import's names too, when modules)."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if node.level:
        package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
        base = ".".join(package[: len(package) - node.level + 1] + ([node.module] if node.module else []))
    else:
        base = node.module or ""
    return [base, *(f"{base}.{alias.name}" for alias in node.names if f"{base}.{alias.name}" in FILES)]


def _is_type_checking(node: ast.AST) -> bool:
    return isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)


def _walk(tree: ast.AST):
    """(import node, inside a function?) for every import, skipping `if TYPE_CHECKING:` blocks."""
    def visit(node, local):
        for child in ast.iter_child_nodes(node):
            if _is_type_checking(child):
                continue
            if isinstance(child, (ast.Import, ast.ImportFrom)):
                yield child, local
            yield from visit(child, local or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)))
    yield from visit(tree, False)


def _module_level_graph(parents: bool = True) -> dict[str, set[str]]:
    """module -> the modules its module-level imports load (with `parents`: their packages too, and its own)."""
    graph: dict[str, set[str]] = {}
    for module, path in FILES.items():
        edges = graph.setdefault(module, set())
        parts = module.split(".")
        if parents:
            edges.update(".".join(parts[:i]) for i in range(1, len(parts)))  # importing a.b.c runs a and a.b first
        for node, local in _walk(ast.parse(path.read_text())):
            if not local:
                for target in _targets(module, path, node):
                    edges.update(".".join(target.split(".")[:i]) for i in range(1 if parents else target.count(".") + 1,
                                                                                  target.count(".") + 2))
    return graph


GRAPH = _module_level_graph()


def heavy_chain(module: str) -> list[str] | None:
    """The chain of module-level imports from `module` to a module of HEAVY, or None."""
    seen, queue = {module}, [[module]]
    while queue:
        chain = queue.pop(0)
        if chain[-1].split(".")[0] in HEAVY:
            return chain
        for nxt in sorted(GRAPH.get(chain[-1], ())):
            if nxt not in seen and (nxt in GRAPH or nxt.split(".")[0] in HEAVY):
                seen.add(nxt)
                queue.append([*chain, nxt])
    return None


def _comment_and_statement(lines: list[str], node: ast.stmt) -> list[str]:
    """The statement's lines and the comment lines right above it (a comment may take two lines)."""
    start = node.lineno - 1
    while start > 0 and lines[start - 1].strip().startswith("#"):
        start -= 1
    return lines[start: node.end_lineno]


def local_imports() -> list[tuple[str, int, str, str]]:
    """(file, line, statement, why allowed or '') for every import inside a function."""
    rows = []
    for module, path in FILES.items():
        lines = path.read_text().splitlines()
        for node, local in _walk(ast.parse(path.read_text())):
            if not local:
                continue
            why = ""
            for target in _targets(module, path, node):
                chain = heavy_chain(target)
                if chain:
                    why = " -> ".join(chain)
                    break
            if not why and any(LAZY.search(line) for line in _comment_and_statement(lines, node)):
                why = "# lazy: comment"
            rows.append((str(path.relative_to(ROOT)), node.lineno, ast.unparse(node), why))
    return rows


def test_every_import_inside_a_function_defers_a_heavy_module_or_says_why():
    needless = [f"{path}:{line}: {statement}" for path, line, statement, why in local_imports() if not why]
    assert needless == [], (f"{len(needless)} imports inside functions defer nothing heavy (HEAVY in {__name__}) "
                            "and carry no '# lazy: <why>' comment; move them to the top of the module:\n"
                            + "\n".join(needless))


def test_the_check_tells_heavy_from_needless():
    """The walker sees a plain module as needless and a project module that reaches z3 as heavy."""
    assert heavy_chain("pulsar_conformance.spec.core.interpreter")[-1] == "z3"
    assert heavy_chain("pulsar_conformance.errors") is None
    assert heavy_chain("pulsar_conformance.output") is None
    tree = ast.parse("import json\ndef f():\n    import os\n    if True:\n        from z3 import Int\n")
    assert [(n.lineno, local) for n, local in _walk(tree)] == [(1, False), (3, True), (5, True)]
    lines = ["def f():", "    # lazy: a cycle,", "    # said on two lines", "    import os", "    x = 1", "    import re"]
    tree = ast.parse("\n".join(lines))
    said = [any(LAZY.search(line) for line in _comment_and_statement(lines, node)) for node, _ in _walk(tree)]
    assert said == [True, False]


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found = []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root] & graph.keys())))]
        index[root] = low[root] = len(index)
        stack.append(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    work.append((child, iter(sorted(graph[child] & graph.keys()))))
                elif child in stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_no_module_imports_itself_back_at_module_level():
    """A cycle left (completion builds the CLI's parser, which imports completion) is broken by a marked lazy
    import inside a function, never closed at module level, where the import order would decide what works."""
    assert _cycles(_module_level_graph(parents=False)) == []
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
