"""What every ``s4tf.linalg`` module shares: the argument checks, ``LinAlgError``, and
the masked row and column updates the factorizations are written with."""

from __future__ import annotations

import numpy as np

from s4tf.arrays import numpy_api as snp
from s4tf.core.errors import DTypeError, S4tfError
from s4tf.core.locations import user_location
from s4tf.dialects.types import canonical_dtype, is_float


class LinAlgError(S4tfError, ValueError):
    """An argument of a ``s4tf.linalg`` function has the wrong shape or kind."""


def linalg_error(message):
    """A ``LinAlgError`` naming the user's line."""
    return LinAlgError(message, str(user_location() or "") or None)


def matrix(a, what="a", square=True):
    """``a`` as a float tensor of shape ``(..., m, n)`` (``m == n`` if ``square``)."""
    a = snp.asarray(a)
    if not is_float(canonical_dtype(a.dtype)):
        raise DTypeError(f"s4tf.linalg needs float matrices, got {what} of {a.dtype}", str(user_location() or "") or None)
    if a.ndim < 2 or (square and a.shape[-1] != a.shape[-2]):
        kind = "a square matrix" if square else "a matrix"
        raise linalg_error(f"{what} must be {kind} (..., n, n), got shape {tuple(a.shape)}")
    return a


def swap_last(a):
    """``a`` with its last two axes swapped."""
    axes = list(range(a.ndim))
    axes[-2], axes[-1] = axes[-1], axes[-2]
    return snp.transpose(a, axes)


def rows(n):
    return np.arange(n)


def eye(n, dtype):
    return snp.astype(np.eye(n, dtype=bool), dtype)


def batched_eye(a, n=None):
    """The identity of size ``n`` (``a``'s last axis) with ``a``'s batch axes."""
    n = a.shape[-1] if n is None else n
    return snp.broadcast_to(eye(n, a.dtype), (*a.shape[:-2], n, n))


def set_column(matrix, j, column):
    """``matrix`` with column ``j`` replaced by ``column`` (``(..., rows)``)."""
    return snp.where(rows(matrix.shape[-1]) == j, snp.expand_dims(column, -1), matrix)


def set_row(matrix, i, row):
    return snp.where(np.expand_dims(rows(matrix.shape[-2]) == i, -1), snp.expand_dims(row, -2), matrix)


def select_rows(matrix, chosen):
    """Rows of ``matrix`` picked by the one-hot ``chosen`` (``(..., k, rows)`` bools):
    exact (a masked sum, not a product)."""
    picked = snp.where(snp.expand_dims(chosen, -1), snp.expand_dims(matrix, -3), snp.zeros((), matrix.dtype))
    return snp.sum(picked, axis=-2)


def diagonal_entries(a):
    """The diagonal of the square ``a`` as a list of ``(...)`` tensors."""
    return [a[..., k, k] for k in range(a.shape[-1])]


def symmetrized(a):
    return (a + swap_last(a)) * 0.5

