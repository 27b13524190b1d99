"""The expression language of ``spec explore --reach`` and ``spec simulate --until``.

A user's expression is never given to ``eval``: it is parsed, every node of the tree is checked
against the language below *before anything is evaluated*, and the checked tree is turned into
closures that evaluate it over a state's readable view (``view.readable``). Python's own
evaluator would let attribute walking (``().__class__.__base__.__subclasses__()``) reach any
object of the process, whatever names it is given; this one has no way to name a Python object
that the language does not.

The language (docs/exploring.md):
- names: the spec's variables, its constants (``SECONDARIES``...), and the names a ``for``
  clause binds;
- literals: integers, strings (enum values by name), ``True``/``False``, tuples/lists/sets of them;
- ``and or not``, ``== != < <= > >= in not in``, ``+ - * // % **``, ``x if c else y``;
- indexing and slicing of state values (``up['s1']``, ``ack_a[0]``, ``ack_a[1:]``);
- the functions ``len any all sum min max sorted set tuple list abs range``, positional
  arguments only, and ``.values()`` / ``.keys()`` of a map;
- generator expressions and list/set comprehensions, one name per ``for``.

Costs are bounded so a short text cannot make a long computation: integers stay within
MAX_INT_BITS bits (an exponent above MAX_EXPONENT is refused, so ``9**9**9`` stops at once),
one evaluation iterates at most MAX_ITERATIONS items, and the text and its nesting are capped.

``formula.py`` reads the same checked tree as a z3 formula for BMC.
"""
from __future__ import annotations

import ast
import builtins
import operator
from collections.abc import Callable
from typing import Any

from .model import Spec
from .nesting import nesting_depth

MAX_LENGTH = 1000  # characters of expression text
MAX_DEPTH = 40  # nesting of the parsed tree
MAX_INT_BITS = 64  # any integer a step computes, literals included
MAX_EXPONENT = 64  # the right operand of **
MAX_ITERATIONS = 10_000  # items iterated over by one evaluation (comprehensions and functions)

FUNCTIONS = ("len", "any", "all", "sum", "min", "max", "sorted", "set", "tuple", "list", "abs", "range")
METHODS = ("values", "keys")  # of a map (an array indexed by an enum), without arguments

_FIX = ("write an expression over the variables and constants 'spec list' shows, with the operators and "
        "functions docs/exploring.md lists, e.g. current != 'primary' and not up[current]")


class ExpressionError(ValueError):
    """An expression outside the language, or one that fails or costs too much when evaluated.

    ``problem`` names the construct (and where), ``fix`` what to write instead."""

    def __init__(self, problem: str, fix: str = _FIX):
        super().__init__(problem)
        self.problem, self.fix = problem, fix


# ------------------------------------------------------------------ the check


_BINOPS: dict[type, Callable] = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
                                 ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Pow: operator.pow}
_REFUSED_BINOPS = {ast.Div: "'/' (fractions): use '//' for whole division",
                   ast.BitAnd: "'&': use 'and'", ast.BitOr: "'|': use 'or'", ast.BitXor: "'^': use '!='",
                   ast.LShift: "'<<': multiply by a power of 2", ast.RShift: "'>>': use '//'",
                   ast.MatMult: "'@'"}
_COMPARISONS: dict[type, Callable] = {ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt,
                                      ast.LtE: operator.le, ast.Gt: operator.gt, ast.GtE: operator.ge,
                                      ast.In: lambda a, b: a in b, ast.NotIn: lambda a, b: a not in b}
_REFUSED = {  # what each refused construct is called, and what to write instead
    ast.Attribute: ("attribute access", "of a map, only .values() and .keys() are taken; otherwise iterate it "
                                        "('for c in up') and index it ('up[c]')"),
    ast.Lambda: ("a lambda", "write the condition inline, e.g. any(up[c] for c in up)"),
    ast.NamedExpr: ("an assignment expression (:=)", "repeat the sub-expression instead"),
    ast.Dict: ("a dict literal", "compare a map's entries, e.g. up['s1'] and not up['s2']"),
    ast.DictComp: ("a dict comprehension", "use a generator over the map, e.g. all(up[c] for c in up)"),
    ast.JoinedStr: ("an f-string", "compare with a plain string, e.g. current == 's1'"),
    ast.Starred: ("unpacking (*x)", "pass the collection itself, e.g. max(ack_a)"),
    ast.Await: ("await", "expressions are evaluated over one state, synchronously"),
    ast.Yield: ("yield", "use a generator expression"),
    ast.YieldFrom: ("yield", "use a generator expression"),
}


def _short(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _source(expression: str, node: ast.AST) -> str:
    return _short(ast.get_source_segment(expression, node) or type(node).__name__)


def _depth_problem(tree: ast.AST) -> int:
    """The deepest nesting of ``tree`` (the checks below recurse)."""
    return nesting_depth(tree, ast.iter_child_nodes, MAX_DEPTH)


def parse(spec: Spec, expression: str) -> ast.Expression:
    """The checked syntax tree of ``expression``; raises ExpressionError naming the first
    construct outside the language (or every name that is neither a variable nor a constant)."""
    if not isinstance(expression, str):
        raise ExpressionError(f"an expression is text, not {type(expression).__name__}")
    if len(expression) > MAX_LENGTH:
        raise ExpressionError(f"the expression is {len(expression)} characters long; at most {MAX_LENGTH} are taken",
                              "write a shorter expression (a generator over a map replaces a list of cases)")
    try:
        tree = ast.parse(expression.strip(), mode="eval")
    except SyntaxError as error:
        raise ExpressionError(f"not an expression: {error.msg} in {_short(expression)!r}") from error
    except (ValueError, RecursionError, MemoryError) as error:  # NUL bytes; nesting the parser gives up on
        raise ExpressionError(f"not an expression: {error} in {expression[:60]!r}") from error
    if _depth_problem(tree) > MAX_DEPTH:
        raise ExpressionError(f"the expression nests deeper than {MAX_DEPTH} levels",
                              "split the condition into fewer nested parts")
    checker = _Checker(spec, expression.strip())
    checker.check(tree.body, frozenset())
    if checker.unknown:
        raise ExpressionError(
            f"{_short(expression)!r} names {sorted(checker.unknown)}, which are not variables of {spec.name} "
            f"(its variables: {', '.join(spec.var_types)}; its constants: {', '.join(spec.constants) or 'none'})",
            "use the variables and constants 'spec list' shows; enum values are strings, e.g. current == 'primary'")
    return tree


class _Checker:
    def __init__(self, spec: Spec, expression: str):
        self.spec, self.expression = spec, expression
        self.unknown: set[str] = set()

    def refuse(self, node, what: str, fix: str):
        raise ExpressionError(f"{what} is not part of the expression language: {_source(self.expression, node)!r}", fix)

    def check(self, node, bound: frozenset) -> None:  # noqa: C901 - one branch per construct, as ast lays them out
        check = self.check
        if type(node) in _REFUSED:
            self.refuse(node, *_REFUSED[type(node)])
        if isinstance(node, ast.Constant):
            v = node.value
            if isinstance(v, int) and not isinstance(v, bool) and v.bit_length() > MAX_INT_BITS:
                self.refuse(node, f"an integer of more than {MAX_INT_BITS} bits", "the specs' numbers are small: compare with one")
            if not isinstance(v, bool | int | str):
                self.refuse(node, f"the {type(v).__name__} literal", "numbers are integers; enum values are strings")
        elif isinstance(node, ast.Name):
            if node.id in FUNCTIONS and node.id not in bound:
                self.refuse(node, f"{node.id} without a call", f"call it, e.g. {node.id}(...)")
            if node.id not in bound and node.id not in self.spec.var_types and node.id not in self.spec.constants:
                self.unknown.add(node.id)
        elif isinstance(node, ast.BoolOp):
            for v in node.values:
                check(v, bound)
        elif isinstance(node, ast.UnaryOp):
            if not isinstance(node.op, ast.Not | ast.USub | ast.UAdd):
                self.refuse(node, "'~'", "use 'not' for a condition, '-' for a number")
            check(node.operand, bound)
        elif isinstance(node, ast.BinOp):
            if type(node.op) in _REFUSED_BINOPS:
                self.refuse(node, "the operator " + _REFUSED_BINOPS[type(node.op)].split(":")[0],
                            _REFUSED_BINOPS[type(node.op)].partition(": ")[2] or "use + - * // % **")
            check(node.left, bound)
            check(node.right, bound)
        elif isinstance(node, ast.Compare):
            for op in node.ops:
                if type(op) not in _COMPARISONS:
                    self.refuse(node, "'is' / 'is not'", "compare values with == and !=")
            check(node.left, bound)
            for c in node.comparators:
                check(c, bound)
        elif isinstance(node, ast.IfExp):
            for part in (node.test, node.body, node.orelse):
                check(part, bound)
        elif isinstance(node, ast.Subscript):
            check(node.value, bound)
            check(node.slice, bound)
        elif isinstance(node, ast.Slice):
            for part in (node.lower, node.upper, node.step):
                if part is not None:
                    check(part, bound)
        elif isinstance(node, ast.Tuple | ast.List | ast.Set):
            for e in node.elts:
                check(e, bound)
        elif isinstance(node, ast.Call):
            self.call(node, bound)
        elif isinstance(node, ast.GeneratorExp | ast.ListComp | ast.SetComp):
            for gen in node.generators:
                if gen.is_async:
                    self.refuse(node, "async for", "use for")
                if not isinstance(gen.target, ast.Name):
                    self.refuse(gen.target, "a 'for' target other than one name",
                                "bind one name per 'for', e.g. any(up[c] for c in up)")
                check(gen.iter, bound)
                bound = bound | {gen.target.id}
                for cond in gen.ifs:
                    check(cond, bound)
            check(node.elt, bound)
        else:
            self.refuse(node, f"a {type(node).__name__} expression", _FIX)

    def call(self, node: ast.Call, bound: frozenset) -> None:
        if node.keywords:
            self.refuse(node, "a keyword argument", "pass positional arguments only, e.g. max(ack_a)")
        func = node.func
        if isinstance(func, ast.Attribute):
            if func.attr not in METHODS:
                self.refuse(func, f"attribute access (.{_short(func.attr, 30)})", _REFUSED[ast.Attribute][1])
            if node.args:
                self.refuse(node, f".{func.attr}() with arguments", f"call .{func.attr}() without arguments")
            self.check(func.value, bound)
        elif isinstance(func, ast.Name) and func.id in FUNCTIONS and func.id not in bound:
            for a in node.args:
                self.check(a, bound)
        else:
            self.refuse(node, f"the call {_source(self.expression, func)}(...)",
                        f"the functions are {', '.join(FUNCTIONS)}")


# ------------------------------------------------------------------ evaluation

_BUDGET = " iterations left"  # not an identifier: no name of an expression can reach it


def _charge(env: dict, n: int = 1) -> None:
    env[_BUDGET][0] -= n
    if env[_BUDGET][0] < 0:
        raise ExpressionError(f"the expression iterates over more than {MAX_ITERATIONS} items for one state",
                              "iterate over the state's maps and lists, not over large ranges")


def _counted(iterable, env: dict):
    for item in iterable:
        _charge(env)
        yield item


def _int(v, what: str):
    if isinstance(v, int):
        if not isinstance(v, bool) and v.bit_length() > MAX_INT_BITS:
            raise ExpressionError(f"{what} gives a number of more than {MAX_INT_BITS} bits",
                                  "the specs' numbers are small: keep the arithmetic within them")
        return v
    raise ExpressionError(f"{what}: {type(v).__name__} where a number is expected",
                          "arithmetic takes numbers (and booleans, as 0 and 1); compare strings with == instead")


def _arith(op: type, text: str) -> Callable:
    apply = _BINOPS[op]

    def run(a, b):
        a, b = _int(a, text), _int(b, text)
        if op is ast.Pow and not 0 <= b <= MAX_EXPONENT:
            raise ExpressionError(f"{text}: the exponent {b} is outside 0..{MAX_EXPONENT}",
                                  f"use an exponent of at most {MAX_EXPONENT}")
        if op in (ast.FloorDiv, ast.Mod) and b == 0:
            raise ExpressionError(f"{text}: division by zero", "guard it, e.g. (x // y if y else 0)")
        return _int(apply(a, b), text)

    return run


def _aggregate(name: str) -> Callable:
    """A function of the language: iterables it consumes are counted against the budget."""
    real = getattr(builtins, name)

    def run(env, args):
        if name == "len":
            return real(*args)
        if name == "range":
            return real(*(_int(a, "range()") for a in args))
        if name == "abs":
            return _int(real(*args), "abs()")
        if len(args) == 1 and not isinstance(args[0], int | str):
            args = [_counted(args[0], env)]
        result = real(*args)
        return _int(result, f"{name}()") if name == "sum" else result

    return run


class _Compiler:
    """The checked tree as nested closures ``env -> value``: built once per expression, then
    evaluated per state without walking the tree again."""

    def __init__(self, expression: str):
        self.expression = expression

    def text(self, node) -> str:
        return _source(self.expression, node)

    def build(self, node) -> Callable[[dict], Any]:  # noqa: C901 - one branch per construct
        build = self.build
        if isinstance(node, ast.Constant):
            value = node.value
            return lambda env: value
        if isinstance(node, ast.Name):
            name = node.id
            return lambda env: env[name]
        if isinstance(node, ast.BoolOp):
            parts = [build(v) for v in node.values]
            if isinstance(node.op, ast.And):
                def all_of(env):
                    v = True
                    for p in parts:
                        v = p(env)
                        if not v:
                            return v
                    return v
                return all_of

            def any_of(env):
                v = False
                for p in parts:
                    v = p(env)
                    if v:
                        return v
                return v
            return any_of
        if isinstance(node, ast.UnaryOp):
            operand, text = build(node.operand), self.text(node)
            if isinstance(node.op, ast.Not):
                return lambda env: not operand(env)
            if isinstance(node.op, ast.USub):
                return lambda env: -_int(operand(env), text)
            return lambda env: _int(operand(env), text)
        if isinstance(node, ast.BinOp):
            left, right, run = build(node.left), build(node.right), _arith(type(node.op), self.text(node))
            return lambda env: run(left(env), right(env))
        if isinstance(node, ast.Compare):
            first = build(node.left)
            pairs = [(_COMPARISONS[type(op)], build(c)) for op, c in zip(node.ops, node.comparators, strict=True)]

            def compare(env):
                left = first(env)
                for apply, right_of in pairs:
                    right = right_of(env)
                    if not apply(left, right):
                        return False
                    left = right
                return True
            return compare
        if isinstance(node, ast.IfExp):
            test, body, orelse = build(node.test), build(node.body), build(node.orelse)
            return lambda env: body(env) if test(env) else orelse(env)
        if isinstance(node, ast.Subscript):
            base, key = build(node.value), build(node.slice)
            return lambda env: base(env)[key(env)]
        if isinstance(node, ast.Slice):
            parts = [None if p is None else build(p) for p in (node.lower, node.upper, node.step)]
            return lambda env: slice(*(None if p is None else _int(p(env), "a slice bound") for p in parts))
        if isinstance(node, ast.Tuple | ast.List | ast.Set):
            elts, kind = [build(e) for e in node.elts], {ast.Tuple: tuple, ast.List: list, ast.Set: set}[type(node)]
            return lambda env: kind(e(env) for e in elts)
        if isinstance(node, ast.Call):
            args = [build(a) for a in node.args]
            if isinstance(node.func, ast.Attribute):
                base, method, text = build(node.func.value), node.func.attr, self.text(node)

                def call_method(env):
                    of = base(env)
                    if not isinstance(of, dict):
                        raise ExpressionError(f"{text}: .{method}() of a {type(of).__name__}, not of a map",
                                              "call .values()/.keys() on an array indexed by an enum (a map)")
                    return list(of.values() if method == "values" else of.keys())
                return call_method
            run = _aggregate(node.func.id)
            return lambda env: run(env, [a(env) for a in args])
        if isinstance(node, ast.GeneratorExp | ast.ListComp | ast.SetComp):
            return self.comprehension(node)
        raise ExpressionError(f"a {type(node).__name__} expression is not part of the expression language")  # checked before

    def comprehension(self, node) -> Callable[[dict], Any]:
        clauses = [(g.target.id, self.build(g.iter), [self.build(c) for c in g.ifs]) for g in node.generators]
        elt = self.build(node.elt)

        def items(env, i):
            if i == len(clauses):
                yield elt(env)
                return
            name, iterable, conds = clauses[i]
            inner = dict(env)  # the clause's name is visible to the clauses after it and to the element
            for item in iterable(env):
                _charge(env)
                inner[name] = item
                if all(c(inner) for c in conds):
                    yield from items(inner, i + 1)

        if isinstance(node, ast.GeneratorExp):
            return lambda env: items(env, 0)  # lazy: any()/all() stop at the first answer
        kind = list if isinstance(node, ast.ListComp) else set
        return lambda env: kind(items(env, 0))


def compile_expression(spec: Spec, expression: str) -> Callable[[dict], Any]:
    """``expression`` checked and built: a function of the readable view (a dict of the
    variables' values) returning the expression's value. Raises ExpressionError when the text
    is outside the language; evaluation raises ExpressionError when the value cannot be had."""
    tree = parse(spec, expression)
    run = _Compiler(expression.strip()).build(tree.body)
    constants = dict(spec.constants)

    def evaluate(view: dict) -> Any:
        env = {**constants, **view, _BUDGET: [MAX_ITERATIONS]}
        try:
            return run(env)
        except ExpressionError:
            raise
        except (ArithmeticError, LookupError, TypeError, ValueError, RecursionError, MemoryError) as error:
            raise ExpressionError(f"{type(error).__name__}: {_short(str(error))}",
                                  "check the keys and the types of what the expression indexes and compares "
                                  "('spec list' shows the variables)") from error

    return evaluate


def shown(expression: str) -> str:
    """The expression as messages quote it: shortened, so a long text does not bury the problem."""
    return repr(_short(expression, 80))
