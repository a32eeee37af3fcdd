"""``s4tf.linalg``: the Array API's ``linalg`` extension (2023.12), and NumPy's ``norm``
and SciPy's ``solve_triangular`` (as ``triangular_solve``), composed from s4tf ops so
IREE runs them on every target and the AD passes differentiate them like any other code.

IREE-3.13-WORKAROUND: IREE 3.13 has no LAPACK calls, so each factorization is written out for the matrix's
static size: LU with partial pivoting (``solve``, ``inv``, ``det``, ``slogdet``),
Cholesky and substitution (``cholesky``, ``triangular_solve``), Gram-Schmidt with
reorthogonalization and Householder reflections (``qr``), cyclic Jacobi rotations
(``eigh``, ``svd`` and what uses them). The staged code grows with the size (``n`` steps;
Jacobi ``n**2 / 2`` rotations a sweep): meant for small matrices, a few dozen rows.
Leading axes are batch axes.

```python
import numpy as np, s4tf
a = np.array([[4.0, 1.0], [1.0, 3.0]], np.float32)
x = s4tf.linalg.solve(a, np.array([1.0, 2.0], np.float32))
```
"""

from s4tf.linalg.factorizations import cholesky, qr
from s4tf.linalg.lu import det, inv, matrix_power, slogdet, solve, triangular_solve
from s4tf.linalg.matrices import LinAlgError
from s4tf.linalg.norms import matrix_norm, norm, vector_norm
from s4tf.linalg.products import cross, diagonal, matmul, matrix_transpose, outer, tensordot, trace, vecdot
from s4tf.linalg.results import EighResult, QRResult, SlogdetResult, SVDResult
from s4tf.linalg.spectral import eigh, eigvalsh, matrix_rank, pinv, svd, svdvals

__all__ = [
    "cholesky", "cross", "det", "diagonal", "eigh", "eigvalsh", "inv", "matmul", "matrix_norm", "matrix_power",
    "matrix_rank", "matrix_transpose", "outer", "pinv", "qr", "slogdet", "solve", "svd", "svdvals", "tensordot",
    "trace", "vecdot", "vector_norm",
    "norm", "triangular_solve", "LinAlgError", "EighResult", "QRResult", "SlogdetResult", "SVDResult",
]
