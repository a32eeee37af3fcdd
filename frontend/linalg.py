"""``s4tf.linalg``: dense linear algebra composed from s4tf ops, so IREE runs it on every
target and the AD passes differentiate it like any other code.

IREE-3.13-WORKAROUND: IREE 3.13 has no LAPACK calls, so each factorization is written out for the matrix's
static size: LU with partial pivoting (``solve``, ``inv``, ``det``, ``slogdet``),
Cholesky and substitution (``cholesky``, ``triangular_solve``), Gram-Schmidt with
reorthogonalization (``qr``), cyclic Jacobi rotations (``eigh``, ``svd``). The staged code
grows with the size (``n`` steps; Jacobi ``n**2 / 2`` rotations a sweep): meant for small
matrices, a few dozen rows. Leading axes are batch axes.

```python
import numpy as np, s4tf
a = np.array([[4.0, 1.0], [1.0, 3.0]], np.float32)
x = s4tf.linalg.solve(a, np.array([1.0, 2.0], np.float32))
```
"""

from __future__ import annotations

import numpy as np

from s4tf.arrays import numpy_api as snp
from s4tf.dialects.types import canonical_dtype, is_float
from s4tf.core.errors import DTypeError, S4tfError, ShapeError


class LinAlgError(S4tfError, ValueError):
    """An argument of a ``s4tf.linalg`` function has the wrong shape or kind."""


def _matrix(a, what="a", square=True):
    a = snp.asarray(a)
    if not is_float(canonical_dtype(a.dtype)):
        raise DTypeError(f"s4tf.linalg needs float matrices, got {what} of {a.dtype}")
    if a.ndim < 2 or (square and a.shape[-1] != a.shape[-2]):
        kind = "a square matrix" if square else "a matrix"
        raise LinAlgError(f"{what} must be {kind} (..., n, n), got shape {tuple(a.shape)}")
    return a


def _swap_last(a):
    axes = list(range(a.ndim))
    axes[-2], axes[-1] = axes[-1], axes[-2]
    return snp.transpose(a, axes)


def _rows(n):
    return np.arange(n)


def _eye(n, dtype):
    return snp.astype(np.eye(n, dtype=bool), dtype)


def _set_column(matrix, j, column):
    """``matrix`` with column ``j`` replaced by ``column`` (``(..., rows)``)."""
    return snp.where(_rows(matrix.shape[-1]) == j, snp.expand_dims(column, -1), matrix)


def _set_row(matrix, i, row):
    return snp.where(np.expand_dims(_rows(matrix.shape[-2]) == i, -1), snp.expand_dims(row, -2), matrix)


def _select_rows(matrix, chosen):
    """Rows of ``matrix`` picked by the one-hot ``chosen`` (``(..., k, rows)`` bools):
    exact (a masked sum, not a product)."""
    picked = snp.where(snp.expand_dims(chosen, -1), snp.expand_dims(matrix, -3), snp.zeros((), matrix.dtype))
    return snp.sum(picked, axis=-2)


# -- LU ---------------------------------------------------------------------------------


def _lu(a):
    """LU with partial pivoting: the packed factors (unit ``L`` below the diagonal, ``U``
    on and above), the row permutation (``perm[i]``: the row of ``a`` in row ``i``) and its
    sign."""
    n = a.shape[-1]
    rows = _rows(n)
    batch = tuple(a.shape[:-2])
    perm = snp.broadcast_to(snp.iota((n,), dtype=np.int32), (*batch, n))
    sign = snp.ones(batch, a.dtype)
    for k in range(n):
        candidates = snp.where(rows >= k, snp.abs(a[..., :, k]), -1.0)
        p = snp.argmax(snp.stop_gradient(candidates), axis=-1)
        is_p = rows == snp.expand_dims(p, -1)
        row_k, row_p = a[..., k, :], _select_rows(a, snp.expand_dims(is_p, -2))[..., 0, :]
        a = snp.where(np.expand_dims(rows == k, -1), snp.expand_dims(row_p, -2),
                      snp.where(snp.expand_dims(is_p, -1), snp.expand_dims(row_k, -2), a))
        perm_k, perm_p = perm[..., k], snp.sum(snp.where(is_p, perm, 0), axis=-1)
        perm = snp.where(rows == k, snp.expand_dims(perm_p, -1), snp.where(is_p, snp.expand_dims(perm_k, -1), perm))
        sign = snp.where(p == k, sign, -sign)
        multipliers = snp.where(rows > k, a[..., :, k] / snp.expand_dims(a[..., k, k], -1), 0.0)
        pivot_row = snp.where(rows > k, a[..., k, :], 0.0)
        a = a - snp.expand_dims(multipliers, -1) * snp.expand_dims(pivot_row, -2)
        a = _set_column(a, k, snp.where(rows > k, multipliers, a[..., :, k]))
    return a, perm, sign


def _diagonal(a):
    return [a[..., k, k] for k in range(a.shape[-1])]


def _product(factors):
    result = factors[0]
    for factor in factors[1:]:
        result = result * factor
    return result


def det(a):
    """The determinant (LU with partial pivoting)."""
    lu, _, sign = _lu(_matrix(a))
    return sign * _product(_diagonal(lu))


def slogdet(a):
    """``(sign, log|det|)``, without the overflow of ``det``."""
    lu, _, sign = _lu(_matrix(a))
    diagonal = _diagonal(lu)
    sign = sign * _product([snp.sign(d) for d in diagonal])
    return sign, sum(snp.log(snp.abs(d)) for d in diagonal[1:]) + snp.log(snp.abs(diagonal[0]))


def _substitute(a, b, lower, unit_diagonal):
    """``x`` with ``a @ x = b`` for triangular ``a`` (``(..., n, n)``) and ``b`` ``(..., n, m)``."""
    n = a.shape[-1]
    rows = _rows(n)
    x = snp.zeros_like(b)
    for k in range(n) if lower else reversed(range(n)):
        xk = b[..., k, :]
        if not unit_diagonal:
            xk = xk / snp.expand_dims(a[..., k, k], -1)
        x = _set_row(x, k, xk)
        later = rows > k if lower else rows < k
        column = snp.where(later, a[..., :, k], 0.0)
        b = b - snp.expand_dims(column, -1) * snp.expand_dims(xk, -2)
    return x


def _right_hand_side(a, b):
    """``b`` as ``(..., n, m)``, and whether it was a vector (NumPy 2: ``b.ndim == 1``)."""
    b = snp.asarray(b)
    if b.dtype != a.dtype:
        raise DTypeError(f"a and b must have one dtype, got {a.dtype} and {b.dtype}")
    vector = b.ndim == 1
    if b.ndim < 1 or b.shape[0 if vector else -2] != a.shape[-1]:
        raise LinAlgError(f"b of shape {tuple(b.shape)} does not match a of shape {tuple(a.shape)}")
    if vector:
        b = snp.expand_dims(b, -1)
    batch = np.broadcast_shapes(tuple(a.shape[:-2]), tuple(b.shape[:-2]))
    return snp.broadcast_to(b, (*batch, *b.shape[-2:])), vector


def _unvector(x, vector):
    return x[..., 0] if vector else x


def triangular_solve(a, b, lower=False, transpose=False, unit_diagonal=False):
    """``x`` with ``a @ x = b`` (``a.T @ x = b`` with ``transpose``) for triangular ``a``,
    reading only its ``lower`` or upper triangle (SciPy's ``solve_triangular``)."""
    a = _matrix(a)
    b, vector = _right_hand_side(a, b)
    if transpose:
        a, lower = _swap_last(a), not lower
    return _unvector(_substitute(a, b, lower, unit_diagonal), vector)


def solve(a, b):
    """``x`` with ``a @ x = b`` (LU with partial pivoting); ``b`` is ``(n,)`` or ``(..., n, m)``."""
    a = _matrix(a)
    b, vector = _right_hand_side(a, b)
    lu, perm, _ = _lu(a)
    permuted = _select_rows(b, snp.expand_dims(perm, -1) == _rows(a.shape[-1]))
    y = _substitute(lu, permuted, lower=True, unit_diagonal=True)
    return _unvector(_substitute(lu, y, lower=False, unit_diagonal=False), vector)


def inv(a):
    """The inverse: ``solve(a, I)``."""
    a = _matrix(a)
    return solve(a, snp.broadcast_to(_eye(a.shape[-1], a.dtype), a.shape))


# -- Cholesky, QR -----------------------------------------------------------------------


def _symmetrized(a):
    return (a + _swap_last(a)) * 0.5


def cholesky(a):
    """Lower-triangular ``L`` with ``L @ L.T = a`` for a symmetric positive-definite ``a``
    (symmetrized first, as JAX does); NaN where ``a`` is not positive definite."""
    a = _symmetrized(_matrix(a))
    n = a.shape[-1]
    rows = _rows(n)
    factor = snp.zeros_like(a)
    for j in range(n):
        column = a[..., :, j] - (factor @ snp.expand_dims(factor[..., j, :], -1))[..., 0]
        pivot = snp.sqrt(column[..., j])
        factor = _set_column(factor, j, snp.where(rows >= j, column / snp.expand_dims(pivot, -1), 0.0))
    return factor


def qr(a):
    """The reduced QR factorization ``(q, r)`` of an ``(..., m, n)`` matrix: ``q`` has
    ``k = min(m, n)`` orthonormal columns, ``r`` is upper triangular with a positive
    diagonal (Gram-Schmidt, orthogonalized twice). ``a`` needs full column rank ``k``."""
    a = _matrix(a, square=False)
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
            q = _set_column(q, j, v / snp.expand_dims(length, -1))
            coefficients = snp.where(_rows(k) == j, snp.expand_dims(length, -1), coefficients + again)
        r = _set_column(r, j, coefficients)
    return q, r


# -- Jacobi: eigh, svd ------------------------------------------------------------------


def _sweeps(dtype, sweeps):
    return sweeps if sweeps is not None else (10 if canonical_dtype(dtype) == "f64" else 6)


def _rotation(n, p, q, c, s, dtype):
    """The ``(..., n, n)`` Givens rotation in the ``(p, q)`` plane."""
    plane = np.zeros((n, n))
    plane[p, p] = plane[q, q] = 1.0
    skew = np.zeros((n, n))
    skew[p, q], skew[q, p] = 1.0, -1.0
    c, s = snp.expand_dims(snp.expand_dims(c, -1), -1), snp.expand_dims(snp.expand_dims(s, -1), -1)
    return _eye(n, dtype) + (c - 1.0) * plane.astype(dtype) + s * skew.astype(dtype)


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
    index = _rows(n)
    column, row = snp.expand_dims(values, -1), snp.expand_dims(values, -2)
    ahead = (row > column) if descending else (row < column)
    ties = (row == column) & (index[None, :] < index[:, None])
    rank = snp.sum(snp.astype(ahead | ties, np.int32), axis=-1)
    placed = snp.expand_dims(rank, -2) == snp.expand_dims(index, -1)  # [r, i]: value i goes to r
    sorted_values = snp.sum(snp.where(placed, row, snp.zeros((), values.dtype)), axis=-1)
    sorted_vectors = _swap_last(_select_rows(_swap_last(vectors), placed))
    return sorted_values, sorted_vectors


def eigh(a, sweeps=None):
    """Eigenvalues (ascending) and orthonormal eigenvectors (columns) of a symmetric ``a``
    (symmetrized first): cyclic Jacobi, ``sweeps`` sweeps (6 in f32, 10 in f64)."""
    a = _symmetrized(_matrix(a))
    n = a.shape[-1]
    dtype = np.dtype(a.dtype)
    vectors = snp.broadcast_to(_eye(n, a.dtype), a.shape)
    for _ in range(_sweeps(a.dtype, sweeps)):
        for p in range(n - 1):
            for q in range(p + 1, n):
                c, s = _jacobi_angle(a[..., p, p], a[..., q, q], a[..., p, q], dtype)
                rotation = _rotation(n, p, q, c, s, dtype)
                a = _swap_last(rotation) @ a @ rotation
                vectors = vectors @ rotation
    return _sort_columns(snp.stack(_diagonal(a), axis=-1), vectors)


def svd(a, full_matrices=False, compute_uv=True, sweeps=None):
    """The reduced SVD ``(u, s, vh)`` of an ``(..., m, n)`` matrix, singular values
    descending (one-sided Jacobi on the columns of ``a`` or ``a.T``); ``s`` alone without
    ``compute_uv``. ``u``'s columns for zero singular values are undetermined (NaN)."""
    if full_matrices:
        raise LinAlgError("s4tf.linalg.svd computes the reduced SVD only (full_matrices=False)")
    a = _matrix(a, square=False)
    if a.shape[-2] < a.shape[-1]:
        result = svd(_swap_last(a), compute_uv=compute_uv, sweeps=sweeps)
        if not compute_uv:
            return result
        u, s, vh = result
        return _swap_last(vh), s, _swap_last(u)
    n = a.shape[-1]
    dtype = np.dtype(a.dtype)
    v = snp.broadcast_to(_eye(n, a.dtype), (*a.shape[:-2], n, n))
    for _ in range(_sweeps(a.dtype, sweeps)):
        for p in range(n - 1):
            for q in range(p + 1, n):
                ap, aq = a[..., :, p], a[..., :, q]
                c, s = _jacobi_angle(snp.sum(ap * ap, axis=-1), snp.sum(aq * aq, axis=-1), snp.sum(ap * aq, axis=-1), dtype)
                rotation = _rotation(n, p, q, c, s, dtype)
                a, v = a @ rotation, v @ rotation
    lengths = snp.sqrt(snp.sum(a * a, axis=-2))
    s, v = _sort_columns(lengths, v, descending=True)
    if not compute_uv:
        return s
    _, u = _sort_columns(lengths, a / snp.expand_dims(lengths, -2), descending=True)
    return u, s, _swap_last(v)


# -- norms ------------------------------------------------------------------------------


def _vector_norm(x, ord, axis, keepdims):
    magnitude = snp.abs(x)
    if ord is None or ord == 2:
        return snp.sqrt(snp.sum(x * x, axis=axis, keepdims=keepdims))
    if ord == np.inf:
        return snp.max(magnitude, axis=axis, keepdims=keepdims)
    if ord == -np.inf:
        return snp.min(magnitude, axis=axis, keepdims=keepdims)
    if ord == 0:
        return snp.sum(snp.astype(x != 0, x.dtype), axis=axis, keepdims=keepdims)
    if ord == 1:
        return snp.sum(magnitude, axis=axis, keepdims=keepdims)
    if isinstance(ord, str):
        raise LinAlgError(f"ord {ord!r} is a matrix norm; vectors take numbers")
    return snp.sum(magnitude ** float(ord), axis=axis, keepdims=keepdims) ** (1.0 / ord)


def _matrix_norm(x, ord, axes, keepdims):
    row_axis, column_axis = axes
    if ord in (None, "fro"):
        result = snp.sqrt(snp.sum(x * x, axis=axes))
    elif ord in (1, -1, np.inf, -np.inf):
        summed_axis, kept_axis = (row_axis, column_axis) if ord in (1, -1) else (column_axis, row_axis)
        sums = snp.sum(snp.abs(x), axis=summed_axis, keepdims=True)
        result = (snp.max if ord in (1, np.inf) else snp.min)(sums, axis=(kept_axis,), keepdims=True)
        result = snp.squeeze(result, axis=axes)
    elif ord in (2, -2, "nuc"):
        moved = snp.transpose(x, [i for i in range(x.ndim) if i not in axes] + list(axes))
        s = svd(moved, compute_uv=False)
        result = snp.sum(s, axis=-1) if ord == "nuc" else (s[..., 0] if ord == 2 else s[..., -1])
    else:
        raise LinAlgError(f"ord {ord!r} is not a matrix norm (None, 'fro', 'nuc', 1, -1, 2, -2, inf, -inf)")
    if keepdims:
        for axis in sorted(axes):
            result = snp.expand_dims(result, axis)
    return result


def norm(x, ord=None, axis=None, keepdims=False):
    """NumPy's ``linalg.norm``: vector norms over one axis, matrix norms over two
    (``'fro'``, ``'nuc'``, ``1``, ``2``, ``inf`` and their negatives); with ``axis=None``
    the 2-norm of the flattened ``x``, or the matrix norm of a matrix."""
    x = snp.asarray(x)
    if not is_float(canonical_dtype(x.dtype)):
        x = snp.astype(x, np.float32)
    if axis is None:
        if ord is not None and x.ndim == 2:
            return _matrix_norm(x, ord, (0, 1), keepdims)
        if ord is not None and x.ndim != 1:
            raise LinAlgError(f"ord={ord!r} needs a vector or matrix, or an axis; got shape {tuple(x.shape)}")
        result = _vector_norm(snp.reshape(x, (-1,)), ord, 0, False)
        return snp.reshape(result, (1,) * x.ndim) if keepdims else result
    axes = (axis,) if isinstance(axis, (int, np.integer)) else tuple(axis)
    axes = tuple(int(a) % x.ndim if -x.ndim <= a < x.ndim else _bad_axis(a, x) for a in axes)
    if len(axes) == 1:
        return _vector_norm(x, ord, axes[0], keepdims)
    if len(axes) == 2 and axes[0] != axes[1]:
        return _matrix_norm(x, ord, axes, keepdims)
    raise LinAlgError(f"norm takes one axis (vectors) or two (matrices), got {axis!r}")


def _bad_axis(axis, x):
    raise ShapeError(f"axis {axis} is out of range for shape {tuple(x.shape)}")
