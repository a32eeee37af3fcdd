"""Creation, manipulation and contraction functions (compositions of ops) staged through
IREE against NumPy, and eagerly."""

import sys
from pathlib import Path

import numpy as np
import pytest

pytestmark = pytest.mark.references  # outside the IREE sample: through the ops' references (tests/conftest.py)

sys.path.insert(0, str(Path(__file__).parents[1] / "dialects"))
from op_testing import check_staged  # noqa: E402

import s4tf  # noqa: E402

RNG = np.random.default_rng(5)
A = RNG.standard_normal((2, 3)).astype(np.float32)
B = RNG.standard_normal((3, 4)).astype(np.float32)
C = RNG.standard_normal((5, 2, 3, 3)).astype(np.float32)

EINSUM = [
    ("ij,jk->ik", (A, B)), ("ij,jk", (A, B)), ("ii->i", (C[0, 0],)), ("ii", (C[0, 0],)), ("...ij->...ji", (C,)),
    ("bnij,jk->bnik", (C, C[0, 0])), ("ij,ij->", (A, A)), ("i,j->ij", (A[0], B[0])), ("...ii->...", (C,)),
    ("ji", (A,)), ("bij,bjk->bik", (C[0], C[1])), ("ij,kj,k->i", (A, B.T, B[0])),
]


@pytest.mark.parametrize("subscripts,operands", EINSUM, ids=[s for s, _ in EINSUM])
def test_einsum_matches_numpy(subscripts, operands):
    expected = np.einsum(subscripts, *(o.astype(np.float64) for o in operands)).astype(np.float32)
    check_staged(lambda *xs: s4tf.einsum(subscripts, *xs), list(operands), expected, ops=[], scale=10)


def test_contractions_match_numpy():
    expected = [np.tensordot(A, B, 1), np.tensordot(C, C, axes=([2, 3], [3, 2])), np.outer(A, B[0]),
                np.sum(A * A[1], axis=-1), np.inner(A, A), np.swapaxes(C, 1, 3), np.swapaxes(C, -1, -2)]

    def fn(a, b, c):
        return (s4tf.tensordot(a, b, axes=1), s4tf.tensordot(c, c, axes=([2, 3], [3, 2])), s4tf.outer(a, b[0]),
                s4tf.vecdot(a, a[1]), s4tf.inner(a, a), s4tf.swapaxes(c, 1, 3), s4tf.matrix_transpose(c))

    check_staged(fn, [A, B, C], expected, ops=["dot_general"], scale=10)


def test_creation_and_manipulation_match_numpy():
    x = np.arange(12, dtype=np.int32).reshape(3, 4)
    expected = [
        np.eye(3, 4, k=1, dtype=np.float32), np.eye(2, dtype=np.int32), np.linspace(-1, 2, 7, dtype=np.float32),
        np.linspace(0, 1, 4, endpoint=False, dtype=np.float32), np.tril(x), np.triu(x, -1), np.tril(C, 1),
        np.repeat(x, 2, axis=0), np.repeat(x, [0, 1, 2, 3], axis=1), np.repeat(x, 2), np.tile(x, (2, 1, 2)),
        np.roll(x, 1), np.roll(x, (1, -1), axis=(0, 1)), np.moveaxis(C, [0, 1], [3, 0]), np.zeros((2, 3), np.float32),
        *np.meshgrid(np.arange(3), np.arange(2, dtype=np.int32)), *np.meshgrid(np.arange(3), np.arange(2), indexing="ij"),
        np.concatenate([x.ravel(), x.ravel()]), *np.broadcast_arrays(x, x[0]),
    ]

    def fn(v, c):
        return (
            s4tf.eye(3, 4, k=1), s4tf.eye(2, dtype=np.int32), s4tf.linspace(-1, 2, 7), s4tf.linspace(0, 1, 4, endpoint=False),
            s4tf.tril(v), s4tf.triu(v, -1), s4tf.tril(c, 1), s4tf.repeat(v, 2, axis=0), s4tf.repeat(v, [0, 1, 2, 3], axis=1),
            s4tf.repeat(v, 2), s4tf.tile(v, (2, 1, 2)), s4tf.roll(v, 1), s4tf.roll(v, (1, -1), axis=(0, 1)),
            s4tf.moveaxis(c, [0, 1], [3, 0]), s4tf.empty((2, 3)),
            *s4tf.meshgrid(s4tf.arange(3, dtype=np.int64), s4tf.arange(2)),
            *s4tf.meshgrid(s4tf.arange(3, dtype=np.int64), s4tf.arange(2, dtype=np.int64), indexing="ij"),
            s4tf.concat([v, v], axis=None), *s4tf.broadcast_arrays(v, v[0]),
        )

    check_staged(fn, [x, C], expected, ops=[])
    rows = s4tf.unstack(x, axis=1)
    assert len(rows) == 4 and np.array_equal(np.asarray(rows[2]), x[:, 2])


def test_bad_arguments_are_clear_errors():
    with pytest.raises(s4tf.ShapeError, match="label 'j' has sizes 3 and 4"):
        s4tf.einsum("ij,jk->ik", A, B.T)
    with pytest.raises(s4tf.ShapeError, match="appear in no operand"):
        s4tf.einsum("ij->k", A)
    with pytest.raises(s4tf.ShapeError, match="rank >= 1"):
        s4tf.tril(np.float32(3))
    np.testing.assert_array_equal(np.asarray(s4tf.tril(np.arange(1.0, 4.0))), np.tril(np.arange(1.0, 4.0)))  # NumPy's: rows
    with pytest.raises(s4tf.ShapeError, match="2 repeats for an axis of size 3"):
        s4tf.repeat(np.ones(3), [1, 2])


def test_flip_of_no_axes_is_the_tensor():
    """A 0-d tensor has no axis to reverse (IREE could not compile the empty reverse)."""
    np.testing.assert_array_equal(np.asarray(s4tf.flip(np.float32(2.5))), np.float32(2.5))
    np.testing.assert_array_equal(np.asarray(s4tf.flip(np.arange(3), axis=())), np.arange(3))


def test_stacked_rows_by_a_matrix_is_one_product_without_a_broadcast_matrix():
    """``(..., k) @ (k, n)`` contracts the last axis with the matrix as it is (as XLA's
    ``jnp.matmul``), rather than broadcasting the matrix to a batch of copies."""
    text = str(s4tf.function(lambda c, b: c @ b).lower(C, B))
    assert "broadcast_in_dim" not in text and "lhs_batch = array<i64>" in text
    check_staged(lambda c, b: c @ b, [C, B], np.matmul(C, B), ops=["dot_general"], scale=10)
