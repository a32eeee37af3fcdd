"""The Array API's ``linalg`` names for products and diagonals: s4tf's own functions with
the standard's arguments (the matrices on the last two axes)."""

from __future__ import annotations

from s4tf.arrays import contractions, shaping
from s4tf.arrays.contractions import tensordot, vecdot
from s4tf.arrays.creation import matrix_transpose
from s4tf.arrays.numpy_api import asarray, matmul
from s4tf.linalg.matrices import linalg_error


def cross(x1, x2, axis=-1):
    """Cross products of the 3-vectors along ``axis`` (the other axes broadcast)."""
    return contractions.cross(x1, x2, axis=axis)


def outer(x1, x2):
    """The outer product of two vectors."""
    x1, x2 = asarray(x1), asarray(x2)
    if x1.ndim != 1 or x2.ndim != 1:
        raise linalg_error(f"outer needs two vectors, got shapes {tuple(x1.shape)} and {tuple(x2.shape)}")
    return contractions.outer(x1, x2)


def diagonal(x, offset=0):
    """The ``offset``-th diagonal of the matrices on the last two axes."""
    return shaping.diagonal(x, offset, -2, -1)


def trace(x, offset=0, dtype=None):
    """The sum of ``diagonal(x, offset=offset)``, in ``dtype`` if given."""
    return shaping.trace(x, offset, -2, -1, dtype)


__all__ = ["cross", "diagonal", "matmul", "matrix_transpose", "outer", "tensordot", "trace", "vecdot"]
