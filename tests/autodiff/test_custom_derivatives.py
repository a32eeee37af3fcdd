"""Custom derivatives, ``@s4tf.derivative(of=f)``: rules against finite differences, and
deliberately different rules that must show up in the derivatives (so they are used)."""

import numpy as np
import pytest
from gradient_checks import directional_check

import s4tf

pytestmark = pytest.mark.references  # outside the IREE sample: through the ops' references (tests/conftest.py)

X = np.linspace(-2.0, 2.0, 5)
SIGMOID = 1 / (1 + np.exp(-X))


def softplus_function():
    """A fresh staged softplus (each test registers its own rules)."""

    @s4tf.function
    def softplus(x):
        return s4tf.log1p(s4tf.exp(x))

    return softplus


def test_vjp_rule_matches_finite_differences_inside_a_larger_function():
    softplus = softplus_function()

    @s4tf.derivative(of=softplus)
    def softplus_vjp(x):
        y = softplus(x)
        return y, lambda dy: (dy * s4tf.sigmoid(x),)

    directional_check(lambda x, w: s4tf.sum(softplus(x @ w) ** 2), [np.ones((2, 3)) * 0.3, np.eye(3)[:, :2]])


def test_a_deliberately_scaled_vjp_rule_is_what_reverse_mode_uses():
    softplus = softplus_function()

    @s4tf.derivative(of=softplus)
    def softplus_vjp(x):
        return softplus(x), lambda dy: (2 * dy * s4tf.sigmoid(x),)

    np.testing.assert_allclose(np.asarray(s4tf.grad(lambda x: s4tf.sum(softplus(x)))(X)), 2 * SIGMOID, rtol=1e-12)
    # Forward mode has no JVP rule, so it differentiates the body: the true derivative.
    _, tangent = s4tf.jvp(softplus, (X,), (np.ones(5),))
    np.testing.assert_allclose(np.asarray(tangent), SIGMOID, rtol=1e-12)


def test_a_jvp_rule_is_used_in_forward_mode_and_transposed_for_reverse_mode():
    softplus = softplus_function()

    @s4tf.derivative(of=softplus, mode="jvp")
    def softplus_jvp(primals, tangents):
        (x,), (dx,) = primals, tangents
        return softplus(x), dx * s4tf.sigmoid(x) * 3

    _, tangent = s4tf.jvp(softplus, (X,), (np.ones(5),))
    np.testing.assert_allclose(np.asarray(tangent), 3 * SIGMOID, rtol=1e-12)
    np.testing.assert_allclose(np.asarray(s4tf.grad(lambda x: s4tf.sum(softplus(x)))(X)), 3 * SIGMOID, rtol=1e-12)


def test_with_both_rules_each_mode_uses_its_own():
    softplus = softplus_function()

    @s4tf.derivative(of=softplus)
    def softplus_vjp(x):
        return softplus(x), lambda dy: (5 * dy * s4tf.sigmoid(x),)

    @s4tf.derivative(of=softplus, mode="jvp")
    def softplus_jvp(primals, tangents):
        return softplus(*primals), 7 * tangents[0] * s4tf.sigmoid(*primals)

    _, tangent = s4tf.jvp(softplus, (X,), (np.ones(5),))
    np.testing.assert_allclose(np.asarray(tangent), 7 * SIGMOID, rtol=1e-12)
    np.testing.assert_allclose(np.asarray(s4tf.grad(lambda x: s4tf.sum(softplus(x)))(X)), 5 * SIGMOID, rtol=1e-12)


def test_rules_stop_differentiation_from_entering_the_body():
    """A straight-through estimator: ``round``'s derivative is zero, the rules give one."""

    @s4tf.function
    def quantize(x):
        return s4tf.round(x * 4) / 4

    def loss(x):
        return s4tf.sum(quantize(x) * x)

    rounded = np.round(X * 4) / 4
    np.testing.assert_allclose(np.asarray(s4tf.grad(loss)(X)), rounded, rtol=1e-12)

    @s4tf.derivative(of=quantize)
    def quantize_vjp(x):
        return quantize(x), lambda dy: (dy,)

    @s4tf.derivative(of=quantize, mode="jvp")
    def quantize_jvp(primals, tangents):
        return quantize(*primals), tangents[0]

    np.testing.assert_allclose(np.asarray(s4tf.grad(loss)(X)), rounded + X, rtol=1e-12)
    _, tangent = s4tf.jvp(loss, (X,), (np.ones(5),))
    np.testing.assert_allclose(float(np.asarray(tangent)), float(np.sum(rounded + X)), rtol=1e-12)


def test_second_order_through_a_vjp_rule():
    softplus = softplus_function()

    @s4tf.derivative(of=softplus)
    def softplus_vjp(x):
        return softplus(x), lambda dy: (dy * s4tf.sigmoid(x),)

    inner = s4tf.grad(lambda v: s4tf.sum(softplus(v)))
    second = s4tf.grad(lambda v: s4tf.sum(inner(v)))(X)
    np.testing.assert_allclose(np.asarray(second), SIGMOID * (1 - SIGMOID), rtol=1e-12)


def test_pytree_arguments_and_none_cotangents():
    @s4tf.function
    def affine(params, x):
        return x @ params["w"] + params["b"]

    @s4tf.derivative(of=affine)
    def affine_vjp(params, x):
        return affine(params, x), lambda dy: ({"w": x.T @ dy * 10, "b": None}, None)

    params = {"w": np.ones((3, 2)), "b": np.zeros(2)}
    x = np.arange(12.0).reshape(4, 3)
    grads = s4tf.grad(lambda p, v: s4tf.sum(affine(p, v)), argnums=(0, 1))(params, x)
    np.testing.assert_allclose(np.asarray(grads[0]["w"]), 10 * x.T @ np.ones((4, 2)))
    np.testing.assert_allclose(np.asarray(grads[0]["b"]), np.zeros(2))
    np.testing.assert_allclose(np.asarray(grads[1]), np.zeros((4, 3)))


def test_a_wrong_cotangent_shape_is_an_error_at_the_rule():
    softplus = softplus_function()

    @s4tf.derivative(of=softplus)  # WRONG-RULE (a rule's location is its first decorator's)
    def softplus_vjp(x):
        return softplus(x), lambda dy: (s4tf.sum(dy),)

    with pytest.raises(s4tf.S4tfError, match=r"cotangent of argument 0 .* has shape \(\), expected \(5,\)") as caught:
        s4tf.grad(lambda x: s4tf.sum(softplus(x)))(X)
    line = next(i for i, text in enumerate(open(__file__).read().splitlines(), 1) if "# WRONG-RULE (" in text)
    assert f"test_custom_derivatives.py:{line}" in str(caught.value)


def test_a_rule_must_return_a_value_and_a_pullback():
    softplus = softplus_function()

    @s4tf.derivative(of=softplus)
    def softplus_vjp(x):
        return softplus(x)

    with pytest.raises(s4tf.S4tfError, match=r"must return \(value, pullback\)"):
        s4tf.grad(lambda x: s4tf.sum(softplus(x)))(X)


def test_derivative_needs_a_staged_function_and_a_known_mode():
    with pytest.raises(s4tf.S4tfError, match="needs an @s4tf.function"):
        s4tf.derivative(of=lambda x: x)
    with pytest.raises(s4tf.S4tfError, match="mode must be 'vjp' or 'jvp'"):
        s4tf.derivative(of=softplus_function(), mode="hessian")
