"""``jacfwd``, ``jacrev`` and ``hessian`` (vmapped JVPs and VJPs over basis vectors)
against float64 central differences, eagerly and inside ``@s4tf.function``."""

from __future__ import annotations

import numpy as np
import pytest

import s4tf
from s4tf.arrays import numpy_api as snp
from s4tf.core.errors import S4tfError
from tests.autodiff.gradient_checks import numeric_jacobian

pytestmark = pytest.mark.references  # outside the IREE sample: through the ops' references (tests/conftest.py)

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


@pytest.mark.parametrize("transform", [s4tf.jacfwd, s4tf.jacrev], ids=["jacfwd", "jacrev"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_jacobian_matches_finite_differences(transform, dtype):
    result = np.asarray(transform(layer)(X.astype(dtype)))
    assert result.shape == (3, 2, 4)
    tolerance = 1e-8 if dtype == np.float64 else 2e-5
    np.testing.assert_allclose(result, numeric_jacobian(layer_np, X), rtol=tolerance * 10, atol=tolerance)


def test_hessian_matches_finite_differences_of_the_gradient():
    result = np.asarray(s4tf.hessian(scalar)(X))
    assert result.shape == (2, 4, 2, 4)
    gradient = lambda x: numeric_jacobian(scalar_np, x, eps=1e-5)  # noqa: E731
    np.testing.assert_allclose(result, numeric_jacobian(gradient, X, eps=1e-4), rtol=1e-5, atol=1e-5)
    flat = result.reshape(8, 8)
    np.testing.assert_allclose(flat, flat.T, atol=1e-10)


def test_jacobian_of_another_argument_inside_a_staged_function():
    @s4tf.function
    def scaled(w, x):
        return s4tf.jacrev(lambda w, x: x * w * w, argnums=0)(w, x) * 2.0

    w, x = np.float64(0.7), X[0]
    np.testing.assert_allclose(np.asarray(scaled(w, x)), 2.0 * x * 2 * w, rtol=1e-12)


def test_an_integer_argument_is_an_error():
    with pytest.raises(S4tfError, match=r"jacfwd: argument\(s\) 0 must be float arrays"):
        s4tf.jacfwd(lambda x: x * 2)(np.arange(3))


P = {"w": RNG.standard_normal((3, 2)), "b": RNG.standard_normal(2)}
V = RNG.standard_normal(3)


def model(p, v):
    z = v @ p["w"] + p["b"]
    return {"z": z / (1.0 + z * z), "n": snp.sum(z * z * v[0])}


def model_np(p, v):
    z = v @ p["w"] + p["b"]
    return {"z": z / (1.0 + z * z), "n": np.sum(z * z * v[0])}


def _numeric_blocks(fn, args, argnums):
    """{result key: tuple over argnums of the argument's pytree of blocks} by central differences."""
    out = {}
    for key in fn(*args):
        per_arg = []
        for index in argnums:
            def leaf_fn(value, path, index=index, key=key):
                changed = list(args)
                if isinstance(args[index], dict):
                    changed[index] = {**args[index], path: value}
                else:
                    changed[index] = value
                return fn(*changed)[key]

            if isinstance(args[index], dict):
                per_arg.append({k: numeric_jacobian(lambda v, k=k: leaf_fn(v, k), args[index][k]) for k in args[index]})
            else:
                per_arg.append(numeric_jacobian(lambda v: leaf_fn(v, None), args[index]))
        out[key] = tuple(per_arg)
    return out


@pytest.mark.parametrize("transform", [s4tf.jacfwd, s4tf.jacrev], ids=["jacfwd", "jacrev"])
def test_pytree_arguments_results_and_argnums_tuples(transform):
    numeric = _numeric_blocks(model_np, (P, V), (0, 1))
    both = transform(model, argnums=(0, 1))(P, V)
    first = transform(model)(P, V)  # argnums=0: the blocks without the tuple
    for key in ("z", "n"):
        assert isinstance(both[key], tuple) and len(both[key]) == 2
        for name in ("w", "b"):
            np.testing.assert_allclose(np.asarray(both[key][0][name]), numeric[key][0][name], rtol=1e-6, atol=1e-8)
            np.testing.assert_allclose(np.asarray(first[key][name]), numeric[key][0][name], rtol=1e-6, atol=1e-8)
        np.testing.assert_allclose(np.asarray(both[key][1]), numeric[key][1], rtol=1e-6, atol=1e-8)


def test_hessian_of_a_pytree_argument():
    def energy(p):
        return model(p, V)["n"]

    result = s4tf.hessian(energy)(P)
    for outer in ("w", "b"):
        for inner in ("w", "b"):
            def grad_inner(value, inner=inner, outer=outer):
                changed = {**P, outer: value}
                return numeric_jacobian(lambda v: model_np({**changed, inner: v}, V)["n"], changed[inner], eps=1e-5)

            numeric = numeric_jacobian(grad_inner, P[outer], eps=1e-4)  # d/d outer of d/d inner
            assert np.asarray(result[inner][outer]).shape == P[inner].shape + P[outer].shape
            np.testing.assert_allclose(np.asarray(result[inner][outer]), numeric, rtol=1e-4, atol=1e-5)
