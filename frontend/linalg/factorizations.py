"""Cholesky (Cholesky-Banachiewicz) and QR (Gram-Schmidt for the reduced factors,
Householder reflections for the complete ``Q``)."""

from __future__ import annotations

import numpy as np

from s4tf.arrays import numpy_api as snp
from s4tf.linalg.matrices import batched_eye, linalg_error, matrix, rows, set_column, swap_last, symmetrized
from s4tf.linalg.results import QRResult


def cholesky(x, upper=False):
    """Lower-triangular ``L`` with ``L @ L.T = x`` for a symmetric positive-definite ``x``
    (symmetrized first, as JAX does), or ``L.T`` with ``upper``; NaN where ``x`` is not
    positive definite."""
    a = symmetrized(matrix(x))
    index = rows(a.shape[-1])
    factor = snp.zeros_like(a)
    for j in range(a.shape[-1]):
        column = a[..., :, j] - (factor @ snp.expand_dims(factor[..., j, :], -1))[..., 0]
        pivot = snp.sqrt(column[..., j])
        factor = set_column(factor, j, snp.where(index >= j, column / snp.expand_dims(pivot, -1), 0.0))
    return swap_last(factor) if upper else factor


def _reduced_qr(a):
    """Gram-Schmidt, orthogonalized twice: ``q`` ``(..., m, k)``, ``r`` ``(..., k, n)``
    with a positive diagonal."""
    m, n = a.shape[-2:]
    k = min(m, n)
    batch = tuple(a.shape[:-2])
    q = snp.zeros((*batch, m, k), a.dtype)
    r = snp.zeros((*batch, k, n), a.dtype)
    for j in range(n):
        v = a[..., :, j]
        coefficients = (snp.expand_dims(v, -2) @ q)[..., 0, :]
        if j < k:
            v = v - (q @ snp.expand_dims(coefficients, -1))[..., 0]
            again = (snp.expand_dims(v, -2) @ q)[..., 0, :]
            v = v - (q @ snp.expand_dims(again, -1))[..., 0]
            length = snp.sqrt(snp.sum(v * v, axis=-1))
            q = set_column(q, j, v / snp.expand_dims(length, -1))
            coefficients = snp.where(rows(k) == j, snp.expand_dims(length, -1), coefficients + again)
        r = set_column(r, j, coefficients)
    return q, r


def orthogonal_complement(a):
    """``(..., m, m - n)`` orthonormal columns orthogonal to those of a tall ``a``
    (``m > n``): the last columns of its Householder ``Q``."""
    m, n = a.shape[-2:]
    index = rows(m)
    tiny = float(np.finfo(np.dtype(a.dtype)).tiny)
    q, r = batched_eye(a, m), a
    for j in range(n):
        x = snp.where(index >= j, r[..., :, j], 0.0)
        alpha = snp.where(x[..., j] >= 0, -1.0, 1.0) * snp.sqrt(snp.sum(x * x, axis=-1))
        v = x - snp.where(index == j, snp.expand_dims(alpha, -1), 0.0)
        length2 = snp.sum(v * v, axis=-1)
        scale = snp.where(length2 > tiny, 2.0 / snp.where(length2 > tiny, length2, 1.0), 0.0)
        scale = snp.expand_dims(snp.expand_dims(scale, -1), -1)
        v_column, v_row = snp.expand_dims(v, -1), snp.expand_dims(v, -2)
        r = r - v_column * (v_row @ r) * scale
        q = q - (q @ v_column) * v_row * scale
    return q[..., :, n:]


def qr(x, mode="reduced"):
    """``QRResult(Q, R)`` of an ``(..., m, n)`` matrix: with ``mode='reduced'``, ``Q`` has
    ``k = min(m, n)`` orthonormal columns and ``R`` is ``(..., k, n)``; with
    ``'complete'``, ``Q`` is ``(..., m, m)`` and ``R`` ``(..., m, n)``. ``R``'s diagonal is
    positive; ``x`` needs full column rank ``k``."""
    if mode not in ("reduced", "complete"):
        raise linalg_error(f"qr: mode must be 'reduced' or 'complete', got {mode!r}")
    a = matrix(x, "x", square=False)
    q, r = _reduced_qr(a)
    m, n = a.shape[-2:]
    if mode == "reduced" or m <= n:
        return QRResult(q, r)
    full_q = snp.concatenate([q, orthogonal_complement(a)], axis=-1)
    r = snp.concatenate([r, snp.zeros((*r.shape[:-2], m - n, n), a.dtype)], axis=-2)
    return QRResult(full_q, r)
