"""Cumulative sums and products, products over axes, and the statistics composed of
reductions (var, std, all, any, argmin, count_nonzero, diff) through IREE against NumPy."""

import numpy as np
import pytest
from op_testing import FLOATS, INTS, as_float64, check_staged, covers, random_array

import s4tf


@covers("cumsum", "cumprod")
@pytest.mark.parametrize("dtype", FLOATS + INTS)
def test_cumulative_ops_forward_and_reverse_in_every_number_dtype(dtype):
    rng = np.random.default_rng(0)
    x = random_array(rng, (3, 4), dtype, -2, 2)
    expected = []
    for name, numpy_fn in (("cumsum", np.cumsum), ("cumprod", np.cumprod)):
        for axis in (0, 1):
            expected.append(numpy_fn(as_float64(x), axis=axis).astype(x.dtype))
            expected.append(np.flip(numpy_fn(np.flip(as_float64(x), axis), axis=axis), axis).astype(x.dtype))

    def fn(v):
        return tuple(
            s4tf.op(name, v, axis=axis, reverse=reverse)
            for name in ("cumsum", "cumprod") for axis in (0, 1) for reverse in (False, True)
        )

    check_staged(fn, [x], expected, ops=["cumsum", "cumprod"])


@covers("reduce_prod")
@pytest.mark.parametrize("dtype", FLOATS + INTS)
def test_prod_over_axes(dtype):
    rng = np.random.default_rng(1)
    x = random_array(rng, (2, 3, 4), dtype, -2, 2)
    axes = [(0,), (1, 2), (0, 1, 2)]
    expected = [np.prod(as_float64(x), axis=a, keepdims=k).astype(x.dtype) for a in axes for k in (False, True)]
    check_staged(lambda v: tuple(s4tf.op("reduce_prod", v, axes=a, keepdims=k) for a in axes for k in (False, True)),
                 [x], expected, ops=["reduce_prod"])


def test_the_array_api_scans_and_their_dtypes():
    x = np.array([[1, 2, 3], [4, 5, 6]], np.int8)
    flags = np.array([True, False, True])
    expected = [
        np.cumsum(x, axis=1).astype(np.int32),  # narrower integers sum in the default int32
        np.concatenate([np.zeros((2, 1)), np.cumsum(x, axis=1)], axis=1).astype(np.int32),
        np.concatenate([np.ones((1, 3)), np.cumprod(x, axis=0)], axis=0).astype(np.int64),
        np.cumsum(x).astype(np.int32),
        np.cumsum(flags).astype(np.int32),
        np.prod(x).astype(np.int32),
    ]

    def fn(v, p):
        return (
            s4tf.cumulative_sum(v, axis=1), s4tf.cumulative_sum(v, axis=-1, include_initial=True),
            s4tf.cumulative_prod(v, axis=0, dtype=np.int64, include_initial=True), s4tf.cumsum(v),
            s4tf.cumulative_sum(p), s4tf.prod(v),
        )

    check_staged(fn, [x, flags], expected, ops=["cumsum", "cumprod", "reduce_prod"])
    with pytest.raises(s4tf.ShapeError, match="needs an axis"):
        s4tf.cumulative_sum(x)


def test_statistics_match_numpy():
    rng = np.random.default_rng(2)
    x = random_array(rng, (3, 4), "f32")
    x[1, 2] = x.min()  # a tie: the first minimum counts
    ints = random_array(rng, (3, 4), "i32", -3, 3)
    expected = [
        np.var(as_float64(x)).astype(np.float32), np.var(as_float64(x), axis=0, ddof=1).astype(np.float32),
        np.std(as_float64(x), axis=1, keepdims=True).astype(np.float32),
        np.all(ints, axis=0), np.any(ints > 2), np.all(ints < 10, keepdims=True),
        np.argmin(x), np.argmin(x, axis=1).astype(np.int32), np.argmin(ints, axis=0).astype(np.int32),
        np.count_nonzero(ints, axis=1).astype(np.int32), np.diff(x, axis=0), np.diff(ints, n=2),
    ]

    def fn(v, i):
        return (
            s4tf.var(v), s4tf.var(v, axis=0, correction=1), s4tf.std(v, axis=1, keepdims=True),
            s4tf.all(i, axis=0), s4tf.any(i > 2), s4tf.all(i < 10, keepdims=True),
            s4tf.argmin(v, dtype=np.int64), s4tf.argmin(v, axis=1), s4tf.argmin(i, axis=0),
            s4tf.count_nonzero(i, axis=1), s4tf.diff(v, axis=0), s4tf.diff(i, n=2),
        )

    check_staged(fn, [x, ints], expected, ops=["reduce_min", "reduce_max", "argmax"])


def test_argmin_finds_the_first_nan_and_the_smallest_integer():
    x = np.array([3.0, np.nan, -1.0, np.nan], np.float32)
    ints = np.array([5, np.iinfo(np.int32).min, 0], np.int32)
    check_staged(lambda v, i: (s4tf.argmin(v), s4tf.argmin(i)), [x, ints],
                 [np.argmin(x).astype(np.int32), np.argmin(ints).astype(np.int32)], ops=["argmax"])
