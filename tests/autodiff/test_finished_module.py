"""grad, jvp and vjp inside a staged function: the AD passes build derivatives in the
trace's own module (nothing is copied), from the finished function to differentiate and
its callees; the caller still being traced is left as it is."""

from __future__ import annotations

import numpy as np
import pytest

import s4tf
from s4tf.transforms import autodiff
from s4tf.core.mlir import ir
from s4tf.dialects.symbols import functions

pytestmark = pytest.mark.references  # outside the IREE sample: through the ops' references (tests/conftest.py)

X = np.array([0.5, -1.0, 2.0], np.float32)


def _unfinished(module) -> list[str]:
    """The functions of ``module`` whose body does not end with a return yet."""
    found = []
    for operation in module.operation.regions[0].blocks[0].operations:
        blocks = list(operation.regions[0].blocks)
        if blocks and (not list(blocks[-1].operations) or list(blocks[-1].operations)[-1].operation.name != "func.return"):
            found.append(ir.StringAttr(operation.attributes["sym_name"]).value)
    return found


def _operations_of(module, symbol: str) -> int:
    return len(list(functions(module)[symbol].regions[0].blocks[0].operations))


def test_the_ad_passes_build_in_the_trace_module_and_leave_the_caller_alone(monkeypatch):
    seen = []

    def watching(build):
        def watched(module, symbol, wrt, *rest):
            before = set(functions(module)), _operations_of(module, "step")
            result = build(module, symbol, wrt, *rest)
            seen.append((build.__name__, _unfinished(module), before, set(functions(module)), _operations_of(module, "step")))
            return result

        return watched

    monkeypatch.setattr(autodiff, "vjp_functions", watching(autodiff.vjp_functions))
    monkeypatch.setattr(autodiff, "jvp_function", watching(autodiff.jvp_function))

    def loss(w):
        return s4tf.sum(s4tf.sin(w) * w)

    @s4tf.function
    def step(w):
        _, tangent = s4tf.jvp(loss, (w,), (s4tf.ones_like(w),))
        value, pullback = s4tf.vjp(loss, w)
        return w - 0.1 * s4tf.grad(loss)(w), tangent, pullback(1.0)[0]

    updated, tangent, cotangent = step(X)
    derivative = np.sin(X) + X * np.cos(X)
    np.testing.assert_allclose(np.asarray(updated), X - 0.1 * derivative, rtol=1e-5)
    np.testing.assert_allclose(np.asarray(tangent), derivative.sum(), rtol=1e-5)
    np.testing.assert_allclose(np.asarray(cotangent), derivative, rtol=1e-5)
    assert [name for name, *_ in seen] == ["jvp_function", "vjp_functions", "vjp_functions"]
    for _, unfinished, (symbols_before, caller_before), symbols_after, caller_after in seen:
        assert "step" in unfinished  # the trace's module, with the functions being traced around the call
        assert caller_after == caller_before  # the passes add functions, never ops of the caller
        assert symbols_before <= symbols_after
    assert "loss" in seen[0][2][0] and seen[1][3] - seen[1][2][0]  # the first vjp built functions
    assert seen[2][3] == seen[2][2][0]  # grad's vjp reuses them, in the same module


def test_a_function_traced_after_a_derivative_does_not_take_its_name():
    @s4tf.function
    def loss_vjp(w):  # the name s4tf-vjp gives the derivative of 'loss'
        return w * 3.0

    def loss(w):
        return s4tf.sum(w * w)

    @s4tf.function
    def step(w):
        return s4tf.grad(loss)(w) + loss_vjp(w)

    np.testing.assert_allclose(np.asarray(step(X)), 2 * X + 3 * X, rtol=1e-5)
    text = str(step.lower(X))
    assert "func.func private @loss_vjp(" in text and "func.func private @loss_vjp_1(" in text
