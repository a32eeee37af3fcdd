"""Sorting and searching through IREE against NumPy: s4tf.sort (stable, NaN greatest),
argsort, top_k, searchsorted, and the host-side unique_* functions."""

import numpy as np
import pytest
from op_testing import DTYPES, FLOATS, INTS, check_staged, covers, random_array

import s4tf


def _descending_order(x, axis):
    """NumPy's stable descending argsort: NaN first, equal elements in their order."""
    size = x.shape[axis]
    return size - 1 - np.flip(np.argsort(np.flip(x, axis), axis=axis, kind="stable"), axis)


@covers("sort")
@pytest.mark.parametrize("dtype", FLOATS + INTS + ("i8", "i1"))
def test_sort_and_argsort_are_stable_in_every_dtype(dtype):
    rng = np.random.default_rng(0)
    x = random_array(rng, (3, 6), dtype, -2, 2)
    if dtype not in ("i1",):
        x = np.round(x.astype(np.float64)).astype(DTYPES[dtype])  # many ties
    if dtype in FLOATS:
        x[0, 2] = x[1, 4] = np.nan
    expected = []
    keys = x.astype(np.float32) if dtype == "bf16" else x  # NumPy misplaces NaN among bfloat16s
    for axis in (0, 1):
        ascending = np.argsort(keys, axis=axis, kind="stable")
        descending = _descending_order(keys, axis)
        expected += [np.take_along_axis(x, ascending, axis), ascending.astype(np.int32),
                     np.take_along_axis(x, descending, axis), descending.astype(np.int32)]

    def fn(v):
        return tuple(
            f(v, axis=axis, descending=d) for axis in (0, 1) for d in (False, True) for f in (s4tf.sort, s4tf.argsort)
        )

    check_staged(fn, [x], expected, ops=["sort"])


def test_sorting_leaves_its_operand_unchanged():
    """IREE sorts in place in the buffer of an argument whose sorted result is used; the
    lowering sorts a fresh iota instead (this failed with a plain stablehlo.sort)."""
    x = s4tf.asarray(np.array([3.0, 1.0, 2.0], np.float32))
    values = s4tf.asarray(np.array([10, 11, 12], np.int32))
    np.testing.assert_array_equal(np.asarray(s4tf.op("sort", x, values, axis=0, descending=False)), [11, 12, 10])
    np.testing.assert_array_equal(np.asarray(s4tf.sort(x)), [1.0, 2.0, 3.0])
    np.testing.assert_array_equal(np.asarray(x), [3.0, 1.0, 2.0])
    np.testing.assert_array_equal(np.asarray(values), [10, 11, 12])


@pytest.mark.parametrize("target", ["cpu", "vmvx"])
def test_sort_and_argsort_in_a_loop_body_match_numpy(target):
    """In a loop's body (a run-time trip count: the loop stays a loop), ``argsort``'s
    positions and values are one iota after ``cse``, which IREE 3.13 sorted in place there,
    so the gather read sorted positions (wrong indices); and the keys, read again after the
    sort, must be the unsorted ones."""
    x = np.random.default_rng(1).standard_normal((3, 6)).astype(np.float32)

    def step(np_, sort, argsort, i, acc):
        v = x * (i + 1.0) + acc
        ranks = argsort(v, axis=1).astype(np.float32)
        return acc + sort(v, axis=0) * 0.5 + v * 0.25 + ranks * 0.125 + np_.arange(6, dtype=np.float32)

    def staged(n):
        body = lambda i, acc: step(s4tf, s4tf.sort, s4tf.argsort, i, acc)  # noqa: E731
        return s4tf.lax.fori_loop(0, n, body, s4tf.zeros((3, 6), np.float32))

    expected = np.zeros((3, 6), np.float32)
    for i in range(5):
        expected = step(np, np.sort, lambda v, axis: np.argsort(v, axis=axis, kind="stable"), np.float32(i), expected)
    np.testing.assert_allclose(np.asarray(s4tf.function(staged, target=target)(np.int32(5))), expected, rtol=1e-6)


def test_top_k_and_searchsorted_match_numpy():
    rng = np.random.default_rng(1)
    x = np.round(random_array(rng, (4, 7), "f32", -3, 3))
    order = _descending_order(x, 1)[:, :3]
    table = np.sort(random_array(rng, (9,), "f32"))
    table[4] = table[5]  # a repeated element: left and right differ
    probes = np.concatenate([table[[0, 4, 8]], random_array(rng, (5,), "f32", -4, 4)]).astype(np.float32)
    expected = [np.take_along_axis(x, order, 1), order.astype(np.int32),
                np.searchsorted(table, probes).astype(np.int32), np.searchsorted(table, probes, side="right").astype(np.int32)]

    def fn(v, t, p):
        values, indices = s4tf.top_k(v, 3)
        return values, indices, s4tf.searchsorted(t, p), s4tf.searchsorted(t, p, side="right")

    check_staged(fn, [x, table, probes], expected, ops=["sort"])


def test_unique_functions_run_on_concrete_tensors_and_are_located_errors_when_staged():
    x = np.array([[3, 1], [3, 2]], np.int32)
    values, indices, inverse, counts = s4tf.unique_all(x)
    np.testing.assert_array_equal(np.asarray(values), [1, 2, 3])
    np.testing.assert_array_equal(np.asarray(indices), [1, 3, 0])
    np.testing.assert_array_equal(np.asarray(inverse), [[2, 0], [2, 1]])
    np.testing.assert_array_equal(np.asarray(counts), [1, 1, 2])
    np.testing.assert_array_equal(np.asarray(s4tf.unique_values(np.array([np.nan, 1.0, np.nan]))).shape, (3,))
    with pytest.raises(s4tf.StagingError, match="no static shape") as error:
        s4tf.function(lambda v: s4tf.unique_values(v))(x)
    assert "test_sorting_ops.py" in str(error.value)


def test_bad_arguments_are_clear_errors():
    with pytest.raises(s4tf.ShapeError, match="out of range"):
        s4tf.top_k(np.zeros(3), 4)
    with pytest.raises(s4tf.ShapeError, match="one shape"):
        s4tf.op("sort", np.zeros(3), np.zeros(4), axis=0, descending=False)
    with pytest.raises(s4tf.ShapeError, match="side"):
        s4tf.searchsorted(np.zeros(3), 1.0, side="middle")
