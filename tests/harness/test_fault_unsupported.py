"""A fault the deployment cannot inject (an external file's ``none``) makes the test unknown: the
conformance layer's pytest_runtest_call turns FaultUnsupported into VerdictUnknown (issue 32)."""
from __future__ import annotations

import pytest

from pulsar_conformance.conformance import conftest
from pulsar_conformance.conformance.run import VerdictUnknown
from pulsar_conformance.fixtures.deploy.base import FaultUnsupported


def test_a_fault_the_deployment_cannot_inject_is_unknown_not_an_error():
    call = conftest.pytest_runtest_call(item=None)
    next(call)
    with pytest.raises(VerdictUnknown, match="cannot inject a fault this scenario needs: kill blue"):
        call.throw(FaultUnsupported("kill blue: the deployment file gives none"))


def test_other_errors_pass_through_and_a_clean_call_returns():
    call = conftest.pytest_runtest_call(item=None)
    next(call)
    with pytest.raises(AssertionError):
        call.throw(AssertionError("a product defect"))
    clean = conftest.pytest_runtest_call(item=None)
    next(clean)
    with pytest.raises(StopIteration):
        clean.send(None)
