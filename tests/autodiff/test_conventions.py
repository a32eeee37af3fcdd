"""Where derivatives follow the peers' conventions (JAX, autograd, PyTorch): powers at 0,
lists of traced values, ``stop_gradient`` of a pytree, Python float arguments, and what
stays an error (a host function has no derivative, not a zero one)."""

import numpy as np
import pytest
from gradient_checks import directional_check, second_order_check

import s4tf

pytestmark = pytest.mark.references  # outside the IREE sample: through the ops' references (tests/conftest.py)

RNG = np.random.default_rng(5)


def first_and_second(fn, x):
    """``fn``'s first and second derivative at the float ``x``, each from reverse and from
    forward mode: ``[(reverse, forward), (reverse over reverse, forward over reverse)]``."""
    x = np.float64(x)
    first = s4tf.grad(fn)
    second = s4tf.grad(first)
    derivatives = [
        (first(x), s4tf.jvp(fn, (x,), (np.float64(1.0),))[1]),
        (second(x), s4tf.jvp(first, (x,), (np.float64(1.0),))[1]),
    ]
    return [tuple(float(np.asarray(d)) for d in pair) for pair in derivatives]


# (function, x, first derivative, second derivative); JAX differs on the first two (nan),
# autograd and PyTorch do not.
POWERS = {
    "x ** 0.0 at 0": (lambda x: x ** 0.0, 0.0, 0.0, 0.0),
    "x ** 1.0 at 0": (lambda x: x ** 1.0, 0.0, 1.0, 0.0),
    "x ** 2 at 0": (lambda x: x ** 2, 0.0, 0.0, 2.0),
    "x ** 0.5 at 0": (lambda x: x ** 0.5, 0.0, np.inf, -np.inf),
    "x ** 3 at -2": (lambda x: x ** 3, -2.0, 12.0, -12.0),
    "x ** 3.0 at -2": (lambda x: x ** 3.0, -2.0, 12.0, -12.0),
    "x ** -2.0 at -1": (lambda x: x ** -2.0, -1.0, 2.0, 6.0),
    "x ** 0.0 at -2": (lambda x: x ** 0.0, -2.0, 0.0, 0.0),
}


@pytest.mark.parametrize("name", sorted(POWERS))
def test_power_derivatives_at_special_points(name):
    fn, x, first, second = POWERS[name]
    (reverse, forward), (reverse_reverse, forward_reverse) = first_and_second(fn, x)
    assert reverse == forward == first
    assert reverse_reverse == forward_reverse == second


def test_powers_of_negative_numbers_match_finite_differences_to_second_order():
    x = RNG.standard_normal(6)
    second_order_check(lambda v: s4tf.sum(v ** 3.0 - v ** 2 + v ** 1.0), x)


def test_a_list_of_traced_tensors_is_their_stack():
    a, b = RNG.standard_normal(3), RNG.standard_normal(3)
    directional_check(lambda a, b: s4tf.asarray([a, 2 * b, a * b]), [a, b])
    directional_check(lambda a, b: s4tf.asarray([[a, b], (b * b, a)], dtype=np.float64) * 3, [a, b])
    grads = s4tf.grad(lambda a, b: s4tf.mean([a * b, b]), argnums=(0, 1))(np.float64(2.0), np.float64(3.0))
    np.testing.assert_allclose([float(np.asarray(g)) for g in grads], [1.5, 1.5])
    mixed = s4tf.function(lambda a: s4tf.asarray([a, 1.0, np.float64(2.0)]))(np.float64(5.0))
    np.testing.assert_array_equal(np.asarray(mixed), [5.0, 1.0, 2.0])


def test_stop_gradient_of_a_pytree_stops_each_leaf():
    params = {"w": RNG.standard_normal(3), "b": (RNG.standard_normal(3), None)}

    def f(p):
        frozen = s4tf.stop_gradient(p)
        assert set(frozen) == {"w", "b"} and frozen["b"][1] is None
        return s4tf.sum(frozen["w"] * p["w"] + frozen["b"][0] * p["b"][0] * p["w"])

    grads = s4tf.grad(f)(params)
    np.testing.assert_allclose(np.asarray(grads["w"]), params["w"] + params["b"][0] * params["b"][0], rtol=1e-12)
    np.testing.assert_allclose(np.asarray(grads["b"][0]), params["b"][0] * params["w"], rtol=1e-12)


def test_python_float_arguments_are_differentiated_as_0d_float32_arrays():
    gradient = s4tf.grad(lambda v: 3 * v ** 2)(2.0)
    assert np.asarray(gradient).shape == () and np.asarray(gradient).dtype == np.float32
    assert float(np.asarray(gradient)) == 12.0
    value, (da, db) = s4tf.value_and_grad(lambda a, b, n: a * b * n, argnums=(0, 1))(2.0, 3.0, 4)
    assert [float(np.asarray(v)) for v in (value, da, db)] == [24.0, 12.0, 8.0]
    with pytest.raises(s4tf.S4tfError, match="hold no float arrays"):
        s4tf.grad(lambda n: n * 2.0)(3)  # an int is not differentiated, as in JAX


def test_jvp_and_vjp_take_python_floats():
    y, dy = s4tf.jvp(lambda a: a * a, (3.0,), (1.0,))
    assert (float(np.asarray(y)), float(np.asarray(dy))) == (9.0, 6.0)
    _, dy = s4tf.jvp(lambda a: a * a, (np.float32(3.0),), (np.float64(0.5),))  # the tangent takes the primal's dtype
    assert np.asarray(dy).dtype == np.float32 and float(np.asarray(dy)) == 3.0
    _, tangents = s4tf.jvp(lambda a: (a * a, 2.0, "label", 3), (np.float64(3.0),), (np.float64(1.0),))
    assert tangents[1:] == (0.0, None, None)  # Python values are constants, not their own tangents
    y, pullback = s4tf.vjp(lambda a: a * a, 3.0)
    assert [float(np.asarray(ct)) for ct in pullback(1.0) + pullback(np.float64(2.0))] == [6.0, 12.0]
    _, pullback = s4tf.vjp(lambda a, b: (a * b, {"s": a + b}), np.ones(2), np.full(2, 3.0))
    da, db = pullback((None, {"s": 1.0}))  # None: a zero cotangent; a Python float fills the shape
    np.testing.assert_array_equal(np.asarray(da), [1.0, 1.0])
    np.testing.assert_array_equal(np.asarray(db), [1.0, 1.0])
    with pytest.raises(s4tf.ShapeError, match=r"the pullback's cotangent for <lambda>\(\.\.\.\)\[0\] has shape \(3,\) and dtype f64, but"):
        pullback((np.ones(3), {"s": np.ones(2)}))
    with pytest.raises(s4tf.ShapeError, match=r"the tangent for primals\[0\] has shape \(\) and dtype f64, but primals\[0\] has shape \(2,\)"):
        s4tf.jvp(lambda a: a * a, (np.ones(2),), (np.float64(1.0),))


def test_a_host_function_on_the_path_is_still_an_error_not_a_zero():
    cube = s4tf.host(lambda a: a ** 3)

    def f(x):
        return s4tf.sum(cube(x) * x)  # HOST-LINE

    with pytest.raises(s4tf.S4tfError, match="'s4tf.host_call' is not differentiable") as caught:
        s4tf.grad(f)(np.ones(3))
    line = next(i for i, text in enumerate(open(__file__).read().splitlines(), 1) if text.endswith("# HOST-LINE"))
    assert caught.value.location == f"{__file__}:{line}"
