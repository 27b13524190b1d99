"""A spec's declarations are checked when its class is defined (issue 28): a variant named in
``holds_in``/``violated_in`` or by a mutant that the spec does not have used to make an invariant
silently unchecked in every variant (or a mutant unrunnable)."""
from __future__ import annotations

import pytest

from pulsar_conformance.spec.core.model import IntT, Mutant, Spec, action, declaration_problems, invariant
from pulsar_conformance.spec.registry import SPECS


def _spec(holds_in=None, violated_in=(), mutants=(), limits=None):
    """A two-variant spec defined on the spot, with the declarations under test."""

    class Tiny(Spec):
        name = "tiny"
        VARIANTS = {"fast": "", "slow": ""}
        DEFAULT_VARIANT = "fast"
        CONSTANTS = {"N": 2}
        CONSTANT_LIMITS = {"N": (1, 4)} if limits is None else limits
        MUTANTS = mutants

        def variables(self):
            return {"x": IntT(0, self.N)}

        def init(self, k):
            return {"x": 0}

        @action()
        def inc(self, s, k):
            return s.x < self.N, {"x": s.x + 1}

        @invariant(holds_in=holds_in, violated_in=violated_in)
        def small(self, s, k):
            return s.x <= self.N

    return Tiny


def test_a_mistyped_variant_in_holds_in_is_an_error_naming_the_variants():
    assert _spec(holds_in=("slow",))().expectation(_spec(holds_in=("slow",))().invariant("small")) == "n/a"
    with pytest.raises(TypeError, match=r"small: holds_in names \['sloow'\].*unchecked.*fast, slow"):
        _spec(holds_in=("fast", "sloow"))


def test_a_mistyped_variant_in_violated_in_or_a_mutant_is_an_error():
    with pytest.raises(TypeError, match=r"violated_in names \['fats'\]"):
        _spec(violated_in=("fats",))
    with pytest.raises(TypeError, match=r"mutant off: variant 'quick' is not one.*fast, slow"):
        _spec(mutants=(Mutant("off", "", ("small",), "quick"),))
    with pytest.raises(TypeError, match=r"mutant off: breaks \['smal'\].*name some of small"):
        _spec(mutants=(Mutant("off", "", ("smal",), "fast"),))


def test_every_constant_has_limits_that_hold_its_default():
    with pytest.raises(TypeError, match=r"constants \['N'\] have no CONSTANT_LIMITS"):
        _spec(limits={})
    with pytest.raises(TypeError, match="default 2 is outside its limits 3..4"):
        _spec(limits={"N": (3, 4)})


@pytest.mark.parametrize("cls", list(SPECS.values()), ids=list(SPECS))
def test_the_shipped_specs_declare_cleanly_and_work_at_their_limits(cls):
    """Every spec of the descriptors: no declaration problem, and an instance at each end of each
    constant's limits builds and takes steps (a limit no engine can use would be a wrong limit)."""
    from pulsar_conformance.spec.core.explorer import explore

    assert declaration_problems(cls) == []
    for name, (lo, hi) in cls.CONSTANT_LIMITS.items():
        for value in (lo, hi):
            result = explore(cls(**{name: value}), max_states=300)
            assert result.transitions > 0, (name, value)


def test_a_constant_that_is_not_an_integer_is_a_value_error_naming_it():
    from pulsar_conformance.spec.protocols.tenant_migration import TenantMigration

    for wrong in ("3", True, 2.0, None):
        with pytest.raises(ValueError, match="MESSAGES"):
            TenantMigration(MESSAGES=wrong)
    assert TenantMigration(MESSAGES=2).constants["MESSAGES"] == 2
