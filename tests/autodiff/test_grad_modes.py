"""``grad`` and ``value_and_grad`` wrt one element (a scalar, or an array of one element)
take one JVP along a unit tangent instead of a VJP: the same derivative, with no tapes and
one pass over the loops. A custom VJP rule anywhere in the module keeps reverse mode, so
the rule is used."""

import numpy as np
import pytest

import s4tf
from s4tf.dialects.symbols import functions

pytestmark = pytest.mark.references  # outside the IREE sample: through the ops' references (tests/conftest.py)


def newton_sqrt(a):
    """A data-dependent loop: Newton's iteration for sqrt(a)."""
    return s4tf.while_loop(lambda x: s4tf.any(s4tf.abs(x * x - a) > 1e-12 * a), lambda x: 0.5 * (x + a / x), a)


def derivative_kinds(fn, *args) -> set[str]:
    """Which derivative functions the staged module of ``fn`` holds: 'jvp', 'vjp'."""
    names = functions(s4tf.function(fn).lower(*args).module)
    return {kind for kind in ("jvp", "vjp") if any(name.endswith(f"_{kind}") or f"_{kind}_" in name for name in names)}


@pytest.mark.parametrize("shape", [(), (1,), (1, 1)])
def test_the_gradient_wrt_one_element_is_a_jvp_and_equals_reverse_modes(shape):
    a = np.full(shape, 2.0)
    loss = lambda a: s4tf.sum(newton_sqrt(a) * s4tf.sin(a))
    assert derivative_kinds(s4tf.grad(loss), a) == {"jvp"}
    value, gradient = s4tf.value_and_grad(loss)(a)
    _, pullback = s4tf.vjp(loss, a)
    (reverse,) = pullback(np.float64(1.0))
    assert gradient.shape == shape and gradient.dtype == np.float64
    np.testing.assert_allclose(np.asarray(gradient), np.asarray(reverse), rtol=1e-14)
    np.testing.assert_allclose(np.asarray(gradient), 0.5 / np.sqrt(2.0) * np.sin(2.0) + np.sqrt(2.0) * np.cos(2.0), rtol=1e-12)
    np.testing.assert_allclose(np.asarray(value), np.sqrt(2.0) * np.sin(2.0), rtol=1e-12)


def test_second_derivative_of_a_scalar_function_is_forward_over_forward():
    f = lambda x: s4tf.exp(x) * s4tf.sin(x)
    second = s4tf.grad(s4tf.grad(f))
    assert derivative_kinds(second, np.float64(0.3)) == {"jvp"}
    np.testing.assert_allclose(np.asarray(second(np.float64(0.3))), 2 * np.exp(0.3) * np.cos(0.3), rtol=1e-12)


def test_more_elements_or_arguments_take_reverse_mode_and_the_input_dtype_is_kept():
    assert derivative_kinds(s4tf.grad(lambda x: s4tf.sum(x * x)), np.ones(2)) == {"vjp"}
    assert derivative_kinds(s4tf.grad(lambda x, y: x * y, argnums=(0, 1)), np.float32(2), np.float32(3)) == {"vjp"}
    gradient = s4tf.grad(lambda x: s4tf.sum(x.astype(np.float32) ** 2))(np.float64(3.0))  # a float32 result of a float64 input
    assert gradient.dtype == np.float64 and float(gradient) == 6.0


def test_a_custom_vjp_rule_keeps_reverse_mode_and_is_used():
    @s4tf.function
    def quantize(x):
        return s4tf.round(x)

    @s4tf.derivative(of=quantize)
    def straight_through(x):
        return quantize(x), lambda dy: (dy,)

    loss = lambda x: quantize(x) * 3.0
    assert derivative_kinds(s4tf.grad(loss), np.float32(0.4)) == {"vjp"}
    assert float(s4tf.grad(loss)(np.float32(0.4))) == 3.0  # the rule's, not round's zero
