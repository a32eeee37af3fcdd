"""Cyclic Jacobi rotations: ``eigh`` and ``eigvalsh`` (two-sided, on ``(x + x.T) / 2``),
``svd`` and ``svdvals`` (one-sided, on the columns of ``x`` or ``x.T``), and what the
singular values give: ``pinv`` and ``matrix_rank``."""

from __future__ import annotations

import numpy as np

from s4tf.arrays import numpy_api as snp
from s4tf.dialects.types import canonical_dtype
from s4tf.linalg.factorizations import orthogonal_complement
from s4tf.linalg.matrices import (
    batched_eye, diagonal_entries, eye, matrix, rows, select_rows, swap_last, symmetrized,
)
from s4tf.linalg.results import EighResult, SVDResult


def _sweeps(dtype, sweeps):
    return sweeps if sweeps is not None else (10 if canonical_dtype(dtype) == "f64" else 6)


def _rotation(n, p, q, c, s, dtype):
    """The ``(..., n, n)`` Givens rotation in the ``(p, q)`` plane."""
    plane = np.zeros((n, n))
    plane[p, p] = plane[q, q] = 1.0
    skew = np.zeros((n, n))
    skew[p, q], skew[q, p] = 1.0, -1.0
    c, s = snp.expand_dims(snp.expand_dims(c, -1), -1), snp.expand_dims(snp.expand_dims(s, -1), -1)
    return eye(n, dtype) + (c - 1.0) * plane.astype(dtype) + s * skew.astype(dtype)


def _jacobi_angle(app, aqq, apq, dtype):
    """``(cos, sin)`` of the rotation that zeroes ``apq`` (Golub and Van Loan 8.5.2); the
    identity where ``apq`` is already zero, with finite derivatives there."""
    rotate = snp.abs(apq) > float(np.finfo(dtype).tiny)
    safe = snp.where(rotate, apq, 1.0)
    theta = (aqq - app) / (2.0 * safe)
    t = snp.where(theta >= 0, 1.0, -1.0) / (snp.abs(theta) + snp.sqrt(theta * theta + 1.0))
    c = snp.rsqrt(t * t + 1.0)
    return snp.where(rotate, c, 1.0), snp.where(rotate, t * c, 0.0)


def _sort_columns(values, vectors, descending=False):
    """``values`` (``(..., n)``) sorted, and the columns of ``vectors`` with them."""
    n = values.shape[-1]
    index = rows(n)
    column, row = snp.expand_dims(values, -1), snp.expand_dims(values, -2)
    ahead = (row > column) if descending else (row < column)
    ties = (row == column) & (index[None, :] < index[:, None])
    rank = snp.sum(snp.astype(ahead | ties, np.int32), axis=-1)
    placed = snp.expand_dims(rank, -2) == snp.expand_dims(index, -1)  # [r, i]: value i goes to r
    sorted_values = snp.sum(snp.where(placed, row, snp.zeros((), values.dtype)), axis=-1)
    sorted_vectors = swap_last(select_rows(swap_last(vectors), placed))
    return sorted_values, sorted_vectors


def _pairs(n):
    return [(p, q) for p in range(n - 1) for q in range(p + 1, n)]


def eigh(x, sweeps=None):
    """``EighResult(eigenvalues, eigenvectors)`` of a symmetric ``x`` (symmetrized first):
    the eigenvalues ascending, the eigenvectors orthonormal columns. Cyclic Jacobi,
    ``sweeps`` sweeps (6 in f32, 10 in f64)."""
    a = symmetrized(matrix(x, "x"))
    dtype = np.dtype(a.dtype)
    vectors = batched_eye(a)
    for _ in range(_sweeps(a.dtype, sweeps)):
        for p, q in _pairs(a.shape[-1]):
            c, s = _jacobi_angle(a[..., p, p], a[..., q, q], a[..., p, q], dtype)
            rotation = _rotation(a.shape[-1], p, q, c, s, dtype)
            a = swap_last(rotation) @ a @ rotation
            vectors = vectors @ rotation
    values = snp.stack(diagonal_entries(a), axis=-1) if a.shape[-1] else snp.zeros(a.shape[:-1], a.dtype)
    return EighResult(*_sort_columns(values, vectors))


def eigvalsh(x, sweeps=None):
    """The eigenvalues of a symmetric ``x``, ascending (``eigh``'s)."""
    return eigh(x, sweeps).eigenvalues


def _column_jacobi(a, sweeps):
    """One-sided Jacobi on a tall ``a``: ``(s, b, v)`` with ``a @ v = b``, ``b``'s columns
    orthogonal, ``s`` their lengths (the singular values), all sorted by ``s`` descending."""
    n = a.shape[-1]
    dtype = np.dtype(a.dtype)
    v = batched_eye(a)
    for _ in range(_sweeps(a.dtype, sweeps)):
        for p, q in _pairs(n):
            ap, aq = a[..., :, p], a[..., :, q]
            c, s = _jacobi_angle(snp.sum(ap * ap, axis=-1), snp.sum(aq * aq, axis=-1), snp.sum(ap * aq, axis=-1), dtype)
            rotation = _rotation(n, p, q, c, s, dtype)
            a, v = a @ rotation, v @ rotation
    lengths = snp.sqrt(snp.sum(a * a, axis=-2))
    s, v = _sort_columns(lengths, v, descending=True)
    _, b = _sort_columns(lengths, a, descending=True)
    return s, b, v


def _tall(a):
    """``a``, or ``a.T`` if it is wide, and whether it was transposed."""
    wide = a.shape[-2] < a.shape[-1]
    return (swap_last(a) if wide else a), wide


def svd(x, full_matrices=True, compute_uv=True, sweeps=None):
    """``SVDResult(U, S, Vh)`` of an ``(..., m, n)`` matrix, the singular values ``S``
    descending; ``U`` is ``(..., m, m)`` and ``Vh`` ``(..., n, n)`` with
    ``full_matrices``, else ``(..., m, k)`` and ``(..., k, n)``, ``k = min(m, n)``. ``S``
    alone without ``compute_uv`` (NumPy's). One-sided Jacobi; ``U``'s columns for zero
    singular values are undetermined (NaN)."""
    a, wide = _tall(matrix(x, "x", square=False))
    s, b, v = _column_jacobi(a, sweeps)
    if not compute_uv:
        return s
    u = b / snp.expand_dims(s, -2)
    if full_matrices and a.shape[-2] > a.shape[-1]:
        u = snp.concatenate([u, orthogonal_complement(a)], axis=-1)
    return SVDResult(v, s, swap_last(u)) if wide else SVDResult(u, s, swap_last(v))


def svdvals(x, sweeps=None):
    """The singular values of an ``(..., m, n)`` matrix, descending."""
    return svd(x, compute_uv=False, sweeps=sweeps)


def _cutoff(s, rtol, shape):
    """The singular values that count: above ``rtol`` (default ``max(m, n) * eps``) times
    the largest; ``rtol`` broadcasts against the batch axes."""
    if rtol is None:
        rtol = max(shape[-2:]) * float(np.finfo(np.dtype(s.dtype)).eps)
    rtol = snp.astype(snp.asarray(rtol), s.dtype)
    return s > snp.expand_dims(rtol, -1) * s[..., :1]


def matrix_rank(x, rtol=None, sweeps=None):
    """The number of singular values above ``rtol`` times the largest (default ``rtol``:
    ``max(m, n) * eps``), in the default integer dtype."""
    a = matrix(x, "x", square=False)
    s = svdvals(a, sweeps)
    return snp.sum(snp.astype(_cutoff(s, rtol, a.shape), np.int32), axis=-1)


def pinv(x, rtol=None, sweeps=None):
    """The Moore-Penrose pseudo-inverse ``V diag(1/s) U.T``, singular values at or below
    ``rtol`` times the largest (default ``max(m, n) * eps``) taken as zero. Written as
    ``V diag(1/s**2) (a V).T``: no ``U``, so rank-deficient ``x`` give no NaN."""
    a, wide = _tall(matrix(x, "x", square=False))
    s, b, v = _column_jacobi(a, sweeps)
    kept = _cutoff(s, rtol, a.shape)
    inverse_squares = snp.where(kept, 1.0 / snp.where(kept, s * s, 1.0), 0.0)
    result = (v * snp.expand_dims(inverse_squares, -2)) @ swap_last(b)
    return swap_last(result) if wide else result
