"""Tensor operators and methods, staged and eager, against NumPy."""

import operator

import numpy as np
import pytest

import s4tf

pytestmark = pytest.mark.references  # outside the IREE sample: through the ops' references (tests/conftest.py)

RNG = np.random.default_rng(1)
X = RNG.uniform(0.5, 2.0, (3, 4)).astype(np.float32)
Y = RNG.uniform(0.5, 2.0, (4,)).astype(np.float32)

BINARY = [operator.add, operator.sub, operator.mul, operator.truediv, operator.pow,
          operator.lt, operator.le, operator.gt, operator.ge, operator.eq, operator.ne]


@pytest.mark.parametrize("op", BINARY, ids=lambda op: op.__name__)
def test_binary_operators_staged(op):
    staged = s4tf.function(lambda x, y: (op(x, y), op(y, x), op(x, 2.0), op(3.0, x)))
    results = staged(X, Y)
    expected = (op(X, Y), op(Y, X), op(X, np.float32(2.0)), op(np.float32(3.0), X))
    for got, want in zip(results, expected):
        assert np.asarray(got).dtype == want.dtype
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-5)


def test_unary_matmul_index_and_methods_staged():
    @s4tf.function
    def f(x, y):
        return (-x, abs(-x), x @ y, x.T, x[1], x[:, 1:3], x[-1, ::2], x[None, ..., 0],
                x.reshape(2, 6), x.reshape(-1), x.sum(axis=0), x.mean(axis=1, keepdims=True),
                x.max(), x.min(axis=(0, 1)), x.argmax(axis=1), x.astype(np.int32), x.transpose())

    expected = (-X, abs(X), X @ Y, X.T, X[1], X[:, 1:3], X[-1, ::2], X[None, ..., 0],
                X.reshape(2, 6), X.reshape(-1), X.sum(axis=0), X.mean(axis=1, keepdims=True),
                X.max(), X.min(axis=(0, 1)), X.argmax(axis=1), X.astype(np.int32), X.transpose())
    for got, want in zip(f(X, Y), expected):
        assert got.shape == want.shape
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-5)


def test_operators_on_eager_tensors_and_numpy_on_the_left():
    x = s4tf.asarray(X)
    np.testing.assert_allclose(np.asarray(X + x), X + X)
    np.testing.assert_allclose(np.asarray(x * 2 - 1), X * 2 - 1, rtol=1e-6)
    np.testing.assert_array_equal(np.asarray(~(x > 1)), ~(X > 1))
    assert x.shape == (3, 4) and x.dtype == np.float32 and x.ndim == 2 and len(x) == 3


def test_weak_python_scalars_keep_tensor_dtype():
    x16 = s4tf.asarray(X.astype(np.float16))
    assert (x16 * 2.5).dtype == np.float16
    i = s4tf.asarray(np.arange(3, dtype=np.int32))
    assert (i + 1).dtype == np.int32
    assert (i + 1.5).dtype == (np.arange(3, dtype=np.int32) + 1.5).dtype == np.float64  # NEP 50
    assert (i / 2).dtype == (np.arange(3, dtype=np.int32) / 2).dtype == np.float64


@pytest.mark.parametrize("index", [
    np.s_[::-1], np.s_[::-2, 1], np.s_[3:0:-1, -1:-5:-2], np.s_[0:3:-1], np.s_[-10::-1, ::-3], np.s_[None, 1::-1],
])
def test_negative_slice_steps_read_as_numpy_does(index):
    got = s4tf.function(lambda x: x[index])(X)
    assert got.shape == X[index].shape
    np.testing.assert_array_equal(np.asarray(got), X[index])


def test_index_errors():
    x = s4tf.asarray(X)
    with pytest.raises(s4tf.ShapeError, match="out of bounds"):
        x[5]
    with pytest.raises(s4tf.ShapeError, match="too many indices"):
        x[0, 0, 0]


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.bool_])
def test_bitwise_operators_follow_numpy(dtype):
    a = np.array([1, 2, 12, 0], dtype)
    b = np.array([3, 6, 10, 1], dtype)
    staged = s4tf.function(lambda a, b: (~a, a & b, a | b, ~(a > b)))
    for got, want in zip(staged(a, b), (~a, a & b, a | b, ~(a > b))):
        assert np.asarray(got).dtype == want.dtype
        np.testing.assert_array_equal(np.asarray(got), want)


def test_bitwise_operator_on_floats_is_a_dtype_error():
    with pytest.raises(s4tf.DTypeError, match="not an integer or bool"):
        s4tf.function(lambda x: ~x)(X)


def test_numpy_scalar_argument_is_an_input_not_a_constant():
    scale = s4tf.function(lambda x, s: x * s)
    scale(X, np.float32(2.0))
    np.testing.assert_allclose(np.asarray(scale(X, np.float32(3.0))), X * 3, rtol=1e-6)
    assert len(scale._compiled) == 1


@pytest.mark.parametrize("dtype", [np.int32, np.float32])
def test_floor_division_and_remainder_follow_python_signs(dtype):
    a = np.array([7, -7, 7, -7, 6, 0, 5], dtype)
    b = np.array([2, 2, -2, -2, 3, 5, -3], dtype)
    if dtype == np.float32:
        a = a + np.float32(0.5)
    for ours, theirs in [
        (s4tf.asarray(a) % s4tf.asarray(b), a % b), (s4tf.asarray(a) // b, a // b),
        (7 % s4tf.asarray(b), 7 % b), (7 // s4tf.asarray(b), 7 // b),
        (s4tf.remainder(a, b), np.remainder(a, b)), (s4tf.floor_divide(a, b), np.floor_divide(a, b)),
    ]:
        np.testing.assert_array_equal(np.asarray(ours), theirs)
        assert np.asarray(ours).dtype == theirs.dtype


def test_a_loop_index_modulo_inside_a_staged_loop():
    @s4tf.function
    def even_sum(n):
        total = s4tf.zeros((), np.int32)
        i = s4tf.zeros((), np.int32)
        while i < n:
            if i % 2 == 0:
                total = total + i
            i = i + 1
        return total

    assert int(even_sum(np.int32(10))) == 20
    assert int(even_sum(np.int32(7))) == 12


def test_the_gradient_of_a_float_remainder():
    x, y = np.array([7.5, -7.5], np.float32), np.array([2.0, 2.0], np.float32)
    dx, dy = s4tf.grad(lambda x, y: s4tf.remainder(x, y).sum(), argnums=(0, 1))(x, y)
    np.testing.assert_allclose(np.asarray(dx), [1.0, 1.0])
    np.testing.assert_allclose(np.asarray(dy), -np.floor(x / y))
