"""Values computed from Python numbers alone (``s4tf.log(2.0)``, ``s4tf.asarray(0.1)``,
``s4tf.sqrt(2.0) / 3``) are float32 by s4tf's default, and keep the float64 number they
stand for: meeting a float64 tensor they are that number, as NumPy's ``np.log(2.0)`` (and
JAX's with x64) would be, not a float32 rounding of it."""

import math

import numpy as np
import pytest

import s4tf

X64 = np.linspace(-1.0, 2.0, 5)


def _constants():
    return [
        s4tf.log(0.7071067811865475), s4tf.exp(-0.5), s4tf.sqrt(2.0) / 3 + s4tf.tanh(0.25), s4tf.asarray(0.1),
        s4tf.sin(1.0) * s4tf.cos(2) - 1 / s4tf.asarray(3.0), s4tf.reciprocal(0.3), s4tf.maximum(0.1, s4tf.log1p(0.2)),
        s4tf.add(1, 2.5) ** 0.5, -s4tf.sigmoid(0.3),
    ]


NUMBERS = [
    math.log(0.7071067811865475), math.exp(-0.5), math.sqrt(2.0) / 3 + math.tanh(0.25), 0.1,
    math.sin(1.0) * math.cos(2) - 1 / 3.0, 1 / 0.3, max(0.1, math.log1p(0.2)), 3.5 ** 0.5, -1 / (1 + math.exp(-0.3)),
]


def test_they_meet_float64_as_the_numbers_they_stand_for():
    for value, number in zip(_constants(), NUMBERS, strict=True):
        assert value.dtype == np.float32 and float(value) == np.float32(number)
        np.testing.assert_allclose(np.asarray(value * X64), number * X64, rtol=1e-15)  # float32: 1e-8 off


def test_staged_as_eagerly():
    staged = s4tf.function(lambda x: [c * x for c in _constants()])(X64)
    for result, number in zip(staged, NUMBERS, strict=True):
        np.testing.assert_allclose(np.asarray(result), number * X64, rtol=1e-15)


def test_dtypes_are_as_before():
    x32, x16 = X64.astype(np.float32), X64.astype(np.float16)
    assert (s4tf.log(2.0) * x32).dtype == np.float32 and (s4tf.log(2.0) * x16).dtype == np.float32
    np.testing.assert_array_equal(np.asarray(s4tf.log(2.0) * x32), np.float32(math.log(2.0)) * x32)
    assert s4tf.less(1.0, 2.0).dtype == np.bool_ and bool(s4tf.less(1.0, 2.0))
    assert float(s4tf.nextafter(1.0, 2.0)) == float(np.nextafter(np.float32(1), np.float32(2)))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_traced_values_are_not_folded(dtype):
    """Only Python numbers fold: a traced argument, even a Python float's, is computed by the module."""
    f = s4tf.function(lambda a: s4tf.log(a) * 2.0)
    assert '"s4tf.log"' in str(f.lower(dtype(0.5))) and '"s4tf.log"' in str(f.lower(0.5))
    assert '"s4tf.log"' not in str(s4tf.function(lambda x: x * s4tf.log(0.5)).lower(X64.astype(dtype)))


@pytest.mark.parametrize("loop", ["while_loop", "fori_loop"])
def test_a_loop_started_from_a_python_float_carries_it_in_float64(loop):
    """A carry that starts as a Python float and becomes float64 in the body starts as the
    float64 number (3.1), not a float32 rounding of it (3.100000001490116)."""
    add = lambda c: c + s4tf.sum(s4tf.ones(3, np.float64))  # noqa: E731
    if loop == "while_loop":
        f = lambda: s4tf.lax.while_loop(lambda c: c[0] < 1, lambda c: (c[0] + 1, add(c[1])), (0, 0.1))[1]  # noqa: E731
    else:
        f = lambda: s4tf.lax.fori_loop(0, 1, lambda i, c: add(c), 0.1)  # noqa: E731
    result = s4tf.function(f)()
    assert result.dtype == np.float64 and float(result) == 0.1 + 3.0
