"""Sums of products with a broadcast factor, and their derivatives, through IREE.

IREE 3.13 could not compile ``s4tf.sum(t * b)`` for ``t`` of shape ``(4, 5)`` and ``b`` of
``(5,)`` ("'vector.contract' op invalid accumulator/result vector shape"); the staged
``value_and_grad`` of ``sum(tanh(x @ w) * b)`` has that sum in it (``grad`` alone, which
does not compute the value, did not). Sums over several axes now lower one axis at a
time (``dialects/reductions.py``); see ``docs/trust.md``.
"""

import numpy as np
import pytest
from gradient_checks import directional_check, second_order_check

import s4tf

RNG = np.random.default_rng(23)


def _tanh_layer_loss(b):
    return lambda w, x: s4tf.sum(s4tf.tanh(x @ w) * b)


def _tanh_layer_numpy(w, x, b):
    """The loss and its gradients with respect to ``w`` and ``x``, in float64."""
    w, x, b = (np.asarray(a, np.float64) for a in (w, x, b))
    t = np.tanh(x @ w)
    ct = (1 - t * t) * b
    return np.sum(t * b), x.T @ ct, ct @ w.T


@pytest.mark.parametrize("x_shape, w_shape", [((4, 3), (3, 5)), ((2, 1), (1, 2)), ((6, 8), (8, 16))])
def test_value_and_grad_of_a_tanh_layer_with_respect_to_both_operands(x_shape, w_shape):
    x = RNG.standard_normal(x_shape).astype(np.float32)
    w = RNG.standard_normal(w_shape).astype(np.float32)
    b = RNG.standard_normal(w_shape[-1:]).astype(np.float32)
    value, (grad_w, grad_x) = s4tf.function(s4tf.value_and_grad(_tanh_layer_loss(b), argnums=(0, 1)))(w, x)
    expected_value, expected_w, expected_x = _tanh_layer_numpy(w, x, b)
    np.testing.assert_allclose(np.asarray(value), expected_value, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(np.asarray(grad_w), expected_w, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(np.asarray(grad_x), expected_x, rtol=1e-5, atol=1e-5)


def test_tanh_layer_derivatives_against_float64_finite_differences():
    """In float64, with tanh written through the sigmoid (IREE's CPU backend has no f64
    tanh): first order in both operands, second order in ``w``, forward and reverse."""
    x, w, b = (RNG.standard_normal(s) for s in ((4, 3), (3, 5), (5,)))

    def loss(w, x):
        return s4tf.sum((2 * s4tf.sigmoid(2 * (x @ w)) - 1) * b)

    np.testing.assert_allclose(np.asarray(s4tf.function(loss)(w, x)), _tanh_layer_numpy(w, x, b)[0], rtol=1e-12)
    directional_check(loss, (w, x))
    second_order_check(lambda w: loss(w, x), w)


@pytest.mark.parametrize(
    "t_shape, b_shape, axis",
    [((4, 5), (5,), None), ((2, 4, 5), (5,), (1, 2)), ((2, 4, 5), (5,), (0, 2)), ((2, 4, 5), (2, 1, 5), (1, 2))],
)
def test_sum_and_mean_of_a_broadcast_product_and_their_gradients(t_shape, b_shape, axis):
    t, b = RNG.standard_normal(t_shape), RNG.standard_normal(b_shape)

    def loss(t, b):
        return s4tf.sum(t * b, axis=axis) + s4tf.mean(t * b, axis=axis)

    expected = np.sum(t * b, axis=axis) + np.mean(t * b, axis=axis)
    np.testing.assert_allclose(np.asarray(s4tf.function(loss)(t, b)), expected, rtol=1e-12)
    directional_check(loss, (t, b))
