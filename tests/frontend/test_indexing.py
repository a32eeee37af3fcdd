"""NumPy indexing, take, take_along_axis and x.at[...] updates against NumPy; index errors at
the user's line; out-of-range and negative indices, host and traced; `x[i] = v` in staged
functions rebinding the variable (the caller's arrays never change)."""

import numpy as np
import pytest

import s4tf
from s4tf.staging import eager

pytestmark = pytest.mark.references  # outside the IREE sample: through the ops' references (tests/conftest.py)

X = np.arange(60.0, dtype=np.float32).reshape(5, 3, 4)
READS = [
    np.s_[[0, 2]], np.s_[:, [1, 0], ::-1], np.s_[[0, 1], :, [1, 3]], np.s_[3, 1:, [1, 3]], np.s_[None, [1, 2], ..., 0],
    np.s_[X[:, 0, 0] > 20], np.s_[1, X[0] > 5], np.s_[..., -1], np.s_[::-2, None, 1], np.s_[[[0], [4]], [[0, 1]]],
    np.s_[1:4:2, [-1, 0]], np.s_[[]], np.s_[2, [True, False, True]], np.s_[-1, -1, ::-3], np.s_[np.int64(1), 0:0],
    np.s_[True], np.s_[2, False], np.s_[None, np.True_, [1, 0]],  # 0-d masks: a new axis of 1 or 0 elements
]


@pytest.mark.parametrize("index", READS, ids=repr)
def test_reads_match_numpy(index):
    got = s4tf.function(lambda x: x[index])(X)
    assert got.shape == X[index].shape
    np.testing.assert_array_equal(np.asarray(got), X[index])


@pytest.mark.parametrize("index", READS, ids=repr)
def test_eager_reads_match_numpy(index):
    got = s4tf.asarray(X)[index]
    assert got.shape == X[index].shape
    np.testing.assert_array_equal(np.asarray(got), X[index])


def test_eager_int_reads_compile_one_function_for_every_index(monkeypatch):
    monkeypatch.setattr(eager, "_one_op_functions", type(eager._one_op_functions)())
    x = s4tf.asarray(X)
    for index in np.ndindex(X.shape[:2]):
        assert float(x[index][-1]) == X[index][-1]
    # the gather at a runtime index, the reshape of x, and (-1) of each row's gather
    assert eager.cached_functions() <= 4


def _numpy_update(x, index, value, kind):
    result = x.copy()
    if kind == "set":
        result[index] = value
    else:
        {"add": np.add, "multiply": np.multiply, "min": np.minimum, "max": np.maximum}[kind].at(result, index, value)
    return result


UPDATES = [
    np.s_[[0, 2]], np.s_[:, [1, 0], ::-1], np.s_[[0, 1], :, [1, 3]], np.s_[3, 1:, [1, 3]], np.s_[1:4:2, [-1, 0]],
    np.s_[..., -1], np.s_[::-2, 1], np.s_[1, ::-1, 1:3], np.s_[[0, 0, 2]], np.s_[X[:, 0, 0] > 20], np.s_[:], np.s_[2],
    np.s_[None, 1, [2, 0]],
]


@pytest.mark.parametrize("kind", ["set", "add", "multiply", "min", "max"])
def test_updates_match_numpy(kind):
    value = np.float32(7.0)
    staged = s4tf.function(lambda x: tuple(getattr(x.at[index], kind)(value) for index in UPDATES))
    for position, (index, got) in enumerate(zip(UPDATES, staged(X))):
        if kind == "set" and position == 8:
            continue  # a set through a repeated index: which write wins is unspecified
        np.testing.assert_array_equal(np.asarray(got), _numpy_update(X, index, value, kind), err_msg=f"{kind} {index!r}")


def test_update_values_broadcast_and_repeated_adds_accumulate():
    x = s4tf.asarray(np.zeros((4, 3), np.float32))
    rows = np.array([[1.0, 2.0, 3.0]], np.float32)
    np.testing.assert_array_equal(np.asarray(x.at[[1, 1, 3]].add(rows)), [[0, 0, 0], [2, 4, 6], [0, 0, 0], [1, 2, 3]])
    np.testing.assert_array_equal(np.asarray(x.at[::-1, 0].set([1.0, 2.0, 3.0, 4.0])[:, 0]), [4, 3, 2, 1])
    np.testing.assert_array_equal(np.asarray(x), np.zeros((4, 3)))  # x itself is unchanged


@pytest.mark.parametrize("index", [True, False, np.s_[1, np.True_], np.s_[..., np.False_]], ids=repr)
def test_updates_through_0d_masks_match_numpy(index):
    expected = X.copy()
    expected[index] = 7.0
    np.testing.assert_array_equal(np.asarray(s4tf.asarray(X).at[index].set(7.0)), expected)


def test_take_and_take_along_axis_match_numpy():
    x = np.random.default_rng(0).standard_normal((4, 5)).astype(np.float32)
    order = np.argsort(x, axis=1)
    staged = s4tf.function(lambda v: (
        s4tf.take(v, [3, -1, 0], axis=1), s4tf.take(v, [[7, 19]]), s4tf.take(v, [9, -9], axis=1, mode="clip"),
        s4tf.take(v, [6, -1], axis=0, mode="wrap"), s4tf.take_along_axis(v, order, axis=1),
        s4tf.take_along_axis(v, order[:, :1], axis=-1), s4tf.take_along_axis(v, np.argsort(x, axis=0)[:2], axis=0),
    ))
    expected = (
        np.take(x, [3, -1, 0], axis=1), np.take(x, [[7, 19]]), np.take(x, [9, -9], axis=1, mode="clip"),
        np.take(x, [6, -1], axis=0, mode="wrap"), np.take_along_axis(x, order, axis=1),
        np.take_along_axis(x, order[:, :1], axis=-1), np.take_along_axis(x, np.argsort(x, axis=0)[:2], axis=0),
    )
    for got, want in zip(staged(x), expected):
        np.testing.assert_array_equal(np.asarray(got), want)


def test_traced_indices_wrap_negatives_clamp_reads_and_drop_updates():
    """Known only at run time, an index out of range is clamped by a read and dropped by an
    update (JAX's behaviour); a negative one counts from the end (NumPy's)."""
    x = np.arange(5.0, dtype=np.float32)
    indices = np.array([-1, -5, 7, -9, 2], np.int32)
    read, added = s4tf.function(lambda v, i: (v[i], v.at[i].add(100.0)))(x, indices)
    np.testing.assert_array_equal(np.asarray(read), [4, 0, 4, 0, 2])
    np.testing.assert_array_equal(np.asarray(added), [100, 1, 102, 3, 104])


def test_traced_boolean_mask_updates_as_where():
    x = np.arange(6.0, dtype=np.float32).reshape(2, 3)
    got = s4tf.function(lambda v: (v.at[v > 2].set(0.0), v.at[v[:, 0] > 1].multiply(2.0)))(x)
    np.testing.assert_array_equal(np.asarray(got[0]), np.where(x > 2, 0, x))
    np.testing.assert_array_equal(np.asarray(got[1]), [[0, 1, 2], [6, 8, 10]])


@pytest.mark.parametrize("read, match", [
    (lambda v: v[v > 1], "use s4tf.where"),
    (lambda v: v[5], "out of bounds for axis 0 with size 5"),
    (lambda v: v[[0, 5]], "index 5 is out of bounds"),
    (lambda v: v[:, [-4]], "index -4 is out of bounds for axis 1"),
    (lambda v: v[0.5], "not supported"),
    (lambda v: v[[0.5]], "must be integers or booleans"),
    (lambda v: v[v], "must be integers or booleans, got a tensor of f32"),
    (lambda v: v[0, 0, 0, 0], "too many indices"),
    (lambda v: v[..., ...], "one ellipsis"),
    (lambda v: v[[0, 1], [0, 1, 2]], "could not be broadcast together"),
    (lambda v: v[::0], "step cannot be zero"),
    (lambda v: v[np.zeros((2, 2), bool)], "does not match"),
    (lambda v: v.at[[0, 1]].set(np.ones((3, 4, 4), np.float32)), "cannot be broadcast"),
])
def test_index_errors_name_the_users_line(read, match):
    with pytest.raises(s4tf.IndexingError, match=match) as error:
        s4tf.function(read)(X)
    assert "test_indexing.py" in str(error.value)


def test_eager_0d_integer_tensors_are_slice_bounds_as_in_numpy():
    x, bounds = s4tf.asarray(X), s4tf.asarray(np.array([1, 3, 2], np.int32))
    start, stop, step = bounds[0], bounds[1], bounds[2]
    np.testing.assert_array_equal(np.asarray(x[start:start + stop:step, np.int64(1):np.array(3)]), X[1:4:2, 1:3])


def test_a_traced_slice_bound_is_an_error():
    with pytest.raises(s4tf.IndexingError, match="slice bounds must be Python ints"):
        s4tf.function(lambda v, n: v[:n])(X, np.int32(2))


def test_setitem_outside_a_staged_function_is_a_clear_error():
    x = s4tf.asarray(X)
    with pytest.raises(s4tf.ImmutableTensorError, match=r"x = x.at\[index\].set\(value\)") as error:
        x[0] = 1.0
    assert "test_indexing.py" in str(error.value)


def test_assignment_by_element_in_staged_functions_rebinds_the_variable():
    @s4tf.function
    def fill(x, t):
        y = x
        y[0] = 5.0
        y[1:, ::-1] += 1.0
        if t > 0:  # a staged branch: y is carried out of it
            y[2] *= 10.0
        for i in range(3):
            y[i, i] = -1.0
        table = [0, 0]
        table[1] = 3  # a list: assigned in place, as Python does
        return x, y, table[1]

    x = np.arange(12.0, dtype=np.float32).reshape(3, 4)
    caller = s4tf.asarray(x)
    same, filled, three = fill(caller, np.float32(1.0))
    expected = x.copy()
    expected[0] = 5.0
    expected[1:, ::-1] += 1.0
    expected[2] *= 10.0
    for i in range(3):
        expected[i, i] = -1.0
    np.testing.assert_array_equal(np.asarray(filled), expected)
    np.testing.assert_array_equal(np.asarray(same), x)
    np.testing.assert_array_equal(np.asarray(caller), x)
    assert three == 3


def test_augmented_assignment_by_element_reads_then_writes_as_numpy():
    """`x[i] += v` with a repeated index adds once (NumPy's meaning); .at[].add adds twice."""

    @s4tf.function
    def twice(x):
        y = x
        y[[0, 0]] += 1.0
        return y, x.at[[0, 0]].add(1.0)

    once, accumulated = twice(np.zeros(2, np.float32))
    np.testing.assert_array_equal(np.asarray(once), [1, 0])
    np.testing.assert_array_equal(np.asarray(accumulated), [2, 0])


def test_assignment_to_a_closure_variable_is_not_rewritten():
    outer = np.zeros(3, np.float32)

    @s4tf.function
    def writes_outer(x):
        outer[0] = 1.0  # a NumPy array from another scope: stays Python's in-place assignment
        return x

    writes_outer(np.zeros(1, np.float32))
    assert outer[0] == 1.0
