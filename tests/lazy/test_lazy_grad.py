"""Derivatives of Python functions on lazy tensors: against float64 central finite
differences, against staged mode, first and second order.
The first-order check computes in float32 (float64 tanh has no CPU code in IREE)."""

from __future__ import annotations

import numpy as np

import s4tf
from s4tf.lazy_tensors.trace import LazyTensor

RNG = np.random.default_rng(3)
PARAMS = {"w": RNG.standard_normal((3, 2)).astype(np.float32), "b": RNG.standard_normal(2).astype(np.float32)}
X = RNG.standard_normal((4, 3)).astype(np.float32)
EPS = 1e-6


def f(params, x, scale):
    return s4tf.sum(s4tf.tanh(x @ params["w"] + params["b"]) ** 2) * scale


def f_numpy(params, x, scale):
    params = {k: v.astype(np.float64) for k, v in params.items()}
    return float(np.sum(np.tanh(x.astype(np.float64) @ params["w"] + params["b"]) ** 2) * scale)


def finite_difference(fn, params, key):
    result = np.zeros(params[key].shape)
    for index in np.ndindex(result.shape):
        plus = {k: v.astype(np.float64) for k, v in params.items()}
        minus = {k: v.astype(np.float64) for k, v in params.items()}
        plus[key][index] += EPS
        minus[key][index] -= EPS
        result[index] = (fn(plus) - fn(minus)) / (2 * EPS)
    return result


def test_value_and_grad_of_a_python_function_matches_finite_differences_and_staged_mode():
    with s4tf.lazy():
        x = s4tf.asarray(X) * 1.0  # a lazy tensor as an argument
        value, (grads, dx) = s4tf.value_and_grad(f, argnums=(0, 1))(PARAMS, x, 0.5)
        assert isinstance(value, LazyTensor) and isinstance(grads["w"], LazyTensor)
    np.testing.assert_allclose(float(value), f_numpy(PARAMS, X, 0.5), rtol=1e-6)
    for key in PARAMS:
        expected = finite_difference(lambda p: f_numpy(p, X, 0.5), PARAMS, key)
        np.testing.assert_allclose(np.asarray(grads[key]), expected, rtol=1e-5, atol=1e-6)
    staged = s4tf.function(lambda p, x: s4tf.value_and_grad(f, argnums=(0, 1))(p, x, 0.5))(PARAMS, X)
    np.testing.assert_allclose(np.asarray(dx), np.asarray(staged[1][1]), rtol=1e-6)
    for key in PARAMS:
        np.testing.assert_allclose(np.asarray(grads[key]), np.asarray(staged[1][0][key]), rtol=1e-6)


def test_a_changed_static_argument_gives_its_own_gradient():
    with s4tf.lazy():
        halves = s4tf.grad(f)(PARAMS, X, 0.5)
        doubles = s4tf.grad(f)(PARAMS, X, 2.0)
    np.testing.assert_allclose(np.asarray(doubles["w"]), 4 * np.asarray(halves["w"]), rtol=1e-6)


def test_second_order_a_hessian_vector_product_in_lazy_mode():
    w = RNG.standard_normal(5)
    v = RNG.standard_normal(5)

    def g(w):
        return s4tf.sum(s4tf.exp(w) * w)

    with s4tf.lazy():
        hvp = s4tf.grad(lambda w: s4tf.sum(s4tf.grad(g)(w) * v))(w)
        assert isinstance(hvp, LazyTensor)
    np.testing.assert_allclose(np.asarray(hvp), np.exp(w) * (2 + w) * v, rtol=1e-10)
