"""The two operation kits a spec's methods run on: Python values and z3 terms.

Both kits expose the same names. The concrete kit is written for speed (the explorer
calls it millions of times); the z3 kit folds Python constants where it can so that
formulas stay small when an index or a condition is already known.
"""
from __future__ import annotations

import z3


class ConcreteKit:
    symbolic = False

    @staticmethod
    def And(*xs):
        for x in xs:
            if not x:
                return False
        return True

    @staticmethod
    def Or(*xs):
        for x in xs:
            if x:
                return True
        return False

    @staticmethod
    def Not(x):
        return not x

    @staticmethod
    def Implies(a, b):
        return (not a) or b

    @staticmethod
    def If(c, a, b):
        return a if c else b

    @staticmethod
    def at(seq, i):
        return seq[i]

    @staticmethod
    def store(seq, i, v):
        return seq[:i] + (v,) + seq[i + 1 :]

    @staticmethod
    def eq(a, b):
        return a == b

    @staticmethod
    def Min(a, b):
        return a if a <= b else b

    @staticmethod
    def Max(a, b):
        return a if a >= b else b

    @staticmethod
    def count(xs):
        return sum(1 for x in xs if x)

    @staticmethod
    def Sum(xs):
        return sum(xs)

    @staticmethod
    def AllOf(xs):
        return all(xs)

    @staticmethod
    def AnyOf(xs):
        return any(xs)

    @staticmethod
    def first(conds, values, default):
        """The value of the first true condition, else ``default`` (a priority choice)."""
        for c, v in zip(conds, values, strict=True):
            if c:
                return v
        return default


def _is_py(x) -> bool:
    return isinstance(x, (bool, int))


class Z3Kit:
    """``numeral`` turns a Python int into a term of the encoding's number sort (Int or a
    bit-vector): only needed where both branches of an If are Python ints, everywhere else
    z3 coerces a Python int to the sort of the term it meets."""

    symbolic = True

    def __init__(self, numeral=z3.IntVal):
        self.numeral = numeral

    @staticmethod
    def And(*xs):
        if any(x is False for x in xs):
            return False
        rest = [x for x in xs if x is not True]
        if not rest:
            return True
        return rest[0] if len(rest) == 1 else z3.And(*rest)

    @staticmethod
    def Or(*xs):
        if any(x is True for x in xs):
            return True
        rest = [x for x in xs if x is not False]
        if not rest:
            return False
        return rest[0] if len(rest) == 1 else z3.Or(*rest)

    @staticmethod
    def Not(x):
        return (not x) if isinstance(x, bool) else z3.Not(x)

    def Implies(self, a, b):
        return self.Or(self.Not(a), b)

    def If(self, c, a, b):
        if isinstance(c, bool):
            return a if c else b
        if isinstance(a, tuple):
            return tuple(self.If(c, x, y) for x, y in zip(a, b, strict=True))
        if _is_py(a) and _is_py(b):
            if a == b and type(a) is type(b):
                return a
            if not isinstance(a, bool) and not isinstance(b, bool):
                return z3.If(c, self.numeral(a), self.numeral(b))
        return z3.If(c, a, b)

    def at(self, seq, i):
        if _is_py(i):
            return seq[i]
        result = seq[-1]
        for j in range(len(seq) - 2, -1, -1):
            result = self.If(i == j, seq[j], result)
        return result

    def store(self, seq, i, v):
        if _is_py(i):
            return seq[:i] + (v,) + seq[i + 1 :]
        return tuple(self.If(i == j, v, old) for j, old in enumerate(seq))

    def eq(self, a, b):
        if isinstance(a, tuple):
            return self.And(*(self.eq(x, y) for x, y in zip(a, b, strict=True)))
        return a == b

    @classmethod
    def Min(cls, a, b):
        if _is_py(a) and _is_py(b):
            return min(a, b)
        return z3.If(a <= b, a, b)

    @classmethod
    def Max(cls, a, b):
        if _is_py(a) and _is_py(b):
            return max(a, b)
        return z3.If(a >= b, a, b)

    def count(self, xs):
        return self.Sum([self.If(x, 1, 0) for x in xs])

    @staticmethod
    def Sum(xs):
        xs = list(xs)
        const = sum(x for x in xs if _is_py(x))
        terms = [x for x in xs if not _is_py(x)]
        if not terms:
            return const
        total = terms[0] if len(terms) == 1 else z3.Sum(*terms)
        return total + const if const else total

    def AllOf(self, xs):
        return self.And(*xs)

    def AnyOf(self, xs):
        return self.Or(*xs)

    def first(self, conds, values, default):
        result = default
        for c, v in reversed(list(zip(conds, values, strict=True))):
            result = self.If(c, v, result)
        return result


CONCRETE = ConcreteKit()
Z3 = Z3Kit()
