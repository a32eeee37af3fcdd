"""Second derivatives through ops whose first derivative is a mask (abs, relu, maximum,
minimum, clip, max and min reductions): the mask is a constant to the next
differentiation, as in JAX and PyTorch. Checked against float64 finite differences of the
first derivative in all four compositions of forward and reverse mode, and a
Hessian-vector product of a ReLU network."""

import warnings

import numpy as np
import pytest
from gradient_checks import directional_check, second_order_check

import s4tf

pytestmark = pytest.mark.references  # outside the IREE sample: through the ops' references (tests/conftest.py)

RNG = np.random.default_rng(3)
X = RNG.standard_normal((3, 4))


def cube(v):
    return v * v * v


SCALAR_FUNCTIONS = {
    "abs": lambda x: s4tf.sum(abs(x) * x * x),
    "relu": lambda x: s4tf.sum(cube(s4tf.relu(x))),
    "maximum": lambda x: s4tf.sum(cube(s4tf.maximum(x, 0.5 - x))),
    "minimum": lambda x: s4tf.sum(cube(s4tf.minimum(2 * x, x * x)) * x),
    "clip": lambda x: s4tf.sum(cube(s4tf.clip(x, -0.5, 0.8)) * x),
    "reduce_max": lambda x: s4tf.sum(s4tf.exp(x.max(axis=1))),
    "reduce_min": lambda x: s4tf.exp(x.min()) * s4tf.sum(x * x),
    "logsumexp": lambda x: s4tf.sum(s4tf.logsumexp(x, axis=1) ** 2),
}


@pytest.mark.parametrize("name", sorted(SCALAR_FUNCTIONS))
def test_second_derivatives_match_finite_differences(name):
    fn = SCALAR_FUNCTIONS[name]
    directional_check(fn, [X])
    second_order_check(fn, X)


def test_second_derivative_of_abs_is_six_abs_x():
    hessian_diagonal = s4tf.grad(lambda v: s4tf.sum(s4tf.grad(SCALAR_FUNCTIONS["abs"])(v)))(X)
    np.testing.assert_allclose(np.asarray(hessian_diagonal), 6 * np.abs(X), rtol=1e-12)


def test_hessian_vector_product_of_a_relu_mlp():
    x, y = RNG.standard_normal((8, 4)), RNG.standard_normal((8, 2))
    w1, w2 = RNG.standard_normal((4, 6)), RNG.standard_normal((6, 2))
    v1, v2 = RNG.standard_normal((4, 6)), RNG.standard_normal((6, 2))

    def loss(a, b):
        return s4tf.mean((s4tf.relu(x @ a) @ b - y) ** 2)

    gradient = s4tf.grad(loss, argnums=(0, 1))

    def gradient_along_v(a, b):
        g1, g2 = gradient(a, b)
        return s4tf.sum(g1 * v1) + s4tf.sum(g2 * v2)

    eps = 1e-5
    plus, minus = gradient(w1 + eps * v1, w2 + eps * v2), gradient(w1 - eps * v1, w2 - eps * v2)
    expected = [(np.asarray(p) - np.asarray(m)) / (2 * eps) for p, m in zip(plus, minus)]
    assert min(np.abs(e).max() for e in expected) > 0.1  # both blocks of the product are far from zero
    with warnings.catch_warnings():  # the rules' masks are constants: nothing to warn about
        warnings.simplefilter("error", s4tf.ZeroDerivativeWarning)
        reverse_over_reverse = s4tf.grad(gradient_along_v, argnums=(0, 1))(w1, w2)
        _, forward_over_reverse = s4tf.jvp(gradient, (w1, w2), (v1, v2))
    for product in (reverse_over_reverse, forward_over_reverse):
        for got, want in zip(product, expected):
            np.testing.assert_allclose(np.asarray(got), want, rtol=1e-6, atol=1e-8)
