"""Python int and float arguments of staged functions are traced as weak-typed 0-d inputs
(JAX's rule); used where a static value is needed they are an error at the user's line
naming static_argnums (frontend/staging/tracing.py WeakScalar)."""

import functools

import numpy as np
import pytest

import s4tf

pytestmark = pytest.mark.references  # outside the IREE sample: through the ops' references (tests/conftest.py)


@s4tf.function
def _affine(x, a, b):
    return x * a + b


def test_int_and_float_arguments_promote_as_python_numbers_and_compute_like_numpy():
    x = np.arange(4, dtype=np.float32)
    for a, b in [(2, 1), (3, -7), (0.5, 2.25), (1e-3, 4)]:
        got = _affine(x, a, b)
        assert got.dtype == np.float32
        np.testing.assert_array_equal(np.asarray(got), x * np.float32(a) + np.float32(b))
    assert len(_affine.compiled_signatures()) == 3  # (int, int), (float, float), (float, int)
    i = np.arange(4, dtype=np.int8)
    assert _affine(i, 3, 1).dtype == np.int8  # weak ints keep the tensor's integer dtype
    np.testing.assert_array_equal(np.asarray(_affine(i, 3, 1)), i * 3 + 1)


def test_keyword_arguments_are_traced_and_large_ints_stay_static():
    @s4tf.function
    def shift(x, *, by):
        return x + by

    x = np.zeros(2, np.int64)
    assert np.asarray(shift(x, by=5)).tolist() == [5, 5]
    assert np.asarray(shift(x, by=6)).tolist() == [6, 6]
    assert np.asarray(shift(x, by=2**40)).tolist() == [2**40, 2**40]  # beyond int32: a constant
    assert shift.compiled_signatures() == ["(tensor<2xi64>, tensor<i32> (a Python int))", f"(tensor<2xi64>, {2**40})"]


def test_a_traced_int_as_a_shape_is_an_error_at_the_users_line_naming_static_argnums():
    @s4tf.function
    def make(n):
        return s4tf.zeros(n)  # the line the error names

    with pytest.raises(s4tf.StagingError, match="static_argnums") as caught:
        make(3)
    assert f"test_traced_scalars.py:{make.__wrapped__.__code__.co_firstlineno + 2}" in str(caught.value)

    @functools.partial(s4tf.function, static_argnums=0)
    def make_static(n):
        return s4tf.zeros(n)

    assert make_static(3).shape == (3,)


def test_a_traced_int_bounds_a_staged_loop():
    @s4tf.function
    def doubled(x, n):
        for _ in range(n):
            x = x * 2
        return x

    x = np.ones(2, np.float32)
    assert np.asarray(doubled(x, 3)).tolist() == [8.0, 8.0]
    assert np.asarray(doubled(x, 5)).tolist() == [32.0, 32.0]
    assert len(doubled.compiled_signatures()) == 1


def test_bools_stay_static_and_choose_code_paths():
    @s4tf.function
    def maybe_negate(x, negate):
        if negate:
            return -x
        return x

    x = np.ones(2, np.float32)
    assert np.asarray(maybe_negate(x, True)).tolist() == [-1.0, -1.0]
    assert np.asarray(maybe_negate(x, False)).tolist() == [1.0, 1.0]
    assert maybe_negate.compiled_signatures() == ["(tensor<2xf32>, True)", "(tensor<2xf32>, False)"]


def test_a_0d_value_is_not_iterable():
    @s4tf.function
    def rows(x):
        return [r for r in x]

    with pytest.raises(TypeError, match="iteration over a 0-d tensor"):
        rows(np.float32(1.0))
