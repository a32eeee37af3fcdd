"""Tape ops against NumPy: rows pushed in a loop whose trip count is an argument (so the
tape doubles several times) are read back in another loop, by IREE and by the reference
interpreter; a tape that comes back to Python is made a tape again with ``as_tape``."""

import numpy as np
import pytest
from op_testing import covers

import s4tf
from s4tf.dialects.reference import run_function
from s4tf.dispatch import apply1
from s4tf.errors import ShapeError


def pushed(x, n):
    """Push ``x * 2**k`` for ``k < n``; return the tape."""

    def body(carry):
        k, tape, y = carry
        return k + 1, apply1("tape_push", tape, k, y), y * 2

    return s4tf.while_loop(lambda c: c[0] < n, body, (np.int32(0), apply1("tape_empty", x), x))[1]


def weighted_sum(tape, n, like):
    """``sum_k (k + 1) * tape[k]`` for ``k < n``."""
    return s4tf.fori_loop(
        np.int32(0), n, lambda k, acc: acc + apply1("tape_read", tape, k) * (k + 1).astype(like.dtype), s4tf.zeros_like(like)
    )


def want(x, n):
    return sum(x * 2.0**k * (k + 1) for k in range(n))


@covers("tape_empty", "tape_push", "tape_read")
@pytest.mark.parametrize("n", [0, 3, 8, 9, 41])
@pytest.mark.parametrize("dtype", [np.float32, np.int64])
def test_rows_survive_growth(n, dtype):
    x = np.array([[1, 2, 3], [4, 5, 6]], dtype)

    def f(x, n):
        return weighted_sum(pushed(x, n), n, x)

    staged = s4tf.function(f)
    lowered = staged.lower(x, np.int32(n))
    reference = run_function(lowered.module, lowered.entry, [x, np.int32(n)])[0]
    np.testing.assert_array_equal(np.asarray(staged(x, np.int32(n))), want(x, n))
    np.testing.assert_array_equal(reference, want(x, n))


@covers("as_tape")
def test_a_tape_returned_to_python_is_a_tape_again():
    x = np.array([1.0, 2.0, 3.0], np.float32)
    tape = np.asarray(s4tf.function(pushed)(x, np.int32(9)))
    assert tape.shape == (16, 3)  # 8 rows, doubled once
    again = s4tf.function(lambda t, n: weighted_sum(apply1("as_tape", t), n, x))(tape, np.int32(9))
    np.testing.assert_allclose(np.asarray(again), want(x, 9), rtol=1e-6)


def test_a_pushed_row_must_match_the_tape():
    def f(x, y):
        return apply1("tape_push", apply1("tape_empty", x), np.int32(0), y)

    with pytest.raises(ShapeError, match=r"pushed tensor<2xf32> onto a tape of tensor<3xf32> rows"):
        s4tf.function(f).lower(np.zeros(3, np.float32), np.zeros(2, np.float32))


def test_tapes_filled_from_one_value_in_one_loop_stay_apart():
    """Both tapes start as the same (CSE-merged) empty tensor; IREE must not let them alias."""

    def f(x, n):
        def body(carry):
            k, up, down, y = carry
            return k + 1, apply1("tape_push", up, k, y), apply1("tape_push", down, k, -y), y * 2

        empty = (apply1("tape_empty", x), apply1("tape_empty", x))
        _, up, down, _ = s4tf.while_loop(lambda c: c[0] < n, body, (np.int32(0), *empty, x))
        return weighted_sum(up, n, x), weighted_sum(down, n, x)

    x = np.array([1.0, 2.0, 3.0], np.float32)
    up, down = s4tf.function(f)(x, np.int32(11))
    np.testing.assert_allclose(np.asarray(up), want(x, 11), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(down), -want(x, 11), rtol=1e-6)
