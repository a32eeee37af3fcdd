"""Tape ops against NumPy: rows written in a loop whose trip count is an argument are read
back in another loop of the same function, by IREE and by the reference interpreter."""

import numpy as np
import pytest
from op_testing import covers

import s4tf
from s4tf.dialects.reference import run_function
from s4tf.staging.dispatch import apply1
from s4tf.core.errors import ShapeError

ROWS = 16


def written(x, n):
    """Rows ``k < n`` of a zero tape set to ``x * 2**k``; two tapes, one negated."""

    def body(carry):
        k, up, down, y = carry
        return k + 1, apply1("tape_write", up, k, y), apply1("tape_write", down, k, -y), y * 2

    empty = s4tf.zeros((ROWS, *x.shape), x.dtype)
    return s4tf.while_loop(lambda c: c[0] < n, body, (np.int32(0), empty, empty, x))[1:3]


def weighted_sum(tape, n, like):
    """``sum_k (k + 1) * tape[k]`` for ``k < n``, read from the last row down."""

    def body(carry):
        k, acc = carry
        return k - 1, acc + apply1("tape_read", tape, k - 1) * k.astype(like.dtype)

    return s4tf.while_loop(lambda c: c[0] > 0, body, (n, s4tf.zeros_like(like)))[1]


def want(x, n):
    return sum(x * 2**k * (k + 1) for k in range(n))


@covers("tape_write", "tape_read")
@pytest.mark.parametrize("n", [0, 3, ROWS])
@pytest.mark.parametrize("dtype", [np.float32, np.int64])
def test_rows_written_in_one_loop_are_read_in_another(n, dtype):
    x = np.array([[1, 2, 3], [4, 5, 6]], dtype)

    def f(x, n):
        up, down = written(x, n)
        return weighted_sum(up, n, x), weighted_sum(down, n, x)

    staged = s4tf.function(f)
    lowered = staged.lower(x, np.int32(n))
    reference = run_function(lowered.module, lowered.entry, [x, np.int32(n)])
    up, down = staged(x, np.int32(n))
    for got in (np.asarray(up), reference[0]):
        np.testing.assert_array_equal(got, want(x, n))
    for got in (np.asarray(down), reference[1]):
        np.testing.assert_array_equal(got, -want(x, n))


def test_a_written_row_must_match_the_tape():
    def f(x, y):
        return apply1("tape_write", s4tf.zeros((4, 3), np.float32), np.int32(0), y)

    with pytest.raises(ShapeError, match=r"wrote tensor<2xf32> into a tape of tensor<3xf32> rows"):
        s4tf.function(f).lower(np.zeros(3, np.float32), np.zeros(2, np.float32))
