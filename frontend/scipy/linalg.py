"""``s4tf.scipy.linalg``: SciPy's names for ``s4tf.linalg``'s triangular solves,
Cholesky and LU factorizations (square matrices, leading batch axes).

```python
import numpy as np, s4tf
from s4tf.scipy import linalg

a = np.array([[4.0, 1.0], [1.0, 3.0]])
x = linalg.cho_solve(linalg.cho_factor(a), np.array([1.0, 2.0]))
```
"""

from __future__ import annotations

from s4tf.arrays import numpy_api as snp
from s4tf.arrays.creation import tril, triu
from s4tf.linalg import cholesky as _cholesky, triangular_solve
from s4tf.linalg.lu import pivoted_lu
from s4tf.linalg.matrices import batched_eye, linalg_error, matrix, rows

_TRANSPOSED = {0: False, "N": False, 1: True, "T": True, 2: True, "C": True}


def solve_triangular(a, b, trans=0, lower=False, unit_diagonal=False):
    """``x`` with ``a @ x = b`` (``a.T @ x = b`` for ``trans`` 1, 2, ``'T'``, ``'C'``),
    reading only the ``lower`` or upper triangle of ``a``."""
    if trans not in _TRANSPOSED:
        raise linalg_error(f"solve_triangular: trans must be 0, 1, 2, 'N', 'T' or 'C', got {trans!r}")
    return triangular_solve(a, b, lower=lower, transpose=_TRANSPOSED[trans], unit_diagonal=unit_diagonal)


def cholesky(a, lower=False):
    """The Cholesky factor: upper ``U`` with ``U.T @ U = a`` (SciPy's default), or lower."""
    return _cholesky(a, upper=not lower)


def cho_factor(a, lower=False):
    """``(c, lower)`` for ``cho_solve``: ``c`` the factor, zero in its other triangle."""
    return cholesky(a, lower), lower


def cho_solve(c_and_lower, b):
    """``x`` with ``a @ x = b`` from ``cho_factor(a)``: two triangular solves."""
    c, lower = c_and_lower
    y = triangular_solve(c, b, lower=lower, transpose=not lower)
    return triangular_solve(c, y, lower=lower, transpose=lower)


def lu(a, permute_l=False):
    """``(p, l, u)`` with ``a = p @ l @ u`` (``p`` a permutation, ``l`` unit lower
    triangular, ``u`` upper), or ``(p @ l, u)`` with ``permute_l``; square ``a`` only."""
    a = matrix(a)
    packed, perm, _ = pivoted_lu(a)
    p = snp.astype(snp.expand_dims(perm, -2) == snp.expand_dims(rows(a.shape[-1]), -1), a.dtype)
    lower = tril(packed, -1) + batched_eye(a)
    upper = triu(packed)
    return (p @ lower, upper) if permute_l else (p, lower, upper)


__all__ = ["cho_factor", "cho_solve", "cholesky", "lu", "solve_triangular"]
