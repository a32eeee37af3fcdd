"""Reductions through IREE against NumPy: sum, max, min and mean over any axes with and
without keepdims, and argmax (first maximum, ties and NaN), in every dtype.

Expectations move the reduced axes last and reduce rows, so they do not rely on NumPy's
own ``axis``/``keepdims`` handling (which the ops' references use).
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from op_testing import DTYPES, FLOATS, INTS, SEEDS, as_float64, check_each, check_staged, covered, covers, random_array

import s4tf



def _rows(x, axes):
    """``x`` with the axes in ``axes`` flattened into a last axis, and the kept shape."""
    kept = [a for a in range(x.ndim) if a not in axes]
    moved = np.transpose(x, kept + sorted(axes))
    kept_shape = tuple(x.shape[a] for a in kept)
    return moved.reshape(kept_shape + (-1,)), kept_shape


def _reduced(row_fn, x, axes, keepdims):
    """``row_fn`` applied to each row of the reduced elements, shaped as NumPy would."""
    rows, kept_shape = _rows(x, axes)
    flat = rows.reshape(-1, rows.shape[-1])
    result = np.array([row_fn(row) for row in flat]).reshape(kept_shape)
    if keepdims:
        result = result.reshape([1 if a in axes else n for a, n in enumerate(x.shape)])
    return result


# name: (public function, reduction of one row in float64)
REDUCTIONS = {
    "reduce_sum": (s4tf.sum, lambda row: sum(row.tolist())),
    "reduce_max": (s4tf.max, lambda row: max(row.tolist())),
    "reduce_min": (s4tf.min, lambda row: min(row.tolist())),
    "reduce_mean": (s4tf.mean, lambda row: sum(row.tolist()) / len(row)),
}
DTYPES_OF = {
    "reduce_sum": FLOATS + INTS,
    "reduce_max": FLOATS + INTS + ("i1",),
    "reduce_min": FLOATS + INTS + ("i1",),
    "reduce_mean": FLOATS,
}


@covers(*REDUCTIONS)
@settings(max_examples=8, deadline=None)
@given(
    shape=hnp.array_shapes(min_dims=0, max_dims=3, min_side=1, max_side=4),
    data=st.data(),
    keepdims=st.booleans(),
    seed=SEEDS,
)
def test_reductions_over_any_axes(shape, data, keepdims, seed):
    """All four reductions over one set of axes (one compile per example)."""
    some_axes = st.lists(st.integers(0, len(shape) - 1), unique=True).map(tuple) if shape else st.just(())
    axis = data.draw(st.none() | some_axes)
    axes = tuple(range(len(shape))) if axis is None else axis
    x = random_array(np.random.default_rng(seed), shape, "f32")
    expected = [_reduced(row_fn, as_float64(x), axes, keepdims).astype(np.float32) for _, row_fn in REDUCTIONS.values()]
    check_staged(
        lambda v: tuple(public(v, axis=axis, keepdims=keepdims) for public, _ in REDUCTIONS.values()),
        [x],
        expected,
        ops=list(REDUCTIONS),
    )


@pytest.mark.parametrize("name", covered(REDUCTIONS))
def test_reduction_in_every_dtype(name):
    public, row_fn = REDUCTIONS[name]
    rng = np.random.default_rng(len(name))
    args = [random_array(rng, (3, 4, 5), dtype) for dtype in DTYPES_OF[name]]
    expected = [_reduced(row_fn, as_float64(x), (0, 2), False).astype(x.dtype) for x in args]
    # low-precision sums of 15 terms round at every step
    check_each(lambda x: public(x, axis=(0, 2)), args, expected, ops=[name], scale=3)


@covers("reduce_sum")
def test_sum_of_booleans_counts_them():
    flags = random_array(np.random.default_rng(4), (5, 6), "i1")
    counts = flags.astype(np.int64)
    expected = [np.int32(counts.sum()), counts.sum(axis=0).astype(np.int32)]
    check_staged(lambda p: (s4tf.sum(p), s4tf.sum(p, axis=0)), [flags], expected, ops=["reduce_sum", "cast"])


def _first_max(row):
    return int(np.flatnonzero(np.isnan(row))[0]) if np.isnan(row).any() else int(np.flatnonzero(row == row.max())[0])


@covers("argmax")
@settings(max_examples=6, deadline=None)
@given(
    shape=hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=5),
    data=st.data(),
    keepdims=st.booleans(),
    index_dtype=st.sampled_from(["i32", "i64"]),
    seed=SEEDS,
)
def test_argmax_finds_the_first_maximum(shape, data, keepdims, index_dtype, seed):
    axis = data.draw(st.integers(0, len(shape) - 1))
    x = np.round(random_array(np.random.default_rng(seed), shape, "f32", -2, 2))  # ties are common
    expected = _reduced(_first_max, x, (axis,), keepdims).astype(DTYPES[index_dtype])
    check_staged(lambda v: s4tf.argmax(v, axis, keepdims, DTYPES[index_dtype]), [x], expected, ops=["argmax"])


@covers("argmax")
def test_argmax_in_every_dtype_and_over_all_elements():
    rng = np.random.default_rng(5)
    args = [random_array(rng, (4, 6), dtype, -2, 2) for dtype in FLOATS + INTS + ("i1",)]
    expected = [_reduced(_first_max, as_float64(x), (1,), False).astype(np.int32) for x in args]
    expected += [np.int32(_first_max(as_float64(x).ravel())) for x in args]
    fn = lambda *xs: (*(s4tf.argmax(x, axis=1) for x in xs), *(s4tf.argmax(x) for x in xs))  # noqa: E731
    check_staged(fn, args, expected, ops=["argmax"])


@covers("argmax")
def test_argmax_takes_the_first_nan_as_numpy_does():
    x = np.zeros((3, 64), np.float32)
    x[0, [50, 7, 33]] = np.nan
    x[1, [63, 62]] = np.nan
    x[2, 40] = 1
    expected = np.array([7, 62, 40], np.int32)
    check_staged(lambda v: s4tf.argmax(v, axis=1), [x], expected, ops=["argmax"])
