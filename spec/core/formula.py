"""A ``--reach`` expression as a z3 formula over a symbolic state, so z3 BMC can answer a reach
query the explorer cannot finish.

The expression is the one ``view.predicate`` evaluates over a concrete state (enum values by
name, arrays indexed by an enum as maps), checked against the same language first
(``expression.parse``: anything outside it raises ExpressionError before z3 sees it); here its
syntax tree is walked over the z3 terms of ``symbolic.Encoding`` instead. Only what has a finite z3 meaning is taken: comparisons, and/or/
not, + - *, conditional expressions, indexing (by name, number or a symbolic value), len/sum/
any/all/min/max/abs over an array or a generator over one. Anything else raises ``NotSymbolic``
naming the construct, and the caller keeps the explorer's answer (unknown) rather than guess.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Any

import z3

from .expression import MAX_ITERATIONS, parse
from .model import ArrayT, EnumT, Spec


class NotSymbolic(ValueError):
    """The expression uses something z3 BMC cannot take; the message names it."""


@dataclass(frozen=True)
class _Typed:
    """A value of the state with its type: a z3 term (or a tuple of them, for arrays)."""

    term: Any
    typ: Any


@dataclass(frozen=True)
class _Key:
    """An enum name met as a map key in a generator (``for c in up``): a string to the user,
    an index to the terms."""

    name: str
    index: int


_COMPARE = {ast.Eq: lambda a, b: a == b, ast.NotEq: lambda a, b: a != b, ast.Lt: lambda a, b: a < b,
            ast.LtE: lambda a, b: a <= b, ast.Gt: lambda a, b: a > b, ast.GtE: lambda a, b: a >= b}
_ARITH = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b, ast.Mult: lambda a, b: a * b}


def formula(spec: Spec, expression: str, state, numeral) -> z3.BoolRef:
    """``expression`` over the symbolic ``state`` (an Encoding state) as a z3 Boolean.

    ``numeral`` makes a number of the encoding's sort (Int or bit-vector)."""
    tree = parse(spec, expression)
    walker = _Walker(spec, state, numeral)
    return walker.boolean(walker.eval(tree.body, {}))


class _Walker:
    def __init__(self, spec: Spec, state, numeral):
        self.spec, self.state, self.numeral = spec, state, numeral
        self.items_left = MAX_ITERATIONS  # nested generators multiply the terms: bounded as the concrete reading is

    # ------------------------------------------------------------------ values

    def boolean(self, v) -> z3.BoolRef:
        v = self.scalar(v)
        if isinstance(v, bool):
            return z3.BoolVal(v)
        if z3.is_bool(v):
            return v
        raise NotSymbolic(f"a number where a condition is expected ({v}); compare it, e.g. 'x > 0'")

    def number(self, v):
        """``v`` as an unbounded z3 Int: the encoding's bit-vectors would wrap around in the
        expression's arithmetic (``fails * 20000`` in 16 bits) where Python's integers do not."""
        v = self.scalar(v)
        if isinstance(v, bool) or (z3.is_expr(v) and z3.is_bool(v)):
            return z3.If(self.boolean(v), z3.IntVal(1), z3.IntVal(0))
        if isinstance(v, int):
            return z3.IntVal(v)
        if isinstance(v, str):
            raise NotSymbolic(f"the name {v!r} used as a number; compare it with an enum variable instead")
        if z3.is_bv(v):
            return z3.BV2Int(v, is_signed=True)
        return v

    def scalar(self, v):
        if isinstance(v, _Typed):
            if isinstance(v.typ, ArrayT):
                raise NotSymbolic("a whole array where one value is expected; index it or use any()/all()/sum()")
            return v.term
        if isinstance(v, _Key):
            return v.name
        return v

    def enum_value(self, typ: EnumT, v) -> Any:
        """An enum variable's counterpart: a name becomes its index, an enum variable of the same
        type its term. A number is refused: Python compares a name with a number as unequal,
        where the terms would compare the name's index."""
        v = v.name if isinstance(v, _Key) else v
        if isinstance(v, str):
            if v not in typ.names:
                raise NotSymbolic(f"{v!r} is not one of {list(typ.names)}")
            return self.numeral(typ.names.index(v))
        if isinstance(v, _Typed) and v.typ == typ:
            return v.term
        raise NotSymbolic("an enum value compared with something other than a name or a variable of its type")

    def compare(self, op, a, b):
        apply = _COMPARE[type(op)]
        if isinstance(a, _Typed) and isinstance(a.typ, EnumT):
            return apply(a.term, self.enum_value(a.typ, b))
        if isinstance(b, _Typed) and isinstance(b.typ, EnumT):
            return apply(self.enum_value(b.typ, a), b.term)
        sa, sb = self.scalar(a), self.scalar(b)
        if isinstance(sa, str) and isinstance(sb, str):  # two map keys, e.g. 'c != d' in a generator
            if not isinstance(op, ast.Eq | ast.NotEq):
                raise NotSymbolic(f"the comparison {type(op).__name__} between names (only == and !=)")
            return apply(sa, sb)
        if isinstance(op, ast.Eq | ast.NotEq) and _is_bool(sa) and _is_bool(sb):
            return apply(self.boolean(sa), self.boolean(sb))
        return apply(self.number(sa), self.number(sb))

    # ------------------------------------------------------------------ syntax

    def eval(self, node, scope):  # noqa: C901 - one branch per construct, as ast lays them out
        if isinstance(node, ast.Constant):
            if isinstance(node.value, bool | int | str):
                return node.value
            raise NotSymbolic(f"the constant {node.value!r}")
        if isinstance(node, ast.Name):
            if node.id in scope:
                return scope[node.id]
            if node.id in self.spec.var_types:
                return _Typed(getattr(self.state, node.id), self.spec.var_types[node.id])
            if node.id in self.spec.constants:
                return self.spec.constants[node.id]
            if node.id in ("True", "False"):
                return node.id == "True"
            raise NotSymbolic(f"the name {node.id!r}")
        if isinstance(node, ast.BoolOp):
            parts = [self.boolean(self.eval(v, scope)) for v in node.values]
            return z3.And(*parts) if isinstance(node.op, ast.And) else z3.Or(*parts)
        if isinstance(node, ast.UnaryOp):
            v = self.eval(node.operand, scope)
            if isinstance(node.op, ast.Not):
                return z3.Not(self.boolean(v))
            if isinstance(node.op, ast.USub):
                return -self.number(v)
            raise NotSymbolic(f"the operator {type(node.op).__name__}")
        if isinstance(node, ast.BinOp):
            if type(node.op) not in _ARITH:
                raise NotSymbolic(f"the operator {type(node.op).__name__} (z3 BMC takes + - *)")
            return _ARITH[type(node.op)](self.number(self.eval(node.left, scope)),
                                         self.number(self.eval(node.right, scope)))
        if isinstance(node, ast.Compare):
            left, parts = self.eval(node.left, scope), []
            for op, right_node in zip(node.ops, node.comparators, strict=True):
                right = self.eval(right_node, scope)
                if type(op) not in _COMPARE:
                    raise NotSymbolic(f"the comparison {type(op).__name__} (z3 BMC takes == != < <= > >=)")
                parts.append(self.compare(op, left, right))
                left = right
            return z3.And(*(self.boolean(p) for p in parts))
        if isinstance(node, ast.IfExp):
            cond = self.boolean(self.eval(node.test, scope))
            a, b = self.eval(node.body, scope), self.eval(node.orelse, scope)
            if _is_bool(self.scalar(a)) and _is_bool(self.scalar(b)):
                return z3.If(cond, self.boolean(a), self.boolean(b))
            return z3.If(cond, self.number(a), self.number(b))
        if isinstance(node, ast.Subscript):
            return self.index(self.eval(node.value, scope), self.eval(node.slice, scope))
        if isinstance(node, ast.Call):
            return self.call(node, scope)
        raise NotSymbolic(f"{type(node).__name__} expressions")

    def index(self, base, key):
        if not (isinstance(base, _Typed) and isinstance(base.typ, ArrayT)):
            raise NotSymbolic("indexing something that is not an array of the state")
        typ = base.typ
        if isinstance(key, _Key):
            key = key.index
        elif isinstance(key, str):
            if isinstance(typ.index, int) or key not in typ.index.names:
                raise NotSymbolic(f"{key!r} is not a key of this array")
            key = typ.index.names.index(key)
        if isinstance(key, int) and not isinstance(key, bool):
            if not 0 <= key < typ.size:
                raise NotSymbolic(f"index {key} is outside 0..{typ.size - 1}")
            return _Typed(base.term[key], typ.elem)
        term = self.number(key)
        return _Typed(_select(base.term, term, z3.IntVal), typ.elem)

    def elements(self, v) -> list:
        """What iterating a value of the readable view yields: a map its keys, a list its items."""
        if isinstance(v, list):  # m.values() / m.keys()
            return v
        if isinstance(v, _Typed) and isinstance(v.typ, ArrayT):
            if isinstance(v.typ.index, EnumT):
                return [_Key(name, i) for i, name in enumerate(v.typ.index.names)]
            return [_Typed(t, v.typ.elem) for t in v.term]
        raise NotSymbolic("iterating something that is not an array of the state")

    def values_of(self, node, scope) -> list:
        """The values an aggregate (sum/any/all/min/max) runs over: an array's items, or a generator's."""
        if isinstance(node, ast.GeneratorExp | ast.ListComp):
            return list(self.generate(node.elt, node.generators, scope, []))
        base = self.eval(node, scope)
        if isinstance(base, list):
            return [(None, v) for v in base]
        if isinstance(base, _Typed) and isinstance(base.typ, ArrayT):
            return [(None, self.index(base, i)) for i in range(base.typ.size)]
        raise NotSymbolic("an aggregate over something that is not an array or a generator")

    def generate(self, elt, generators, scope, conds):
        """(condition or None, value) per item of ``for ... in ... if ...`` clauses, nested left to right."""
        if not generators:
            yield (z3.And(*conds) if conds else None), self.eval(elt, scope)
            return
        gen, rest = generators[0], generators[1:]
        if gen.is_async or not isinstance(gen.target, ast.Name):
            raise NotSymbolic("a generator target that is not one name")
        for item in self.elements(self.eval(gen.iter, scope)):
            self.items_left -= 1
            if self.items_left < 0:
                raise NotSymbolic(f"generators over more than {MAX_ITERATIONS} items")
            inner = {**scope, gen.target.id: item}
            yield from self.generate(elt, rest, inner, [*conds, *(self.boolean(self.eval(c, inner)) for c in gen.ifs)])

    def call(self, node, scope):
        if isinstance(node.func, ast.Attribute) and node.func.attr in ("values", "keys") \
                and not node.args and not node.keywords:
            base = self.eval(node.func.value, scope)
            if not (isinstance(base, _Typed) and isinstance(base.typ, ArrayT) and isinstance(base.typ.index, EnumT)):
                raise NotSymbolic(f".{node.func.attr}() of something that is not a map of the state")
            if node.func.attr == "keys":
                return self.elements(base)
            return [self.index(base, i) for i in range(base.typ.size)]
        if not isinstance(node.func, ast.Name) or node.keywords:
            raise NotSymbolic("a call other than len/sum/any/all/min/max/abs")
        name, args = node.func.id, node.args
        if name == "len" and len(args) == 1:
            base = self.eval(args[0], scope)
            if isinstance(base, _Typed) and isinstance(base.typ, ArrayT):
                return base.typ.size
            raise NotSymbolic("len() of something that is not an array")
        if name == "abs" and len(args) == 1:
            v = self.number(self.eval(args[0], scope))
            return z3.If(v >= 0, v, -v)
        if name in ("sum", "any", "all") and len(args) == 1:
            items = self.values_of(args[0], scope)
            if name == "sum":
                terms = [self.number(v) if c is None else z3.If(c, self.number(v), z3.IntVal(0)) for c, v in items]
                return z3.Sum(*terms) if terms else z3.IntVal(0)
            conds = [self.boolean(v) if c is None else
                     (z3.And(c, self.boolean(v)) if name == "any" else z3.Implies(c, self.boolean(v)))
                     for c, v in items]
            return (z3.Or if name == "any" else z3.And)(*conds) if conds else z3.BoolVal(name == "all")
        if name in ("min", "max"):
            items = self.values_of(args[0], scope) if len(args) == 1 else [(None, self.eval(a, scope)) for a in args]
            if any(c is not None for c, _ in items) or not items:
                raise NotSymbolic(f"{name}() over a filtered generator (it may be empty)")
            best = self.number(items[0][1])
            for _, v in items[1:]:
                v = self.number(v)
                best = z3.If(v < best if name == "min" else v > best, v, best)
            return best
        raise NotSymbolic(f"the call {name}() (z3 BMC takes len/sum/any/all/min/max/abs)")


def _select(items: tuple, index, numeral):
    """items[index] for a symbolic index: an If chain, element-wise for nested arrays."""
    result = items[-1]
    for j in range(len(items) - 2, -1, -1):
        result = _ite(index == numeral(j), items[j], result)
    return result


def _ite(cond, a, b):
    if isinstance(a, tuple):
        return tuple(_ite(cond, x, y) for x, y in zip(a, b, strict=True))
    return z3.If(cond, a, b)


def _is_bool(v) -> bool:
    return isinstance(v, bool) or (z3.is_expr(v) and z3.is_bool(v))
