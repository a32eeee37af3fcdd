"""LU with partial pivoting and triangular substitution: ``det``, ``slogdet``, ``solve``,
``inv``, ``matrix_power``, ``triangular_solve``."""

from __future__ import annotations

import numpy as np

from s4tf.arrays import numpy_api as snp
from s4tf.linalg.matrices import (
    batched_eye, diagonal_entries, linalg_error, matrix, rows, select_rows, set_column, set_row, swap_last,
)
from s4tf.linalg.results import SlogdetResult


def pivoted_lu(a):
    """LU with partial pivoting: the packed factors (unit ``L`` below the diagonal, ``U``
    on and above), the row permutation (``perm[i]``: the row of ``a`` in row ``i``) and its
    sign."""
    n = a.shape[-1]
    index = rows(n)
    batch = tuple(a.shape[:-2])
    perm = snp.broadcast_to(snp.iota((n,), dtype=np.int32), (*batch, n))
    sign = snp.ones(batch, a.dtype)
    for k in range(n):
        candidates = snp.where(index >= k, snp.abs(a[..., :, k]), -1.0)
        p = snp.argmax(snp.stop_gradient(candidates), axis=-1)
        is_p = index == snp.expand_dims(p, -1)
        row_k, row_p = a[..., k, :], select_rows(a, snp.expand_dims(is_p, -2))[..., 0, :]
        a = snp.where(np.expand_dims(index == k, -1), snp.expand_dims(row_p, -2),
                      snp.where(snp.expand_dims(is_p, -1), snp.expand_dims(row_k, -2), a))
        perm_k, perm_p = perm[..., k], snp.sum(snp.where(is_p, perm, 0), axis=-1)
        perm = snp.where(index == k, snp.expand_dims(perm_p, -1), snp.where(is_p, snp.expand_dims(perm_k, -1), perm))
        sign = snp.where(p == k, sign, -sign)
        multipliers = snp.where(index > k, a[..., :, k] / snp.expand_dims(a[..., k, k], -1), 0.0)
        pivot_row = snp.where(index > k, a[..., k, :], 0.0)
        a = a - snp.expand_dims(multipliers, -1) * snp.expand_dims(pivot_row, -2)
        a = set_column(a, k, snp.where(index > k, multipliers, a[..., :, k]))
    return a, perm, sign


def _product(factors, like):
    result = snp.ones(like.shape, like.dtype)
    for factor in factors:
        result = result * factor
    return result


def det(x):
    """The determinant (LU with partial pivoting); 1 for a 0x0 matrix."""
    lu, _, sign = pivoted_lu(matrix(x))
    return _product(diagonal_entries(lu), sign) * sign


def slogdet(x):
    """``SlogdetResult(sign, logabsdet)``: the determinant's sign and ``log|det|``,
    without the overflow of ``det``."""
    lu, _, sign = pivoted_lu(matrix(x))
    diagonal = diagonal_entries(lu)
    sign = _product([snp.sign(d) for d in diagonal], sign) * sign
    logabsdet = snp.zeros(sign.shape, sign.dtype)
    for d in diagonal:
        logabsdet = logabsdet + snp.log(snp.abs(d))
    return SlogdetResult(sign, logabsdet)


def substitute(a, b, lower, unit_diagonal):
    """``x`` with ``a @ x = b`` for triangular ``a`` (``(..., n, n)``) and ``b`` ``(..., n, m)``."""
    n = a.shape[-1]
    index = rows(n)
    x = snp.zeros_like(b)
    for k in range(n) if lower else reversed(range(n)):
        xk = b[..., k, :]
        if not unit_diagonal:
            xk = xk / snp.expand_dims(a[..., k, k], -1)
        x = set_row(x, k, xk)
        later = index > k if lower else index < k
        column = snp.where(later, a[..., :, k], 0.0)
        b = b - snp.expand_dims(column, -1) * snp.expand_dims(xk, -2)
    return x


def _operands(a, b):
    """``a`` and ``b`` promoted to one float dtype; ``b`` as ``(..., n, m)`` broadcast
    against ``a``'s batch, and whether it was a vector (``b.ndim == 1``, NumPy 2's rule)."""
    dtype = snp._result_dtype(a, b)
    a = matrix(snp.astype(snp.asarray(a), dtype))
    b = snp.astype(snp.asarray(b), a.dtype)
    vector = b.ndim == 1
    if b.ndim < 1 or b.shape[0 if vector else -2] != a.shape[-1]:
        raise linalg_error(f"b of shape {tuple(b.shape)} does not match a of shape {tuple(a.shape)}")
    if vector:
        b = snp.expand_dims(b, -1)
    try:
        batch = np.broadcast_shapes(tuple(a.shape[:-2]), tuple(b.shape[:-2]))
    except ValueError:
        raise linalg_error(f"the batch axes of a {tuple(a.shape)} and b {tuple(b.shape)} do not broadcast") from None
    a = snp.broadcast_to(a, (*batch, *a.shape[-2:]))
    return a, snp.broadcast_to(b, (*batch, *b.shape[-2:])), vector


def _unvector(x, vector):
    return x[..., 0] if vector else x


def triangular_solve(a, b, lower=False, transpose=False, unit_diagonal=False):
    """``x`` with ``a @ x = b`` (``a.T @ x = b`` with ``transpose``) for triangular ``a``,
    reading only its ``lower`` or upper triangle (SciPy's ``solve_triangular``)."""
    a, b, vector = _operands(a, b)
    if transpose:
        a, lower = swap_last(a), not lower
    return _unvector(substitute(a, b, lower, unit_diagonal), vector)


def solve(x1, x2):
    """``x`` with ``x1 @ x = x2`` (LU with partial pivoting); ``x2`` is a vector ``(n,)``
    or a stack of matrices ``(..., n, m)`` whose batch axes broadcast against ``x1``'s."""
    a, b, vector = _operands(x1, x2)
    lu, perm, _ = pivoted_lu(a)
    permuted = select_rows(b, snp.expand_dims(perm, -1) == rows(a.shape[-1]))
    y = substitute(lu, permuted, lower=True, unit_diagonal=True)
    return _unvector(substitute(lu, y, lower=False, unit_diagonal=False), vector)


def inv(x):
    """The inverse: ``solve(x, I)``."""
    a = matrix(x)
    return solve(a, batched_eye(a))


def matrix_power(x, n):
    """``x`` multiplied by itself ``n`` times (by squaring); the identity for ``n == 0``,
    powers of ``inv(x)`` for ``n < 0``."""
    if not isinstance(n, (int, np.integer)) or isinstance(n, bool):
        raise linalg_error(f"matrix_power needs an integer exponent, got {n!r}")
    a = matrix(x)
    if n < 0:
        a, n = inv(a), -int(n)
    result = None
    while n:
        if n & 1:
            result = a if result is None else result @ a
        n >>= 1
        if n:
            a = a @ a
    return batched_eye(a) if result is None else result
