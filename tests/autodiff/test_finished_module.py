"""grad, jvp and vjp inside a staged function: the AD passes build derivatives from a
finished module (a side module holding the traced function and its callees), never from
the module whose caller is still being traced; the functions they add are then linked in."""

from __future__ import annotations

import numpy as np

import s4tf
from s4tf.transforms import autodiff
from s4tf.core.mlir import ir

X = np.array([0.5, -1.0, 2.0], np.float32)


def _unfinished(module) -> list[str]:
    """The functions of ``module`` whose body does not end with a return yet."""
    found = []
    for operation in module.operation.regions[0].blocks[0].operations:
        blocks = list(operation.regions[0].blocks)
        if blocks and (not list(blocks[-1].operations) or list(blocks[-1].operations)[-1].operation.name != "func.return"):
            found.append(ir.StringAttr(operation.attributes["sym_name"]).value)
    return found


def test_the_ad_passes_see_only_finished_functions(monkeypatch):
    seen = []

    def watching(build):
        def watched(module, symbol, wrt, *rest):
            seen.append((build.__name__, _unfinished(module)))
            return build(module, symbol, wrt, *rest)

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
    assert [name for name, _ in seen] == ["jvp_function", "vjp_functions", "vjp_functions"]
    assert all(unfinished == [] for _, unfinished in seen), seen  # 'step' was never among them


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
