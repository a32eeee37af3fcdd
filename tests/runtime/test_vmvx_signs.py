"""``sign`` (and so the derivative of ``abs``) and ``isnan`` on ``cpu`` and ``vmvx``
against NumPy: IREE 3.13 lowers ``stablehlo.sign`` to ``math.copysign``, which ``vmvx``
cannot compile, and on ``vmvx`` a comparison of a float with itself is false for NaN
(``x != x``, ``logaddexp``'s test for equal infinities)."""

from __future__ import annotations

import numpy as np
import pytest

import s4tf

X = np.array([-0.0, 0.0, np.nan, -np.inf, np.inf, 3.0, -2.5e-30, 7.5, -1.0], np.float32)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("target", ["cpu", "vmvx"])
def test_sign_and_isnan_equal_numpys(target, dtype):
    x = X.astype(dtype)
    if target == "vmvx" and dtype == np.float64:
        pytest.skip("VMVX has no float64")
    sign = np.asarray(s4tf.function(s4tf.sign, target=target)(x))
    np.testing.assert_array_equal(sign, np.sign(x))  # zeros of either sign compare equal
    if target == "cpu":
        np.testing.assert_array_equal(np.signbit(sign), np.signbit(np.sign(x)))
    np.testing.assert_array_equal(np.asarray(s4tf.function(s4tf.isnan, target=target)(x)), np.isnan(x))


@pytest.mark.parametrize("target", ["cpu", "vmvx"])
def test_the_derivative_of_abs_is_the_sign(target):
    x = np.array([0.5, -1.0, 2.0, -0.25], np.float32)
    got = s4tf.function(s4tf.grad(lambda x: s4tf.sum(s4tf.abs(x) * x)), target=target)(x)
    np.testing.assert_allclose(np.asarray(got), 2 * np.abs(x), rtol=1e-6)


@pytest.mark.parametrize("target", ["cpu", "vmvx"])
def test_a_float_compared_with_itself_and_logaddexp_of_equal_infinities_equal_numpys(target):
    np.testing.assert_array_equal(np.asarray(s4tf.function(lambda x: x != x, target=target)(X)), X != X)
    np.testing.assert_array_equal(np.asarray(s4tf.function(lambda x: x == x, target=target)(X)), X == X)
    y = np.array([np.inf, -np.inf, 1.0, np.nan], np.float32)
    with np.errstate(invalid="ignore"):
        want = np.logaddexp(y, y)
    np.testing.assert_array_equal(np.asarray(s4tf.function(s4tf.logaddexp, target=target)(y, y)), want)
