"""``jacfwd``, ``jacrev`` and ``hessian`` (vmapped JVPs and VJPs over basis vectors)
against float64 central differences, eagerly and inside ``@s4tf.function``."""

from __future__ import annotations

import numpy as np
import pytest

import s4tf
from s4tf import numpy_api as snp
from s4tf.errors import S4tfError

RNG = np.random.default_rng(2)
A = RNG.standard_normal((3, 2, 4))
X = RNG.standard_normal((2, 4))


# arithmetic only: IREE's CPU executables have no f64 tanh or sin (docs/trust.md)
def layer(x):
    z = snp.sum(snp.asarray(A, x.dtype) * x, axis=(1, 2)) + x[0, 0]
    return z / (1.0 + z * z)


def layer_np(x):
    z = (A * x).sum(axis=(1, 2)) + x[0, 0]
    return z / (1.0 + z * z)


def scalar(x):
    return snp.sum(x * x * x * x[0, 1]) + snp.sum(x * x) ** 2


def scalar_np(x):
    return np.sum(x**3 * x[0, 1]) + np.sum(x * x) ** 2


def _numeric_jacobian(fn, x, eps=1e-6):
    """d fn / d x, shape fn(x).shape + x.shape, by float64 central differences."""
    columns = []
    for index in range(x.size):
        step = np.zeros(x.size)
        step[index] = eps
        step = step.reshape(x.shape)
        columns.append((fn(x + step) - fn(x - step)) / (2 * eps))
    return np.moveaxis(np.asarray(columns), 0, -1).reshape(np.shape(fn(x)) + x.shape)


@pytest.mark.parametrize("transform", [s4tf.jacfwd, s4tf.jacrev], ids=["jacfwd", "jacrev"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_jacobian_matches_finite_differences(transform, dtype):
    result = np.asarray(transform(layer)(X.astype(dtype)))
    assert result.shape == (3, 2, 4)
    tolerance = 1e-8 if dtype == np.float64 else 2e-5
    np.testing.assert_allclose(result, _numeric_jacobian(layer_np, X), rtol=tolerance * 10, atol=tolerance)


def test_hessian_matches_finite_differences_of_the_gradient():
    result = np.asarray(s4tf.hessian(scalar)(X))
    assert result.shape == (2, 4, 2, 4)
    gradient = lambda x: _numeric_jacobian(scalar_np, x, eps=1e-5)  # noqa: E731
    np.testing.assert_allclose(result, _numeric_jacobian(gradient, X, eps=1e-4), rtol=1e-5, atol=1e-5)
    flat = result.reshape(8, 8)
    np.testing.assert_allclose(flat, flat.T, atol=1e-10)


def test_jacobian_of_another_argument_inside_a_staged_function():
    @s4tf.function
    def scaled(w, x):
        return s4tf.jacrev(lambda w, x: x * w * w, argnums=0)(w, x) * 2.0

    w, x = np.float64(0.7), X[0]
    np.testing.assert_allclose(np.asarray(scaled(w, x)), 2.0 * x * 2 * w, rtol=1e-12)


def test_an_integer_argument_is_an_error():
    with pytest.raises(S4tfError, match="jacfwd: argument 0 must be a float array"):
        s4tf.jacfwd(lambda x: x * 2)(np.arange(3))
