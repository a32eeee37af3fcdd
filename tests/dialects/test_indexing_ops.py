"""gather and scatter through IREE against NumPy: expectations are computed with loops over
the index rows, not with the fancy indexing and ``ufunc.at`` the ops' references use."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from op_testing import SEEDS, check_staged, covers, op_fn, random_array

import s4tf

KIND_UFUNCS = {"add": np.add, "multiply": np.multiply, "min": np.minimum, "max": np.maximum}


@st.composite
def _cases(draw):
    """(x shape, axes, batch shape): 1 to 3 indexed axes of a rank-1 to rank-3 tensor."""
    rank = draw(st.integers(1, 3))
    shape = tuple(draw(st.lists(st.integers(1, 4), min_size=rank, max_size=rank)))
    axes = tuple(draw(st.permutations(range(rank)))[: draw(st.integers(1, rank))])
    batch = tuple(draw(st.lists(st.integers(1, 3), min_size=0, max_size=2)))
    return shape, axes, batch


def _rows(indices):
    return [tuple(int(v) for v in indices[b]) for b in np.ndindex(indices.shape[:-1])], list(np.ndindex(indices.shape[:-1]))


def _element(x_shape, axes, point, rest):
    """The full coordinate of ``x`` for index ``point`` along ``axes`` and ``rest`` elsewhere."""
    others = iter(rest)
    return tuple(point[axes.index(d)] if d in axes else next(others) for d in range(len(x_shape)))


def expected_gather(x, indices, axes):
    bounds = [x.shape[a] - 1 for a in axes]
    window = [d for i, d in enumerate(x.shape) if i not in axes]
    result = np.zeros(indices.shape[:-1] + tuple(window), x.dtype)
    for point, b in zip(*_rows(indices)):
        clamped = [min(max(p, 0), hi) for p, hi in zip(point, bounds)]
        for rest in np.ndindex(*window):
            result[b + rest] = x[_element(x.shape, axes, clamped, rest)]
    return result


def expected_scatter(x, indices, updates, axes, kind):
    result = x.copy()
    window = [d for i, d in enumerate(x.shape) if i not in axes]
    for point, b in zip(*_rows(indices)):
        if not all(0 <= p < x.shape[a] for p, a in zip(point, axes)):
            continue  # dropped
        for rest in np.ndindex(*window):
            at = _element(x.shape, axes, point, rest)
            result[at] = updates[b + rest] if kind == "set" else KIND_UFUNCS[kind](result[at], updates[b + rest])
    return result


def _indices(rng, shape, axes, batch, spread=0):
    """Random coordinates, ``spread`` beyond each axis on both sides (out of range)."""
    columns = [rng.integers(-spread, shape[a] + spread, batch) for a in axes]
    return np.stack(columns, axis=-1).astype(np.int32) if columns else np.zeros(batch + (0,), np.int32)


@covers("gather")
@settings(max_examples=8, deadline=None)
@given(case=_cases(), dtype=st.sampled_from(["f32", "f16", "i32", "i1"]), seed=SEEDS)
def test_gather_reads_points_along_any_axes(case, dtype, seed):
    shape, axes, batch = case
    rng = np.random.default_rng(seed)
    x, indices = random_array(rng, shape, dtype), _indices(rng, shape, axes, batch)
    check_staged(op_fn("gather", axes=axes), [x, indices], expected_gather(x, indices, axes), ops=["gather"])


@covers("gather")
def test_gather_clamps_out_of_range_coordinates_and_takes_i64_indices():
    x = np.arange(15, dtype=np.float32).reshape(5, 3)
    indices = np.array([[0], [4], [7], [-2], [100]], np.int64)
    expected = x[[0, 4, 4, 0, 4]]
    check_staged(op_fn("gather", axes=(0,)), [x, indices], expected, ops=["gather"])


@covers("scatter")
@settings(max_examples=10, deadline=None)
@given(case=_cases(), kind=st.sampled_from(["set", "add", "multiply", "min", "max"]),
       dtype=st.sampled_from(["f32", "i32"]), seed=SEEDS)
def test_scatter_of_every_kind_with_repeats_and_out_of_range_rows(case, kind, dtype, seed):
    shape, axes, batch = case
    rng = np.random.default_rng(seed)
    indices = _indices(rng, shape, axes, batch, spread=1)
    if kind == "set":  # which of repeated coordinates wins is unspecified: keep each one once
        _, first = np.unique(indices.reshape(-1, len(axes)), axis=0, return_index=True)
        indices = indices.reshape(-1, len(axes))[np.sort(first)]
    window = tuple(d for i, d in enumerate(shape) if i not in axes)
    x = random_array(rng, shape, dtype)
    updates = random_array(rng, indices.shape[:-1] + window, dtype, low=-2, high=2)
    expected = expected_scatter(x, indices, updates, list(axes), kind)
    check_staged(op_fn("scatter", axes=axes, kind=kind), [x, indices, updates], expected, ops=["scatter"], scale=4)


@covers("scatter")
def test_scatter_add_counts_every_repeated_index():
    x = np.zeros((4, 2), np.float32)
    indices = np.array([[1], [1], [3], [1], [-1], [4]], np.int32)
    updates = np.arange(12, dtype=np.float32).reshape(6, 2)
    expected = np.array([[0, 0], [0 + 2 + 6, 1 + 3 + 7], [0, 0], [4, 5]], np.float32)
    check_staged(op_fn("scatter", axes=(0,), kind="add"), [x, indices, updates], expected, ops=["scatter"])


@covers("scatter")
@pytest.mark.parametrize("kind", ["set", "min", "max"])
def test_scatter_on_booleans(kind):
    x = np.array([True, False, True, False])
    indices = np.array([[0], [1], [3]], np.int32)
    updates = np.array([False, True, True])
    expected = expected_scatter(x, indices, updates, [0], kind)
    check_staged(op_fn("scatter", axes=(0,), kind=kind), [x, indices, updates], expected, ops=["scatter"])


@covers("scatter")
def test_scatter_leaves_the_callers_array_and_a_returned_operand_unchanged():
    """IREE 3.13 writes a scatter into its operand's buffer; the lowering copies it first."""
    x = s4tf.asarray(np.ones((5, 3), np.float32))
    indices = np.array([[1], [3]], np.int32)
    staged = s4tf.function(lambda v: (s4tf.scatter(v, indices, np.ones((2, 3), np.float32)), v))
    updated, same = staged(x)
    np.testing.assert_array_equal(np.asarray(x), np.ones((5, 3)))
    np.testing.assert_array_equal(np.asarray(same), np.ones((5, 3)))
    np.testing.assert_array_equal(np.asarray(updated)[:, 0], [1, 2, 1, 2, 1])


@covers("scatter")
def test_two_scatters_into_one_f64_constant():
    """IREE 3.13 cannot compile two scatters into one splat f64 constant, or computes them wrong."""
    indices = np.array([[1], [3], [1]], np.int32)

    def two(u):
        zeros = s4tf.zeros((5, 3), np.float64)
        return s4tf.scatter(zeros, indices, u), s4tf.scatter(zeros, indices, u * 2.0)

    u = np.arange(9.0).reshape(3, 3)
    first = expected_scatter(np.zeros((5, 3)), indices, u, [0], "add")
    check_staged(two, [u], [first, 2 * first], ops=["scatter"])


@pytest.mark.parametrize("op, operands, attrs, match", [
    ("gather", [np.zeros((3, 2), np.float32), np.zeros((4, 1), np.float32)], {"axes": (0,)}, "indices must be integers"),
    ("gather", [np.zeros((3, 2), np.float32), np.zeros((4, 2), np.int32)], {"axes": (0,)}, "last axis of 1 coordinate"),
    ("gather", [np.zeros((3, 2), np.float32), np.zeros((4, 2), np.int32)], {"axes": (0, 0)}, "repeat an axis"),
    ("gather", [np.zeros((3, 2), np.float32), np.zeros((4, 1), np.int32)], {"axes": (2,)}, "out of range"),
    ("scatter", [np.zeros((3, 2), np.float32), np.zeros((4, 1), np.int32), np.zeros((4, 3), np.float32)],
     {"axes": (0,), "kind": "add"}, "must have shape"),
    ("scatter", [np.zeros((3, 2), np.float32), np.zeros((4, 1), np.int32), np.zeros((4, 2), np.float32)],
     {"axes": (0,), "kind": "mean"}, "one of 'set'"),
    ("scatter", [np.zeros(3, bool), np.zeros((1, 1), np.int32), np.zeros(1, bool)],
     {"axes": (0,), "kind": "add"}, "needs a number operand"),
])
def test_malformed_ops_are_located_errors(op, operands, attrs, match):
    with pytest.raises(s4tf.S4tfError, match=match) as error:
        s4tf.function(lambda *xs: s4tf.op(op, *xs, **attrs)).lower(*operands)
    assert "test_indexing_ops.py" in str(error.value)


def test_reference_matches_loops_for_every_kind_exhaustively():
    """The NumPy references (used by constant folding) against the loops, on a grid."""
    from s4tf.dialects.op_def import lookup

    x = np.arange(12.0).reshape(3, 4)
    for rows in itertools.product([-1, 0, 2, 3], repeat=2):
        indices = np.array(rows, np.int32).reshape(2, 1)
        updates = np.arange(8.0).reshape(2, 4) - 3
        gathered = lookup("gather").reference(x, indices, axes=(0,))
        np.testing.assert_array_equal(gathered, expected_gather(x, indices, (0,)))
        for kind in ("add", "multiply", "min", "max") + (("set",) if rows[0] != rows[1] else ()):
            result = lookup("scatter").reference(x, indices, updates, axes=(0,), kind=kind)
            np.testing.assert_array_equal(result, expected_scatter(x, indices, updates, [0], kind))



@covers("add_slice")
def test_add_slice_with_strides_that_do_not_divide_leaves_the_callers_array_unchanged():
    """Its lowering is a scatter too (hlo.scatter_add), copied first like s4tf.scatter's."""
    x = s4tf.asarray(np.ones(7, np.float32))
    staged = s4tf.function(lambda v: (s4tf.op("add_slice", v, np.ones(2, np.float32), start=(1,), stride=(4,)), v))
    added, same = staged(x)
    np.testing.assert_array_equal(np.asarray(x), np.ones(7))
    np.testing.assert_array_equal(np.asarray(same), np.ones(7))
    np.testing.assert_array_equal(np.asarray(added), [1, 2, 1, 1, 1, 2, 1])
