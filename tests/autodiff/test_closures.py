"""Functions that close over tensors of the staged function around them: differentiated
functions and nested staged functions get the captured tensors as extra arguments."""

from __future__ import annotations

import numpy as np
import pytest

import s4tf

pytestmark = pytest.mark.references  # outside the IREE sample: through the ops' references (tests/conftest.py)


def test_grad_of_a_closure_inside_a_staged_function_matches_numpy():
    """The issue's training-step form: ``value_and_grad(lambda m: loss(m, x, y))(model)``."""

    @s4tf.function
    def step(w, x, y):
        loss, g = s4tf.value_and_grad(lambda w: s4tf.mean((x @ w - y) ** 2))(w)
        return w - 0.1 * g, loss

    rng = np.random.default_rng(0)
    w, x, y = (rng.standard_normal(s).astype(np.float32) for s in ((3, 2), (5, 3), (5, 2)))
    new_w, loss = step(w, x, y)
    residual = x @ w - y
    np.testing.assert_allclose(float(np.asarray(loss)), np.mean(residual**2), rtol=1e-5)
    np.testing.assert_allclose(np.asarray(new_w), w - 0.1 * 2 * x.T @ residual / residual.size, rtol=1e-5, atol=1e-6)
    lowered = str(step.lower(w, x, y))
    assert lowered.count("func.func") >= 2  # the closure stays a function of its own, called


def test_closed_over_tensors_get_no_derivative_and_jvp_vjp_work_too():
    @s4tf.function
    def derivatives(a, x):
        scale = s4tf.exp(a)  # a tensor of the outer function
        f = lambda x: s4tf.sin(x) * scale
        _, tangent = s4tf.jvp(f, (x,), (s4tf.ones_like(x),))
        _, pullback = s4tf.vjp(f, x)
        (cotangent,) = pullback(s4tf.ones_like(x))
        return tangent, cotangent, s4tf.grad(lambda x: f(x).sum())(x)

    a, x = np.float32(0.5), np.linspace(-1, 1, 4).astype(np.float32)
    expected = np.cos(x) * np.exp(a)
    for result in derivatives(a, x):
        np.testing.assert_allclose(np.asarray(result), expected, rtol=1e-5)


def test_a_nested_staged_function_may_close_over_the_outer_tensors():
    @s4tf.function
    def outer(x, y):
        @s4tf.function
        def inner(z):
            return z * y + x

        return inner(x) + inner(y)

    x, y = np.arange(3, dtype=np.float32), np.full(3, 2.0, np.float32)
    np.testing.assert_allclose(np.asarray(outer(x, y)), (x * y + x) + (y * y + x))
